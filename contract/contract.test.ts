import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  Contract,
  createAjv,
  LEVELS,
  LIST_ROLES,
  loadContract,
  OPERATION_ROLES,
  route,
  SCHEMA_DIR,
  smallestQuery,
  validateRequest,
} from './index.ts';
import { itWith, lists } from './test-support.ts';

describe('loadContract', () => {
  it('compiles once per process and returns the same contract', () => {
    expect(loadContract()).toBe(loadContract());
  });

  it("compiles every schema of the contract in strict mode, and validators for the contract's own schemas only", () => {
    const contract = new Contract(
      readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8'),
      readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8'),
    );
    // Validators are compiled on first use; this compiles them all, as the proxy does before it serves.
    expect(() => contract.compileValidators()).not.toThrow();
    const requiring = Object.values(contract.schemas).find((schema) => Array.isArray(schema.required));
    expect(contract.validator(requiring!)({})).toBe(false);
    expect(() => contract.validator({ type: 'string' })).toThrow(/not one of this contract/);
  });

  // The one test that pins the operations the specification specifies: every other test picks the
  // operations it needs from the contract by what they have (docs/contributing.md).
  it('knows the specified operations', () => {
    expect(loadContract().operations.map((o) => o.operationId)).toEqual([
      'listNotificationGroups',
      'createAttributeConfig',
      'createHighlight',
    ]);
  });

  it('routes only the specified paths under the base path', () => {
    const contract = loadContract();
    for (const operation of contract.operations) {
      const other = operation.method === 'GET' ? 'POST' : 'GET';
      const path = `${contract.basePath}${operation.pathTemplate}`;
      expect(route(contract, operation.method, path)?.operationId, path).toBe(operation.operationId);
      expect(route(contract, operation.method, `${path}/`)?.operationId, `${path}/`).toBe(operation.operationId);
      expect(route(contract, operation.method, `${path}?a=b`)?.operationId, `${path}?a=b`).toBe(operation.operationId);
      expect(route(contract, operation.method, `/api${path}`, `/api${contract.basePath}`)?.operationId).toBe(
        operation.operationId,
      );
      if (!contract.operations.some((o) => o.method === other && o.pathTemplate === operation.pathTemplate))
        expect(route(contract, other, path), `${other} ${path}`).toBeNull();
      expect(route(contract, operation.method, operation.pathTemplate), operation.pathTemplate).toBeNull();
    }
  });

  itWith(lists[0], 'list')('names the query parameter and the bound in its messages', (list) => {
    const contract = loadContract();
    const query = [smallestQuery(list.parameters), 'page[limit]=0&page[offset]=0'].filter((q) => q !== '').join('&');
    const findings = validateRequest(contract, list, {
      method: 'GET',
      path: `${contract.basePath}${list.pathTemplate}?${query}`,
      headers: { authorization: 'Bearer r:token' },
    });
    expect(findings).toEqual([
      expect.objectContaining({
        requirement: contract.requirementOf(list, 'pageLimitMin')?.id,
        level: 'MUST',
        pointer: 'page[limit]',
        message: 'page[limit] must be a number ≥ 1, got 0',
      }),
    ]);
  });

  it('has requirement ids that are unique', () => {
    const ids = loadContract().requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the requirement catalogue', () => {
  const contract = loadContract();

  it('gives every requirement a level, a section of the specification and a sentence', () => {
    const incomplete = contract.requirements.filter(
      (r) => !LEVELS.includes(r.level) || !/^[1-9]\d*(\.[1-9]\d*)?$/.test(r.section) || r.text.trim() === '',
    );
    expect(incomplete.map((r) => r.id)).toEqual([]);
  });

  it('matches its own JSON Schema (schemas/requirements.schema.json)', () => {
    const validate = createAjv().compile(JSON.parse(readFileSync(`${SCHEMA_DIR}requirements.schema.json`, 'utf8')));
    const valid = validate(parseYaml(readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8')));
    expect(validate.errors ?? [], 'schema errors').toEqual([]);
    expect(valid).toBe(true);
  });

  it('names, for every MUST, the statement of the specification that makes it one: sections, then a paraphrase', () => {
    const basis = /^[1-9]\d*(\.[1-9]\d*)?((, | to )[1-9]\d*(\.[1-9]\d*)?)*: \S.{19,}$/;
    expect(
      contract.requirements.filter((r) => r.level === 'MUST' && !basis.test(r.basis ?? '')).map((r) => r.id),
    ).toEqual([]);
  });

  it('gives a basis to MUST requirements only: a SHOULD or INFO rests on a convention or an open choice', () => {
    expect(contract.requirements.filter((r) => r.level !== 'MUST' && r.basis !== undefined).map((r) => r.id)).toEqual(
      [],
    );
  });

  it('names an existing requirement wherever serving a rejected request breaks another one', () => {
    const dangling = contract.requirements.filter(
      (r) => r.acceptedBreaks !== undefined && !contract.requirements.some((other) => other.id === r.acceptedBreaks),
    );
    expect(dangling.map((r) => r.id)).toEqual([]);
  });

  it('names, for each operation, a success requirement, and for each role an existing requirement of the catalogue', () => {
    for (const operation of contract.operations) {
      expect(contract.requirementOf(operation, 'success'), operation.operationId).toBeDefined();
      for (const role of Object.keys(operation.roles))
        expect([...OPERATION_ROLES, ...LIST_ROLES], `${operation.operationId} ${role}`).toContain(role);
    }
  });

  it('refuses a contract whose x-requirements names a requirement the catalogue does not hold, or a role it does not know', () => {
    const openapi = readFileSync(new URL('openapi.yaml', `file://${SCHEMA_DIR}`), 'utf8');
    const requirements = readFileSync(new URL('requirements.yaml', `file://${SCHEMA_DIR}`), 'utf8');
    for (const operation of contract.operations) {
      const success = contract.requirementOf(operation, 'success')!.id;
      expect(
        () => new Contract(openapi.replace(`success: ${success}\n`, `success: ${success}-299\n`), requirements),
      ).toThrow(`${operation.operationId}: x-requirements success names ${success}-299`);
      expect(
        () => new Contract(openapi.replace(`success: ${success}\n`, `created: ${success}\n`), requirements),
      ).toThrow(`${operation.operationId}: unknown role "created"`);
    }
  });

  it('reads each role of an operation through requirementOf, undefined where the operation has none', () => {
    const read = contract.operations.flatMap((operation) =>
      [...OPERATION_ROLES, ...LIST_ROLES].map((role) => {
        const id = contract.requirementOf(operation.operationId, role)?.id;
        expect(contract.requirementOf(operation, role)?.id, `${operation.operationId} ${role}`).toBe(id);
        expect(id, `${operation.operationId} ${role}`).toBe(operation.roles[role]);
        return id;
      }),
    );
    expect(read.filter((id) => id !== undefined).length).toBeGreaterThan(0);
    expect(read.filter((id) => id === undefined).length).toBeGreaterThan(0);
  });

  it('routes schema violations only from real operations', () => {
    const operations = ['generic', ...contract.operations.map((o) => o.operationId)];
    expect(
      contract.schemaFindingRoutes
        .filter((r) => r.operation !== undefined && !operations.includes(r.operation))
        .map((r) => r.requirement.id),
    ).toEqual([]);
  });

  it('holds every requirement id the contract module cites, or leaves it out for what it lacks', () => {
    const sourceDir = new URL('./', import.meta.url);
    const sources = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter(
      (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'),
    );
    const cited = new Set(
      sources.flatMap((name) =>
        [...readFileSync(new URL(name, sourceDir), 'utf8').matchAll(/['"`]([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)['"`]/g)].map(
          (m) => m[1],
        ),
      ),
    );
    expect(cited.size, 'ids found in contract/**/*.ts').toBeGreaterThan(10);
    const catalogued = new Set([...contract.requirements, ...contract.leftOut].map((r) => r.id));
    expect([...cited].filter((id) => !catalogued.has(id))).toEqual([]);
  });
});
