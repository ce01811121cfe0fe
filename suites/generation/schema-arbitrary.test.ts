// The derivation of values from schemas: what it draws is what the schema accepts (the contract's
// request schemas, and a schema the kit has never seen, so a new member needs no code), it reaches
// the corners it promises, each mutation makes a value the schema rejects, and inputs and their
// expectations follow the contract.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyMembers,
  createAjv,
  filterRequired,
  includeNames,
  INCLUDE_PARAMETER,
  loadContract,
  parameterSchema,
  PAGE_PARAMETER,
  querySchema,
  recordKinds,
  SAMPLE_OF_TYPE,
  withoutValueAt,
  withValueAt,
  type BodyMember,
  type Operation,
} from '../../contract/index.ts';
import { creates, itWith, list, listQuery, lists } from '../../contract/test-support.ts';
import { arbitraryOf, LONG_STRING_CHARACTERS, mutatedValue, mutationsOf } from './schema-arbitrary.ts';
import { holdsUnshownValue, expectationOf } from './expectations.ts';
import { MAX_QUERY_OCTETS, operationInputs, queryText } from './inputs.ts';
import { requestOf } from './generate.ts';
import { fixtureMembers } from '../documents.ts';

const contract = loadContract();
/** A create with a string attribute of values seen, one of values not shown and a plain string. */
const openCreate: Operation | undefined = creates.find((o) => {
  const members = bodyMembers(o).filter((m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer));
  return (
    members.some((m) => m.valuesSeen !== undefined && m.types.join() === 'string') &&
    members.some((m) => m.valuesNotShown === true) &&
    members.some((m) => m.types.join() === 'string' && m.enum === undefined && !m.valuesNotShown)
  );
});
/**
 * A list whose filter is required and whose page limit's maximum and include names are not shown (x-maximum-not-shown,
 * x-values-not-shown).
 */
const openList: Operation | undefined = lists.find((o) => {
  const limit = (parameterSchema(o, PAGE_PARAMETER)?.properties as Record<string, Record<string, unknown>> | undefined)
    ?.limit;
  return (
    filterRequired(o) &&
    limit?.['x-maximum-not-shown'] === true &&
    o.parameters.some((p) => p.name === INCLUDE_PARAMETER) &&
    includeNames(o).length === 0
  );
});
const OPEN_LIST = 'list whose filter is required and whose page limit maximum and include names are not shown';
/** A list whose filter is required. */
const filteredList = lists.find(filterRequired);
/** A create naming its resource type. */
const typedCreate = creates.find((o) => o.resourceType !== undefined);
const SEED = 7;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const requestSchemas = contract.operations.flatMap((operation) => [
  ...(operation.parameters.length > 0
    ? [{ name: `${operation.operationId} query`, schema: querySchema(operation) }]
    : []),
  ...(operation.requestBody ? [{ name: `${operation.operationId} body`, schema: operation.requestBody }] : []),
]);

