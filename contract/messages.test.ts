// The sentences findings carry: what was expected, what came and where, as a person would write
// them, never an ajv dump. Values stay out of them when `includeValues` is false.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bodyMembers,
  filterMembers,
  judgeExchange,
  listItemSchema,
  scalarText,
  showValue,
  validateGenericRequest,
  validateGenericResponse,
  validateRequest,
  validateResponse,
  withValueAt,
  type Finding,
  type Operation,
  type ValidateOptions,
} from './index.ts';
import {
  contract,
  creates,
  credentials,
  documentExample,
  itWith,
  itemExample,
  jsonApi,
  listQuery,
  lists,
  noneLeft,
} from './test-support.ts';

const userId = '60a7c0f2e4b0c83d2f9a1b23';

type Check = (options: ValidateOptions) => Finding[];

/** A list with a required filter member of two values or more, `page` and `include`. */
const list = lists.find(
  (o) =>
    filterMembers(o).some((m) => m.required && m.values.length >= 2) &&
    ['page', 'include'].every((name) => o.parameters.some((p) => p.name === name)),
);

const query =
  (q: string): Check =>
  (options) =>
    validateRequest(
      contract,
      list!,
      { method: 'GET', path: `${contract.basePath}${list!.pathTemplate}?${q}`, headers: credentials },
      options,
    );
const createBody =
  (
    operation: Operation | undefined,
    body: unknown,
    headers: Record<string, string> = { ...credentials, ...jsonApi },
  ): Check =>
  (options) =>
    validateRequest(
      contract,
      operation!,
      {
        method: 'POST',
        path: `${contract.basePath}${operation!.pathTemplate}`,
        headers,
        bodyText: typeof body === 'string' ? body : JSON.stringify(body),
      },
      options,
    );
const listResponse =
  (status: number, body: unknown, headers: Record<string, string> = jsonApi): Check =>
  (options) =>
    validateResponse(contract, list!, { status, headers, bodyText: JSON.stringify(body) }, options);
/** The findings of a whole list exchange on the server's side, for what only the exchange checks say. */
const listExchange =
  (status: number, body: unknown): Check =>
  (options) =>
    judgeExchange(
      contract,
      { method: 'GET', path: `${contract.basePath}${list!.pathTemplate}?${listQuery(list!)}`, headers: credentials },
      { status, headers: jsonApi, bodyText: JSON.stringify(body) },
      options,
    ).filter((f) => f.location !== 'request');
const genericRequest =
  (body: unknown): Check =>
  (options) =>
    validateGenericRequest(
      contract,
      {
        method: 'PATCH',
        path: '/v3/quizzes/1',
        headers: { ...credentials, ...jsonApi },
        bodyText: JSON.stringify(body),
      },
      options,
    );
const genericResponse =
  (status: number, body: unknown): Check =>
  (options) =>
    validateGenericResponse(contract, { status, headers: jsonApi, bodyText: JSON.stringify(body) }, options);

/** How a message lists the values a member allows. */
const oneOf = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');
/** The list's required filter member of two values or more. */
const filter = list && filterMembers(list).find((m) => m.required && m.values.length >= 2)!;
const [firstValue, secondValue] = filter?.values ?? [];
const listed = list ? listQuery(list) : '';
/** An item of the list, as its case file's complete example has it. */
const item = list ? itemExample(list) : {};
/** An attribute of the list's items whose allowed values are shown, and those values. */
const enumerated = list && enumeratedAttribute(list);
function enumeratedAttribute(operation: Operation): { name: string; values: unknown[] } | undefined {
  const schema = listItemSchema(operation) as { properties?: { attributes?: { properties?: object } } };
  const attributes = (schema.properties?.attributes?.properties ?? {}) as Record<string, { enum?: unknown[] }>;
  const found = Object.entries(attributes).find(([, attribute]) => Array.isArray(attribute.enum));
  return found && { name: found[0], values: found[1].enum! };
}
const attributeOf = (operation: Operation | undefined, type: string) =>
  operation &&
  bodyMembers(operation).find((m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer) && m.types.join() === type);
/** The member of a relationship's identifier whose type is fixed, and that type. */
const fixedType = (operation: Operation) =>
  bodyMembers(operation).find(
    (m) => /^\/data\/relationships\/[^/]+\/data\/type$/.test(m.pointer) && m.const !== undefined,
  );
const typed = creates.find((o) => attributeOf(o, 'string') && attributeOf(o, 'number'));
const relating = creates.find((o) => fixedType(o) !== undefined);
const relationshipType = relating && fixedType(relating)!;
const relationshipName = relationshipType?.pointer.split('/')[3] ?? '';
const anyRelationship = creates.find((o) => bodyMembers(o).some((m) => m.pointer === '/data/relationships'));
const firstCreate = creates[0];
/** The complete example of a create's document with `pointer` set to `value`. */
const exampleWith = (operation: Operation | undefined, pointer: string, value: unknown) =>
  operation ? withValueAt(documentExample(operation), pointer, value) : {};
