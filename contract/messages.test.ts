// The sentences findings carry: what was expected, what came and where, as a person would write
// them, never an ajv dump. Values stay out of them when `includeValues` is false.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  judgeExchange,
  scalarText,
  showValue,
  validateGenericRequest,
  validateGenericResponse,
  validateRequest,
  validateResponse,
  type Finding,
  type ValidateOptions,
} from './index.ts';
import { contract, createAttributeConfig, createHighlight, credentials, jsonApi, list } from './test-support.ts';

const userId = '60a7c0f2e4b0c83d2f9a1b23';

type Check = (options: ValidateOptions) => Finding[];

const query =
  (q: string): Check =>
  (options) =>
    validateRequest(
      contract,
      list,
      { method: 'GET', path: `/v3/notification-groups?${q}`, headers: credentials },
      options,
    );
const createBody =
  (body: unknown, headers: Record<string, string> = { ...credentials, ...jsonApi }): Check =>
  (options) =>
    validateRequest(
      contract,
      createHighlight,
      {
        method: 'POST',
        path: '/v3/highlights',
        headers,
        bodyText: typeof body === 'string' ? body : JSON.stringify(body),
      },
      options,
    );
const configBody =
  (body: unknown): Check =>
  (options) =>
    validateRequest(
      contract,
      createAttributeConfig,
      {
        method: 'POST',
        path: '/v3/attribute-configs',
        headers: { ...credentials, ...jsonApi },
        bodyText: JSON.stringify(body),
      },
      options,
    );
const listResponse =
  (status: number, body: unknown, headers: Record<string, string> = jsonApi): Check =>
  (options) =>
    validateResponse(contract, list, { status, headers, bodyText: JSON.stringify(body) }, options);
/** The findings of a whole list exchange on the server's side, for what only the exchange checks say. */
const listExchange =
  (status: number, body: unknown): Check =>
  (options) =>
    judgeExchange(
      contract,
      { method: 'GET', path: '/v3/notification-groups?filter[type]=portal', headers: credentials },
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

const group = {
  id: '5f8d0d55b54764421b7156c1',
  type: 'NotificationGroup',
  attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'Exams' },
};
const highlight = (data: Record<string, unknown>) => ({ data: { type: 'Highlight', ...data } });

interface MessageCase {
  input: string;
  check: Check;
  /** The message with values shown (the default). */
  message: string;
  /** The message with `includeValues: false`, for a message that shows a value. */
  withoutValues?: string;
}