/** A schema the contract does not hold: every type, nesting, a required member, an enum, a minimum. */
const unseen = {
  type: 'object',
  required: ['count'],
  properties: {
    count: { type: 'integer', minimum: 3 },
    ratio: { type: 'number' },
    name: { type: 'string', maxLength: 5 },
    flag: { type: 'boolean' },
    nothing: { type: 'null' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
    nested: { type: 'object', properties: { deep: { type: 'string' } } },
  },
};

describe('values derived from a schema', () => {
  for (const { name, schema } of [...requestSchemas, { name: 'a schema with members no code names', schema: unseen }]) {
    it(`${name}: every value drawn is accepted by the schema`, () => {
      const validate = createAjv().compile(schema);
      fc.assert(
        fc.property(arbitraryOf(schema), (value) => validate(value)),
        { seed: SEED, numRuns: 300 },
      );
    });

    // Removing a member whose optional parent was not drawn changes nothing: that input is simply valid.
    it(`${name}: each change a mutation makes is refused by the schema`, () => {
      const validate = createAjv().compile(schema);
      const mutations = mutationsOf(schema);
      expect(mutations.length).toBeGreaterThan(0);
      const changed = fc.tuple(arbitraryOf(schema), fc.constantFrom(...mutations)).chain(([value, mutation]) =>
        mutatedValue(mutation).map((replacement) => ({
          before: value,
          value:
            mutation.kind === 'missing'
              ? withoutValueAt(value, mutation.pointer)
              : withValueAt(value, mutation.pointer, replacement),
        })),
      );
      fc.assert(
        fc.property(
          changed,
          ({ before, value }) => !validate(value) || JSON.stringify(before) === JSON.stringify(value),
        ),
        { seed: SEED, numRuns: 300 },
      );
    });
  }

  it('a schema with members no code names: each member is drawn present and absent', () => {
    const values = fc.sample(arbitraryOf(unseen), { seed: SEED, numRuns: 400 }) as Record<string, unknown>[];
    for (const member of Object.keys(unseen.properties)) {
      expect(
        values.some((v) => member in v),
        `${member} present`,
      ).toBe(true);
      if (member !== 'count')
        expect(
          values.some((v) => !(member in v)),
          `${member} absent`,
        ).toBe(true);
    }
  });

  it('strings reach past a few thousand characters and outside the Basic Multilingual Plane; numbers past 2^31 and fractions', () => {
    const strings = fc.sample(arbitraryOf({ type: 'string' }), { seed: SEED, numRuns: 600 }) as string[];
    expect(Math.max(...strings.map((s) => s.length))).toBeGreaterThan(LONG_STRING_CHARACTERS / 2);
    expect(strings.some((s) => [...s].some((c) => c.codePointAt(0)! > 0xffff))).toBe(true);
    expect(strings.filter((s) => LONE_SURROGATE.test(s))).toEqual([]);
    const numbers = fc.sample(arbitraryOf({ type: 'number', minimum: 0 }), { seed: SEED, numRuns: 600 }) as number[];
    expect(numbers.some((n) => n >= 2 ** 31 && Number.isSafeInteger(n))).toBe(true);
    expect(numbers.some((n) => !Number.isInteger(n))).toBe(true);
    expect(numbers.every((n) => n >= 0)).toBe(true);
  });
});

describe('inputs and what they may be answered', () => {
  itWith(list, 'list')(
    'a generated query is sent in the kit encoding and reads back as the value drawn',
    (operation) => {
      fc.assert(
        fc.property(arbitraryOf(querySchema(operation)), (query) => {
          const text = queryText(operation, query as Record<string, unknown>);
          return expectationOf(contract, operation, text, undefined).valid;
        }),
        { seed: SEED, numRuns: 300 },
      );
    },
  );

  itWith(list, 'list')(
    `every query drawn stays within ${MAX_QUERY_OCTETS} octets, the URI length every HTTP recipient is asked to take`,
    (operation) => {
      const inputs = fc.sample(operationInputs(operation, {}), { seed: SEED, numRuns: 300 });
      expect(
        Math.max(
          ...inputs.map((input) =>
            Buffer.byteLength(`${operation.pathTemplate}?${queryText(operation, input.query!)}`),
          ),
        ),
      ).toBeLessThanOrEqual(MAX_QUERY_OCTETS);
    },
  );

  itWith(openList, OPEN_LIST)(
    'a valid list query must be served; with a page limit (its maximum is not shown), a fraction, a number past 2^53 - 1 or a value not shown it may be refused with 400',
    (list) => {
      const filter = listQuery(list);
      expect(expectationOf(contract, list, listQuery(list, { limit: 5, offset: 0 }), undefined).statuses).toContain(
        400,
      );
      const success = expectationOf(contract, list, filter, undefined);
      expect(success).toMatchObject({ valid: true, requirement: contract.successRequirement(list.operationId).id });
      expect(success.statuses).toContain(200);
      expect(success.statuses).not.toContain(400);
      for (const query of [
        `${filter}&page[limit]=2.5&page[offset]=0`,
        `${filter}&page[limit]=1&page[offset]=1e300`,
        `${filter}&include=owner`,
      ]) {
        expect(expectationOf(contract, list, query, undefined).statuses, query).toContain(400);
      }
    },
  );

  itWith(filteredList, 'list whose filter is required')(
    'an input without the required filter is refused under the requirement serving it breaks',
    (list) => {
      expect(expectationOf(contract, list, 'page[limit]=5&page[offset]=0', undefined)).toMatchObject({
        valid: false,
        requirement: contract.requirementBrokenByAccepting(list.roles.filterRequired!).id,
        statuses: expect.arrayContaining([400]),
      });
    },
  );

  itWith(typedCreate, 'create naming its resource type')(
    'an input of the wrong data.type is refused, and may be 409',
    (create) => {
      const wrongType = expectationOf(
        contract,
        create,
        undefined,
        JSON.stringify({ data: { type: 'Nothing', attributes: {} } }),
      );
      expect(wrongType.valid).toBe(false);
      expect(wrongType.statuses).toEqual(expect.arrayContaining([400, 409]));
    },
  );

  itWith(openCreate, 'create with an attribute of values seen, one of values not shown and a plain one')(
    'values the specification leaves open are found wherever the schema marks them',
    (operation) => {
      const body = operation.requestBody!;
      const members = bodyMembers(operation).filter((m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer));
      const seen = members.find((m) => m.valuesSeen !== undefined && m.types.join() === 'string')!;
      const notShown = members.find((m) => m.valuesNotShown === true)!;
      const plain = members.find((m) => m.types.join() === 'string' && m.enum === undefined && !m.valuesNotShown)!;
      const document = (member: BodyMember, value: unknown) =>
        withValueAt({ data: { type: operation.resourceType, attributes: {} } }, member.pointer, value);
      expect(holdsUnshownValue(body, document(plain, 'x'))).toBe(false);
      expect(holdsUnshownValue(body, document(notShown, SAMPLE_OF_TYPE[notShown.types[0]]))).toBe(true);
      expect(holdsUnshownValue(body, document(seen, `${String(seen.valuesSeen![0])}Unseen`))).toBe(true);
      expect(holdsUnshownValue(body, document(seen, seen.valuesSeen![0]))).toBe(false);
    },
  );

  it('strings are full Unicode, not ASCII by default: drawn values and values outside an enum alike', () => {
    const nonAscii = (values: unknown[]) =>
      values.filter((v) => typeof v === 'string' && /[^\x00-\x7f]/.test(v)).length;
    const drawn = fc.sample(arbitraryOf({ type: 'string' }), { seed: SEED, numRuns: 200 });
    expect(nonAscii(drawn)).toBeGreaterThan(100);
    const outside = fc.sample(mutatedValue({ kind: 'outside-values', pointer: '/type', values: ['portal', 'user'] }), {
      seed: SEED,
      numRuns: 200,
    });
    expect(nonAscii(outside)).toBeGreaterThan(50);
  });

  it('every operation draws valid and near-valid inputs, the create operations naming the target records', () => {
    for (const operation of contract.operations) {
      const fixtures = Object.fromEntries(recordKinds(contract.operations).map((kind) => [kind, `${kind}-fixture`]));
      const inputs = fc.sample(operationInputs(operation, fixtures), { seed: SEED, numRuns: 200 });
      const expectations = inputs.map((input) => {
        const { query, bodyText } = requestOf(operation, input);
        return expectationOf(contract, operation, query, bodyText);
      });
      expect(expectations.filter((e) => e.valid).length, operation.operationId).toBeGreaterThan(40);
      expect(expectations.filter((e) => !e.valid).length, operation.operationId).toBeGreaterThan(40);
      if (fixtureMembers(operation).length > 0)
        expect(
          inputs.some((input) => JSON.stringify(input.document).includes('-fixture')),
          operation.operationId,
        ).toBe(true);
    }
  });
});