const typeOf = (operation: Operation | undefined) => JSON.stringify(operation?.resourceType);

const LIST = 'list with a required filter member of two values or more, `page` and `include`';
const CREATE = 'create operation';

interface MessageCase {
  input: string;
  check: Check;
  /** The message with values shown (the default). */
  message: string;
  /** The message with `includeValues: false`, for a message that shows a value. */
  withoutValues?: string;
  /** The operation it sends to, picked by what it has, and what that is. */
  needs?: [operation: Operation | undefined, what: string];
}

const f = `filter[${filter?.name}]`;
const stringAttribute = attributeOf(typed, 'string')?.pointer ?? '';
const numberAttribute = attributeOf(typed, 'number')?.pointer ?? '';
const listCases: MessageCase[] = [
  {
    input: 'page[limit]=0',
    check: query(`${listed}&page[limit]=0&page[offset]=0`),
    message: 'page[limit] must be a number ≥ 1, got 0',
    withoutValues: 'page[limit] must be a number ≥ 1, got an integer',
  },
  {
    input: 'page[offset]=-2',
    check: query(`${listed}&page[limit]=5&page[offset]=-2`),
    message: 'page[offset] must be a number ≥ 0, got -2',
    withoutValues: 'page[offset] must be a number ≥ 0, got an integer',
  },
  {
    input: 'page[limit]=abc',
    check: query(`${listed}&page[limit]=abc&page[offset]=0`),
    message: 'page[limit] must be a number, got "abc"',
    withoutValues: 'page[limit] must be a number, got a string',
  },
  {
    input: 'page[limit] without page[offset]',
    check: query(`${listed}&page[limit]=5`),
    message: 'page[offset] is required',
  },
  { input: 'no filter', check: query(''), message: `${f} is required` },
  {
    input: `${f} outside its values`,
    check: query(`${f}=group`),
    message: `${f} must be one of ${oneOf(filter?.values ?? [])}, got "group"`,
    withoutValues: `${f} must be one of ${oneOf(filter?.values ?? [])}, got a string`,
  },
  {
    input: `${f} twice`,
    check: query(`${f}=${firstValue}&${f}=${secondValue}`),
    message: `${f} must be one of ${oneOf(filter?.values ?? [])}, got ${JSON.stringify([firstValue, secondValue])}`,
    withoutValues: `${f} must be one of ${oneOf(filter?.values ?? [])}, got an array`,
  },
  {
    input: 'a bare filter',
    check: query(`filter=${firstValue}`),
    message: `filter must be an object, got "${firstValue}"`,
    withoutValues: 'filter must be an object, got a string',
  },
  {
    input: 'include with a member',
    check: query(`${listed}&include[owner]=1`),
    message: 'include must be an array, got {"owner":"1"}',
    withoutValues: 'include must be an array, got an object',
  },
  {
    input: 'meta.total as a fraction',
    check: listResponse(200, { data: [], meta: { total: 1.5, pages: 1, page: 1, offset: 0, limit: 10 } }),
    message: '/meta/total must be an integer, got 1.5',
    withoutValues: '/meta/total must be an integer, got a number',
  },
  {
    input: 'an item id that is not an ObjectId',
    check: listResponse(200, { data: [{ ...item, id: 'exams' }] }),
    message: '/data/0/id should be a 24-hex-digit ObjectId, got "exams"',
    withoutValues: '/data/0/id should be a 24-hex-digit ObjectId, got a string of 5 characters',
  },
  {
    input: 'a long value',
    check: listResponse(200, { data: 'x'.repeat(100) }),
    message: `/data must be an array, got "${'x'.repeat(76)}...`,
    withoutValues: '/data must be an array, got a string',
  },
  {
    input: 'a list response as text/html',
    check: listResponse(200, { data: [] }, { 'content-type': 'text/html' }),
    message: 'response Content-Type must be application/vnd.api+json, got text/html',
  },
  {
    input: 'a status the operation does not list',
    check: listExchange(404, { errors: [{ status: '404' }] }),
    message: `status 404 is not listed for ${list?.operationId} (listed: ${list?.statuses.join(', ')})`,
  },
  {
    input: 'an empty errors array',
    check: listResponse(400, { errors: [] }),
    message: '/errors must be an array of at least 1 item, got []',
    withoutValues: '/errors must be an array of at least 1 item, got an empty array',
  },
  {
    input: 'an error status as a number',
    check: listResponse(400, { errors: [{ status: 400 }] }),
    message: '/errors/0/status must be a string, got 400',
    withoutValues: '/errors/0/status must be a string, got an integer',
  },
];

