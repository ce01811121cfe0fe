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
  validateRequest,
} from './index.ts';

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
    expect(contract.validator(contract.schemas.NotificationGroup)({})).toBe(false);
    expect(() => contract.validator({ type: 'string' })).toThrow(/not one of this contract/);
  });

  it('knows the three specified operations', () => {
    expect(loadContract().operations.map((o) => o.operationId)).toEqual([
      'listNotificationGroups',
      'createAttributeConfig',
      'createHighlight',
    ]);
  });

  it('routes only the specified paths under the base path', () => {
    const contract = loadContract();
    expect(route(contract, 'GET', '/v3/notification-groups?filter[type]=portal')?.operationId).toBe(
      'listNotificationGroups',
    );
    expect(route(contract, 'POST', '/v3/highlights/')?.operationId).toBe('createHighlight');
    expect(route(contract, 'GET', '/v3/highlights')).toBeNull();
    expect(route(contract, 'GET', '/notification-groups')).toBeNull();
    expect(route(contract, 'GET', '/api/v3/notification-groups', '/api/v3')?.operationId).toBe(
      'listNotificationGroups',
    );
  });

  it('names the query parameter and the bound in its messages', () => {
    const contract = loadContract();
    const findings = validateRequest(contract, contract.operation('listNotificationGroups'), {
      method: 'GET',
      path: '/v3/notification-groups?filter[type]=portal&page[limit]=0&page[offset]=0',
      headers: { authorization: 'Bearer r:token' },
    });
    expect(findings).toEqual([
      expect.objectContaining({
        requirement: 'NG-PAGE-LIMIT-MIN',
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
    expect(
      () => new Contract(openapi.replace('success: HL-CREATE-201', 'success: HL-CREATE-299'), requirements),
    ).toThrow(/createHighlight: x-requirements success names HL-CREATE-299/);
    expect(
      () => new Contract(openapi.replace('success: HL-CREATE-201', 'created: HL-CREATE-201'), requirements),
    ).toThrow(/createHighlight: unknown role "created"/);
  });

  it('reads each role of an operation through requirementOf, undefined where the operation has none', () => {
    expect(contract.requirementOf('createHighlight', 'relationshipsEcho')?.id).toBe('HL-RESPONSE-RELATIONSHIPS');
    expect(contract.requirementOf('createAttributeConfig', 'relationshipsEcho')).toBeUndefined();
  });

  it('routes schema violations only from real operations', () => {
    const operations = ['generic', ...contract.operations.map((o) => o.operationId)];
    expect(
      contract.schemaFindingRoutes
        .filter((r) => r.operation !== undefined && !operations.includes(r.operation))
        .map((r) => r.requirement.id),
    ).toEqual([]);
  });

  it('holds every requirement id the contract module cites', () => {
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
    expect([...cited].filter((id) => !contract.requirements.some((r) => r.id === id))).toEqual([]);
  });
});
