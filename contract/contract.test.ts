import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createAjv, LEVELS, loadContract, route, SCHEMA_DIR, validateRequest } from './index.ts';

describe('loadContract', () => {
  it('compiles once per process and returns the same contract', () => {
    expect(loadContract()).toBe(loadContract());
  });

  it('knows the three specified operations', () => {
    expect(loadContract().operations.map((o) => o.operationId)).toEqual(['listNotificationGroups', 'createAttributeConfig', 'createHighlight']);
  });

  it('routes only the specified paths under the base path', () => {
    const contract = loadContract();
    expect(route(contract, 'GET', '/v3/notification-groups?filter[type]=portal')?.operationId).toBe('listNotificationGroups');
    expect(route(contract, 'POST', '/v3/highlights/')?.operationId).toBe('createHighlight');
    expect(route(contract, 'GET', '/v3/highlights')).toBeNull();
    expect(route(contract, 'GET', '/notification-groups')).toBeNull();
    expect(route(contract, 'GET', '/api/v3/notification-groups', '/api/v3')?.operationId).toBe('listNotificationGroups');
  });

  it('names the query parameter and the bound in its messages', () => {
    const contract = loadContract();
    const findings = validateRequest(contract, contract.operation('listNotificationGroups'), {
      method: 'GET',
      path: '/v3/notification-groups?filter[type]=portal&page[limit]=0&page[offset]=0',
      headers: { authorization: 'Bearer r:token' },
    });
    expect(findings).toEqual([expect.objectContaining({ requirement: 'NG-PAGE-LIMIT-MIN', level: 'MUST', pointer: 'page[limit]', message: 'page[limit] must be a number ≥ 1, got 0' })]);
  });

  it('has requirement ids that are unique', () => {
    const ids = loadContract().requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the requirement catalogue', () => {
  const contract = loadContract();

  it('gives every requirement a level, a section of the specification and a sentence', () => {
    const incomplete = contract.requirements.filter((r) => !LEVELS.includes(r.level) || !/^[1-9]\d*(\.[1-9]\d*)?$/.test(r.section) || r.text.trim() === '');
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
    expect(contract.requirements.filter((r) => r.level === 'MUST' && !basis.test(r.basis ?? '')).map((r) => r.id)).toEqual([]);
  });

  it('gives a basis to MUST requirements only: a SHOULD or INFO rests on a convention or an open choice', () => {
    expect(contract.requirements.filter((r) => r.level !== 'MUST' && r.basis !== undefined).map((r) => r.id)).toEqual([]);
  });

  it('names an existing requirement wherever serving a rejected request breaks another one', () => {
    const dangling = contract.requirements.filter((r) => r.acceptedBreaks !== undefined && !contract.requirements.some((other) => other.id === r.acceptedBreaks));
    expect(dangling.map((r) => r.id)).toEqual([]);
  });

  it('holds the success statuses of each operation in exactly one requirement', () => {
    for (const operation of contract.operations) expect(contract.requirements.filter((r) => r.successOf === operation.operationId).map((r) => r.id), operation.operationId).toHaveLength(1);
    expect(contract.requirements.filter((r) => r.successOf !== undefined && !contract.operations.some((o) => o.operationId === r.successOf)).map((r) => r.id)).toEqual([]);
  });

  it('routes schema violations only from real operations', () => {
    const operations = ['generic', ...contract.operations.map((o) => o.operationId)];
    expect(contract.schemaFindingRoutes.filter((r) => r.operation !== undefined && !operations.includes(r.operation)).map((r) => r.requirement.id)).toEqual([]);
  });

  it('holds every requirement id the contract module cites', () => {
    const sourceDir = new URL('./', import.meta.url);
    const sources = readdirSync(sourceDir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const cited = new Set(sources.flatMap((name) => [...readFileSync(new URL(name, sourceDir), 'utf8').matchAll(/['"`]([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)['"`]/g)].map((m) => m[1])));
    expect(cited.size, 'ids found in contract/*.ts').toBeGreaterThan(10);
    expect([...cited].filter((id) => !contract.requirements.some((r) => r.id === id))).toEqual([]);
  });
});