const enumeratedCase: MessageCase = {
  input: 'an item attribute outside its values',
  check: listResponse(200, {
    data: [
      {
        ...item,
        attributes: { ...(item.attributes as object), [enumerated?.name ?? '']: 'News' },
      },
    ],
  }),
  message: `/data/0/attributes/${enumerated?.name} must be one of ${oneOf(enumerated?.values ?? [])}, got "News"`,
  withoutValues: `/data/0/attributes/${enumerated?.name} must be one of ${oneOf(enumerated?.values ?? [])}, got a string`,
  needs: [enumerated && list, 'list whose items have an attribute of values shown'],
};

const createCases: MessageCase[] = [
  { input: 'an empty create document', check: createBody(firstCreate, {}), message: '/data is required' },
  {
    input: 'a create document that is an array',
    check: createBody(firstCreate, []),
    message: 'the document must be an object, got []',
    withoutValues: 'the document must be an object, got an empty array',
  },
  {
    input: 'data.type of another resource',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', 'Note')),
    message: `/data/type must be ${typeOf(firstCreate)}, got "Note"`,
    withoutValues: `/data/type must be ${typeOf(firstCreate)}, got a string`,
  },
  {
    input: 'data.type as a number',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', 7)),
    message: `/data/type must be ${typeOf(firstCreate)}, got 7`,
    withoutValues: `/data/type must be ${typeOf(firstCreate)}, got an integer`,
  },
  {
    input: 'a request without credentials',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', firstCreate?.resourceType), jsonApi),
    message:
      'no credentials: expected Authorization: Bearer r:<session token> or p:<personal access token>, or X-Svc-Session-Token',
  },
  {
    input: 'a Basic Authorization header',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', firstCreate?.resourceType), {
      authorization: 'Basic dXNlcjpwYXNz',
      ...jsonApi,
    }),
    message: 'malformed credentials: Authorization is not "Bearer <prefix>:<token>"',
  },
  {
    input: 'a Bearer value without prefix',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', firstCreate?.resourceType), {
      authorization: 'Bearer token',
      ...jsonApi,
    }),
    message: 'malformed credentials: Bearer value has no r: or p: prefix',
  },
  {
    input: 'a body sent as application/json',
    check: createBody(firstCreate, exampleWith(firstCreate, '/data/type', firstCreate?.resourceType), {
      ...credentials,
      'content-type': 'application/json; charset=utf-8',
    }),
    message: 'request Content-Type must be application/vnd.api+json, got application/json',
  },
];

const cases: MessageCase[] = [
  ...listCases.map((c): MessageCase => ({ ...c, needs: [list, LIST] })),
  enumeratedCase,
  ...createCases.map((c): MessageCase => ({ ...c, needs: [firstCreate, CREATE] })),
  {
    input: 'a relationship identifier of another type',
    check: createBody(
      relating,
      exampleWith(relating, `/data/relationships/${relationshipName}/data`, { id: userId, type: 'Admin' }),
    ),
    message: `${relationshipType?.pointer} must be ${JSON.stringify(relationshipType?.const)}, got "Admin"`,
    withoutValues: `${relationshipType?.pointer} must be ${JSON.stringify(relationshipType?.const)}, got a string`,
    needs: [relating, 'create naming a relationship whose identifier has a fixed type'],
  },
  {
    input: 'a string attribute as a number',
    check: createBody(typed, exampleWith(typed, stringAttribute, 16776960)),
    message: `${stringAttribute} must be a string, got 16776960`,
    withoutValues: `${stringAttribute} must be a string, got an integer`,
    needs: [typed, 'create with a string attribute and a number attribute'],
  },
  {
    input: 'a number attribute as a fraction string',
    check: createBody(typed, exampleWith(typed, numberAttribute, '1.5')),
    message: `${numberAttribute} must be a number, got "1.5"`,
    withoutValues: `${numberAttribute} must be a number, got a string`,
    needs: [typed, 'create with a string attribute and a number attribute'],
  },
  {
    input: 'a relationship identifier without id',
    check: createBody(
      anyRelationship,
      exampleWith(anyRelationship, '/data/relationships', { zzPortal: { data: { type: 'Portal' } } }),
    ),
    message: '/data/relationships/zzPortal/data/id is required',
    needs: [anyRelationship, 'create whose document has relationships'],
  },
  {
    input: 'relationship data as a string',
    check: createBody(
      anyRelationship,
      exampleWith(anyRelationship, '/data/relationships', { zzPortal: { data: 'p-1' } }),
    ),
    message: '/data/relationships/zzPortal/data must be null, an object or an array, got "p-1"',
    withoutValues: '/data/relationships/zzPortal/data must be null, an object or an array, got a string',
    needs: [anyRelationship, 'create whose document has relationships'],
  },
  {
    input: 'a generic document with nothing in it',
    check: genericRequest({}),
    message: 'the document must be an object with data, errors or meta, got {}',
    withoutValues: 'the document must be an object with data, errors or meta, got an object',
  },
  {
    input: 'a generic document with data and errors',
    check: genericResponse(200, { data: null, errors: [] }),
    message: 'the document must be an object with data or errors, not both, got {"data":null,"errors":[]}',
    withoutValues: 'the document must be an object with data or errors, not both, got an object',
  },
  {
    input: 'a generic document that is an array',
    check: genericResponse(200, [1]),
    message: 'the document must be an object, got [1]',
    withoutValues: 'the document must be an object, got an array',
  },
];