const cases: MessageCase[] = [
  {
    input: 'page[limit]=0',
    check: query('filter[type]=user&page[limit]=0&page[offset]=0'),
    message: 'page[limit] must be a number ≥ 1, got 0',
    withoutValues: 'page[limit] must be a number ≥ 1, got an integer',
  },
  {
    input: 'page[offset]=-2',
    check: query('filter[type]=user&page[limit]=5&page[offset]=-2'),
    message: 'page[offset] must be a number ≥ 0, got -2',
    withoutValues: 'page[offset] must be a number ≥ 0, got an integer',
  },
  {
    input: 'page[limit]=abc',
    check: query('filter[type]=user&page[limit]=abc&page[offset]=0'),
    message: 'page[limit] must be a number, got "abc"',
    withoutValues: 'page[limit] must be a number, got a string',
  },
  {
    input: 'page[limit] without page[offset]',
    check: query('filter[type]=user&page[limit]=5'),
    message: 'page[offset] is required',
  },
  { input: 'no filter', check: query(''), message: 'filter[type] is required' },
  {
    input: 'filter[type]=group',
    check: query('filter[type]=group'),
    message: 'filter[type] must be one of "portal", "user", got "group"',
    withoutValues: 'filter[type] must be one of "portal", "user", got a string',
  },
  {
    input: 'filter[type] twice',
    check: query('filter[type]=portal&filter[type]=user'),
    message: 'filter[type] must be one of "portal", "user", got ["portal","user"]',
    withoutValues: 'filter[type] must be one of "portal", "user", got an array',
  },
  {
    input: 'a bare filter',
    check: query('filter=portal'),
    message: 'filter must be an object, got "portal"',
    withoutValues: 'filter must be an object, got a string',
  },
  {
    input: 'include with a member',
    check: query('filter[type]=user&include[owner]=1'),
    message: 'include must be an array, got {"owner":"1"}',
    withoutValues: 'include must be an array, got an object',
  },
  { input: 'an empty create document', check: createBody({}), message: '/data is required' },
  {
    input: 'a create document that is an array',
    check: createBody([]),
    message: 'the document must be an object, got []',
    withoutValues: 'the document must be an object, got an empty array',
  },
  {
    input: 'data.type of another resource',
    check: createBody({ data: { type: 'Note' } }),
    message: '/data/type must be "Highlight", got "Note"',
    withoutValues: '/data/type must be "Highlight", got a string',
  },
  {
    input: 'data.type as a number',
    check: createBody({ data: { type: 7 } }),
    message: '/data/type must be "Highlight", got 7',
    withoutValues: '/data/type must be "Highlight", got an integer',
  },
  {
    input: 'an owner of another type',
    check: createBody(highlight({ relationships: { owner: { data: { id: userId, type: 'Admin' } } } })),
    message: '/data/relationships/owner/data/type must be "User", got "Admin"',
    withoutValues: '/data/relationships/owner/data/type must be "User", got a string',
  },
  {
    input: 'a color as a number',
    check: createBody(highlight({ attributes: { color: 16776960 } })),
    message: '/data/attributes/color must be a string, got 16776960',
    withoutValues: '/data/attributes/color must be a string, got an integer',
  },
  {
    input: 'a permission as a fraction string',
    check: configBody({ data: { type: 'AttributeConfig', attributes: { editPermission: '1.5' } } }),
    message: '/data/attributes/editPermission must be a number, got "1.5"',
    withoutValues: '/data/attributes/editPermission must be a number, got a string',
  },
  {
    input: 'a relationship identifier without id',
    check: configBody({
      data: { type: 'AttributeConfig', attributes: {}, relationships: { portal: { data: { type: 'Portal' } } } },
    }),
    message: '/data/relationships/portal/data/id is required',
  },
  {
    input: 'relationship data as a string',
    check: configBody({
      data: { type: 'AttributeConfig', attributes: {}, relationships: { portal: { data: 'p-1' } } },
    }),
    message: '/data/relationships/portal/data must be null, an object or an array, got "p-1"',
    withoutValues: '/data/relationships/portal/data must be null, an object or an array, got a string',
  },
  {
    input: 'a request without credentials',
    check: createBody(highlight({}), jsonApi),
    message:
      'no credentials: expected Authorization: Bearer r:<session token> or p:<personal access token>, or X-Svc-Session-Token',
  },
  {
    input: 'a Basic Authorization header',
    check: createBody(highlight({}), { authorization: 'Basic dXNlcjpwYXNz', ...jsonApi }),
    message: 'malformed credentials: Authorization is not "Bearer <prefix>:<token>"',
  },
  {
    input: 'a Bearer value without prefix',
    check: createBody(highlight({}), { authorization: 'Bearer token', ...jsonApi }),
    message: 'malformed credentials: Bearer value has no r: or p: prefix',
  },
  {
    input: 'a body sent as application/json',
    check: createBody(highlight({}), { ...credentials, 'content-type': 'application/json; charset=utf-8' }),
    message: 'request Content-Type must be application/vnd.api+json, got application/json',
  },
  {
    input: 'a group with a groupId outside the nine',
    check: listResponse(200, { data: [{ ...group, attributes: { ...group.attributes, groupId: 'News' } }] }),
    message:
      '/data/0/attributes/groupId must be one of "AssignmentAdmin", "Assignments", "Exams", "ExamResults", "ExamAdmin", "Products", "SpacedLearning", "Flags", "System", got "News"',
    withoutValues:
      '/data/0/attributes/groupId must be one of "AssignmentAdmin", "Assignments", "Exams", "ExamResults", "ExamAdmin", "Products", "SpacedLearning", "Flags", "System", got a string',
  },
  {
    input: 'meta.total as a fraction',
    check: listResponse(200, { data: [], meta: { total: 1.5, pages: 1, page: 1, offset: 0, limit: 10 } }),
    message: '/meta/total must be an integer, got 1.5',
    withoutValues: '/meta/total must be an integer, got a number',
  },
  {
    input: 'a group id that is not an ObjectId',
    check: listResponse(200, { data: [{ ...group, id: 'exams' }] }),
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
    message: 'status 404 is not listed for listNotificationGroups (listed: 200, 400, 401, 403)',
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
    it(`${c.input}: ${c.message}`, () => {
      expect(c.check({}).map((f) => f.message)).toEqual([c.message]);
    });
    it(`${c.input}, values left out`, () => {
      expect(c.check({ includeValues: false }).map((f) => f.message)).toEqual([c.withoutValues ?? c.message]);
    });
  }

  // The parser's reason differs between Node versions, so only its presence is pinned.
  it("give the parser's reason for a body that is not JSON only when values are shown", () => {
    expect(createBody('{"data":')({}).map((f) => f.message)).toEqual([
      expect.stringMatching(/^the request body is not well-formed JSON \(.+\)$/),
    ]);
    expect(createBody('{"data":')({ includeValues: false }).map((f) => f.message)).toEqual([
      'the request body is not well-formed JSON',
    ]);
  });
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