describe('finding messages', () => {
  for (const c of cases) {
    if (c.needs !== undefined && c.needs[0] === undefined) {
      it.skip(`${c.input} (${noneLeft(c.needs[1])})`, () => undefined);
      continue;
    }
    it(`${c.input}: ${c.message}`, () => {
      expect(c.check({}).map((f) => f.message)).toEqual([c.message]);
    });
    it(`${c.input}, values left out`, () => {
      expect(c.check({ includeValues: false }).map((f) => f.message)).toEqual([c.withoutValues ?? c.message]);
    });
  }

  // The parser's reason differs between Node versions, so only its presence is pinned.
  itWith(firstCreate, CREATE)(
    "give the parser's reason for a body that is not JSON only when values are shown",
    (o) => {
      expect(createBody(o, '{"data":')({}).map((m) => m.message)).toEqual([
        expect.stringMatching(/^the request body is not well-formed JSON \(.+\)$/),
      ]);
      expect(createBody(o, '{"data":')({ includeValues: false }).map((m) => m.message)).toEqual([
        'the request body is not well-formed JSON',
      ]);
    },
  );
});

/** What a message showed of a value when it wrote the value out whole and cut it. */
function shownWhole(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? scalarText(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const LONG = 'x'.repeat(100);
const SHOWN_VALUES: [string, unknown][] = [
  ['a short object', { a: 1, b: [true, null, 'c'] }],
  ['a long string', LONG],
  ['a string whose surrogate pair is cut at the 80th character', `${'a'.repeat(77)}😀😀😀`],
  ['a string whose surrogate pair is cut right after the 77th character', `${'a'.repeat(76)}😀${'b'.repeat(10)}`],
  ['a lone surrogate', `${'a'.repeat(70)}\ud800${'b'.repeat(20)}`],
  ['characters escaped in JSON', `"\\\n\u0001${'q'.repeat(90)}`],
  ['a list of objects longer than shown', Array.from({ length: 100 }, (_, i) => ({ id: i, label: `Label ${i}` }))],
  ['undefined members and elements', { a: undefined, b: [undefined, 1], c: 'd' }],
  ['numbers JSON writes otherwise', [-0, Number.NaN, Infinity, 1e21, 0.1]],
  ['an object without a prototype', Object.assign(Object.create(null) as object, { k: LONG })],
  ['a value with toJSON', { when: new Date(0), then: LONG }],
  ['an empty array and object', [[], {}]],
];

/** Values JSON.stringify cannot write: named by their type, or shown from their beginning. */
const UNWRITABLE_VALUES: [string, unknown, string][] = [
  ['a bigint', 10n, 'a bigint'],
  [
    'a cycle',
    (() => {
      const o: Record<string, unknown> = { n: 1 };
      o.self = o;
      return o;
    })(),
    'an object',
  ],
  [
    'nesting deeper than JSON.stringify recurses',
    JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)),
    `${'['.repeat(77)}...`,
  ],
];

describe('a value in a message: its JSON up to 80 characters, else its first 77 and "..."', () => {
  for (const [name, value] of SHOWN_VALUES) {
    it(`${name}: as if written out whole and cut`, () => {
      expect(showValue(value)).toBe(shownWhole(value));
    });
  }

  for (const [name, value, shown] of UNWRITABLE_VALUES) {
    it(`${name}: ${shown}`, () => {
      expect(showValue(value)).toBe(shown);
    });
  }

  it('any JSON value, strings of any UTF-16 code units included', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc.string({ unit: fc.constantFrom('a', '\ud83d', '\ude00', '"', '\n'), maxLength: 120 }),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => showValue(value) === shownWhole(value)),
      { numRuns: 2000, seed: 19 },
    );
  });
});
