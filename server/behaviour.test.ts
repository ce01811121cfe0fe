// The reference server's documented choices where the specification is open, and the order in
// which it answers: credentials → route → method → size → media type → validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyMembers,
  deprecatedMetaMembers,
  includeNames,
  listItemAttributes,
  MEDIA_TYPE,
  mergeAllOf,
  PAGE_PARAMETER,
  recordMembers,
  serverAttributes,
  servedFilterMember,
  withoutValueAt,
  withValueAt,
  type Operation,
} from '../contract/index.ts';
import { contract, create, creates, describeWith, itWith, list, listQuery, lists } from '../contract/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  REFERENCE_FIXTURES,
  SEED_SIZES,
  startReferenceServer,
  type StartedReferenceServer,
} from './index.ts';
import { keep, MAX_KEPT_RESOURCES } from './create.ts';
import { seededFilter } from './seed.ts';
import {
  completeDocumentOf,
  freeStringAttribute,
  serverFindings,
  send,
  type Exchanged,
  type Probe,
} from './test-support.ts';

const SESSION = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
const SESSION_MEDIA_TYPE = { ...SESSION, 'content-type': MEDIA_TYPE };
const OBJECT_ID = /^[0-9a-f]{24}$/;
const UNKNOWN_ID = 'ffffffffffffffffffffffff';
/** The attribute whose values the reference server keeps unique per operation (a documented choice). */
const UNIQUE_ATTRIBUTE = 'customId';

/** The members of an answer's resource these tests read. */
interface ResourceJson {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data: { id: string } }>;
}
/** A list's answer. */
interface ListJson {
  data: ResourceJson[];
  meta: Record<string, number>;
}
/** An error answer's members these tests read. */
interface ErrorsJson {
  errors: { source: { pointer?: string; parameter?: string } }[];
}
/** The resource of a document sent to create one, changed by the tests. */
interface SentResource {
  attributes: Record<string, unknown>;
  relationships?: unknown;
}

const get = (path: string, headers: Record<string, string> = SESSION): Probe => ({ method: 'GET', path, headers });
const post = (
  operation: Operation,
  document: unknown,
  headers: Record<string, string> = SESSION_MEDIA_TYPE,
): Probe => ({ method: 'POST', path: operation.pathTemplate, headers, body: JSON.stringify(document) });
const raw = (operation: Operation, text: string | Buffer, headers: Record<string, string> = SESSION_MEDIA_TYPE) => ({
  method: 'POST',
  path: operation.pathTemplate,
  headers,
  body: text,
});
const documentOf = (operation: Operation) => completeDocumentOf(operation.operationId);
/** The value at a JSON pointer of a document, undefined where it has none. */
const valueAt = (document: unknown, pointer: string): unknown =>
  pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token], document);

/** A list's smallest query with the member it is filtered on set to `value`, and more query parts. */
function listPath(operation: Operation, value?: string, ...more: string[]): string {
  const member = servedFilterMember(operation);
  const parts = listQuery(operation)
    .split('&')
    .filter((part) => part !== '')
    .map((part) =>
      member !== undefined && value !== undefined && part.startsWith(`filter[${member.name}]=`)
        ? `filter[${member.name}]=${encodeURIComponent(value)}`
        : part,
    );
  return `${operation.pathTemplate}?${[...parts, ...more].join('&')}`;
}

/** The items seeded for the filter value at `index`: the sizes in turn. */
const seedSize = (index: number) => SEED_SIZES[index % SEED_SIZES.length];
/** A list seeded per allowed value of the member it is filtered on, with two values at least. */
const listSeededPerValue = lists.find((o) => servedFilterMember(o) !== undefined && seededFilter(o)!.values.length > 1);
const SEEDED = 'list filtered on a member with two allowed values or more';
/** A list whose `include` names are not shown, so that any name is taken. */
const listOfAnyInclude = lists.find(
  (o) => o.parameters.some((p) => p.name === 'include') && includeNames(o).length === 0,
);
const listWithPageRoles = lists.find((o) => o.roles.pageFractional && o.roles.pageNotANumber);

const attributesRequired = (o: Operation) => bodyMembers(o).some((m) => m.pointer === '/data/attributes' && m.required);
const someAttributeRequired = (o: Operation) =>
  bodyMembers(o).some((m) => m.pointer.startsWith('/data/attributes/') && m.required);
const relationshipsRequired = (o: Operation) =>
  bodyMembers(o).some((m) => m.pointer === '/data/relationships' && m.required);
/** Whether a create takes relationships of names its contract does not show. */
const takesAnyRelationship = (o: Operation) =>
  bodyMembers(o).some((m) => m.pointer === '/data/relationships' && m.namesNotShown);
const createWithAnyRelationship = creates.find(takesAnyRelationship);
const createWithServerAttributes = creates.find((o) => serverAttributes(o).some((m) => m.required));
const createWithUniqueAttribute = creates.find((o) =>
  bodyMembers(o).some((m) => m.pointer === `/data/attributes/${UNIQUE_ATTRIBUTE}`),
);
/** A record the reference server holds from its start, when the contract names a kind of record. */
const [heldRecord] = Object.values(REFERENCE_FIXTURES);
const createWithStringAttribute = creates.find((o) => freeStringAttribute(o) !== undefined);

/** The attributes enumerated in a list's items (an enum, or an array of one), beside the member it is filtered on. */
function enumeratedAttributes(operation: Operation, filteredOn: string): { name: string; values: unknown[] }[] {
  return listItemAttributes(operation).flatMap(({ name, schema }) => {
    const items = schema.items === undefined ? undefined : mergeAllOf(schema.items as Record<string, unknown>);
    const values = (schema.enum ?? items?.enum) as unknown[] | undefined;
    return values === undefined || name === filteredOn ? [] : [{ name, values }];
  });
}

describe('the reference server', () => {
  let server: StartedReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());
  const exchange = (probe: Probe) => send(server.baseUrl, probe);
  const listOf = (exchanged: Exchanged) => exchanged.json as ListJson;
  const createdOf = (exchanged: Exchanged) => (exchanged.json as { data: ResourceJson }).data;
  const errorsOf = (exchanged: Exchanged) => (exchanged.json as ErrorsJson).errors;

  describe('answers in the order credentials → route → method → size → media type → validation', () => {
    const oversized = 'x'.repeat(1024 * 1024 + 1);
    type OrderCase = { title: string; probe: Probe; status: number; code: string };
    const anyPath: OrderCase[] = [
      {
        title: 'no credentials on an unknown path',
        probe: { method: 'GET', path: '/no-such-thing' },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'the forbidden credential on an unknown path',
        probe: get('/no-such-thing', { authorization: `Bearer r:${DEFAULT_CREDENTIALS.forbiddenToken}` }),
        status: 403,
        code: 'AUTH-403-FORBIDDEN',
      },
      { title: 'an unknown path', probe: get('/no-such-thing'), status: 404, code: 'not-found' },
      {
        title: 'a path outside the base path',
        probe: get(`/..${contract.operations[0].pathTemplate}`),
        status: 404,
        code: 'not-found',
      },
    ];
    const toCreate = (operation: Operation): OrderCase[] => [
      {
        title: 'no credentials with a method not served',
        probe: { method: 'DELETE', path: operation.pathTemplate },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'no credentials with an oversized body',
        probe: raw(operation, oversized, { 'content-type': MEDIA_TYPE }),
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'no credentials with another media type',
        probe: raw(operation, '{}', { 'content-type': 'text/plain' }),
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'a method not served, with an oversized body',
        probe: { ...raw(operation, oversized), method: 'PUT' },
        status: 405,
        code: 'method-not-allowed',
      },
      {
        title: 'an oversized body of another media type',
        probe: raw(operation, oversized, { ...SESSION, 'content-type': 'text/plain' }),
        status: 413,
        code: 'body-too-large',
      },
      {
        title: 'another media type with a malformed body',
        probe: raw(operation, '{"data":', { ...SESSION, 'content-type': 'text/plain' }),
        status: 415,
        code: 'unsupported-media-type',
      },
      {
        title: 'a body without Content-Type',
        probe: post(operation, documentOf(operation), SESSION),
        status: 415,
        code: 'unsupported-media-type',
      },
      {
        title: 'application/json',
        probe: post(operation, documentOf(operation), { ...SESSION, 'content-type': 'application/json' }),
        status: 415,
        code: 'unsupported-media-type',
      },
    ];
    const itAnswers = (c: OrderCase) =>
      it(`${c.title}: ${c.status} ${c.code}`, async () => {
        const exchanged = await exchange(c.probe);
        expect(exchanged.response.status).toBe(c.status);
        expect(exchanged.response.headers['content-type']).toBe(MEDIA_TYPE);
        expect(errorsOf(exchanged)[0]).toMatchObject({ status: String(c.status), code: c.code });
      });
    anyPath.forEach(itAnswers);
    describeWith(create, 'create')('sent to a create', (operation) => toCreate(operation).forEach(itAnswers));

    itWith(list, 'list')('names the allowed methods on 405 and challenges on 401', async (operation) => {
      const served = contract.operations.filter((o) => o.pathTemplate === operation.pathTemplate).map((o) => o.method);
      const wrongMethod = await exchange({ method: 'DELETE', path: operation.pathTemplate, headers: SESSION });
      expect(String(wrongMethod.response.headers.allow).split(', ').sort()).toEqual([...served, 'HEAD'].sort());
      const unauthenticated = await exchange({ method: 'GET', path: operation.pathTemplate });
      expect(unauthenticated.response.headers['www-authenticate']).toBe('Bearer realm="v3"');
    });

    itWith(create, 'create')(
      'answers 413 and reads the rest of the body away, so the connection stays usable',
      async (operation) => {
        const exchanged = await exchange(raw(operation, oversized));
        expect(exchanged.response.status).toBe(413);
        expect(exchanged.response.headers.connection).not.toBe('close');
      },
    );

    itWith(list, 'list')('serves HEAD like GET without a body', async (operation) => {
      const exchanged = await exchange({ ...get(listPath(operation)), method: 'HEAD' });
      expect(exchanged.response.status).toBe(200);
      expect(exchanged.response.bodyText).toBe('');
      expect(Number(exchanged.response.headers['content-length'])).toBeGreaterThan(0);
    });
  });

  describeWith(listSeededPerValue, SEEDED)('serves the seed', (operation) => {
    const { name, values } = seededFilter(operation)!;
    const enumerated = enumeratedAttributes(operation, name);
    values.forEach((value, index) => {
      const size = seedSize(index);
      it(`${size} items of ${name} ${value}, using every value of their enumerated attributes, with ObjectId ids`, async () => {
        const page = listOf(
          await exchange(get(listPath(operation, value, `page[limit]=${MAX_PAGE_LIMIT}`, 'page[offset]=0'))),
        );
        expect(page.meta.total).toBe(size);
        expect(page.data).toHaveLength(size);
        for (const attribute of enumerated.filter((a) => a.values.length <= size))
          expect(new Set(page.data.flatMap((item) => item.attributes[attribute.name] ?? [])), attribute.name).toEqual(
            new Set(attribute.values),
          );
        for (const item of page.data) expect(item.id).toMatch(OBJECT_ID);
      });
    });

    it('has different sizes per filter value, and the same items on every server', async () => {
      expect(new Set(SEED_SIZES).size).toBe(SEED_SIZES.length);
      const other = await startReferenceServer();
      try {
        const here = await exchange(get(listPath(operation, values[1])));
        const there = await send(other.baseUrl, get(listPath(operation, values[1])));
        expect(there.response.bodyText).toBe(here.response.bodyText);
      } finally {
        await other.close();
      }
    });
  });

  describeWith(listSeededPerValue, SEEDED)('lists pages per its documented choices', (operation) => {
    const { values } = seededFilter(operation)!;
    const [first, second] = [seedSize(0), seedSize(1)];
    const lastOffset = 10 * Math.floor((first - 1) / 10);
    const cases: Array<{
      title: string;
      value: string;
      page?: string[];
      meta: Record<string, number>;
      length: number;
    }> = [
      {
        title: `no page: limit ${DEFAULT_PAGE_LIMIT}, offset 0`,
        value: values[0],
        meta: {
          limit: DEFAULT_PAGE_LIMIT,
          offset: 0,
          page: 1,
          pages: Math.ceil(first / DEFAULT_PAGE_LIMIT),
          total: first,
        },
        length: Math.min(DEFAULT_PAGE_LIMIT, first),
      },
      {
        title: `a limit above ${MAX_PAGE_LIMIT} is capped and reported`,
        value: values[0],
        page: [`page[limit]=${MAX_PAGE_LIMIT * 5}`, 'page[offset]=0'],
        meta: { limit: MAX_PAGE_LIMIT, pages: Math.ceil(first / MAX_PAGE_LIMIT) },
        length: Math.min(first, MAX_PAGE_LIMIT),
      },
      {
        title: 'the last, partial page',
        value: values[0],
        page: ['page[limit]=10', `page[offset]=${lastOffset}`],
        meta: { page: lastOffset / 10 + 1, offset: lastOffset },
        length: first - lastOffset,
      },
      {
        title: 'an offset between page boundaries',
        value: values[1],
        page: ['page[limit]=5', 'page[offset]=7'],
        meta: { page: 2, offset: 7, pages: Math.ceil(second / 5) },
        length: Math.min(5, second - 7),
      },
      {
        title: 'an offset past the end',
        value: values[1],
        page: ['page[limit]=5', `page[offset]=${second + 37}`],
        meta: { page: Math.floor((second + 37) / 5) + 1, offset: second + 37, total: second },
        length: 0,
      },
    ];
    for (const c of cases) {
      it(c.title, async () => {
        const page = listOf(await exchange(get(listPath(operation, c.value, ...(c.page ?? [])))));
        expect(page.meta).toMatchObject(c.meta);
        expect(page.data).toHaveLength(c.length);
      });
    }

    it('keeps the deprecated meta members equal to their replacements, the others to the page length', async () => {
      const { meta, data } = listOf(
        await exchange(get(listPath(operation, values[0], 'page[limit]=4', `page[offset]=${first - 3}`))),
      );
      const everyItem = values.reduce((total, _, index) => total + seedSize(index), 0);
      const expected = Object.fromEntries(
        deprecatedMetaMembers(operation).map((m) => [m.name, m.replacement ? meta[m.replacement] : data.length]),
      );
      expect(meta).toMatchObject({ ...expected, totalWithoutFilters: everyItem });
    });
  });

  itWith(listOfAnyInclude, 'list whose include names are not shown')(
    'accepts any include name and omits included',
    async (operation) => {
      const exchanged = await exchange(get(listPath(operation, undefined, 'include=owner,anything')));
      expect(exchanged.response.status).toBe(200);
      expect(listOf(exchanged)).not.toHaveProperty('included');
    },
  );

  describeWith(listWithPageRoles, 'list naming a page not a whole number')(
    'answers a page member that is not a whole number 400 naming it',
    (operation) => {
      const { pageFractional, pageNotANumber } = operation.roles;
      const [limit, offset] = [`${PAGE_PARAMETER}[limit]`, `${PAGE_PARAMETER}[offset]`];
      const wholeNumbers = [
        { page: [`${limit}=2.5`, `${offset}=0`], code: pageFractional, parameter: limit },
        { page: [`${limit}=10`, `${offset}=0.5`], code: pageFractional, parameter: offset },
        { page: [`${limit}=10`, `${offset}=1e400`], code: pageNotANumber, parameter: offset },
        // Past 2^53 - 1 a number reads rounded: refused rather than echoed in meta.offset as another number.
        { page: [`${limit}=10`, `${offset}=9007199254740993`], code: pageFractional, parameter: offset },
        { page: [`${limit}=1e300`, `${offset}=0`], code: pageFractional, parameter: limit },
      ];
      for (const c of wholeNumbers) {
        it(c.page.join('&'), async () => {
          const exchanged = await exchange(get(listPath(operation, undefined, ...c.page)));
          expect(exchanged.response.status).toBe(400);
          expect(errorsOf(exchanged)[0]).toMatchObject({ code: c.code, source: { parameter: c.parameter } });
          expect(serverFindings(exchanged)).toEqual([]);
        });
      }
    },
  );

  // The suite's cases (run by suite-cases.test.ts) send one input of each kind; these are further
  // inputs of those kinds the reference server must answer the same way.
  describe('answers inputs beyond those the suite sends as the suite expects', () => {
    const { sessionToken, pat, forbiddenToken } = DEFAULT_CREDENTIALS;
    const legacyHeader = contract.legacyHeader;
    type BeyondCase = { title: string; probe: Probe; status: number };
    const toList = (operation: Operation): BeyondCase[] => {
      const member = servedFilterMember(operation);
      const filter = member === undefined ? [] : [`filter[${member.name}]=bogus`];
      const repeated =
        member === undefined ? listQuery(operation).split('&')[0] : `filter[${member.name}]=${member.values.at(-1)}`;
      return [
        {
          title: 'the personal access token in the legacy header',
          probe: get(listPath(operation), { [legacyHeader]: pat }),
          status: 401,
        },
        {
          title: 'the forbidden token under the p: prefix',
          probe: get(listPath(operation), { authorization: `Bearer p:${forbiddenToken}` }),
          status: 403,
        },
        {
          title: 'a malformed Authorization and no filter',
          probe: get(operation.pathTemplate, { authorization: `Bearer ${sessionToken}` }),
          status: 401,
        },
        {
          title: 'no credentials and an unknown filter value',
          probe: get(`${operation.pathTemplate}?${filter.join('&')}`, {}),
          status: 401,
        },
        {
          title: 'an unknown token and page[limit]=0',
          probe: get(listPath(operation, undefined, 'page[limit]=0', 'page[offset]=0'), {
            authorization: 'Bearer r:unknown-token',
          }),
          status: 401,
        },
        {
          title: 'a filter member given twice',
          probe: get(listPath(operation, undefined, repeated)),
          status: 400,
        },
        { title: 'page as a plain value', probe: get(listPath(operation, undefined, 'page=5')), status: 400 },
      ];
    };
    const toCreate = (operation: Operation): BeyondCase[] => [
      {
        title: 'the session token under p: and a wrong data.type',
        probe: post(
          operation,
          { data: { type: `Other${operation.resourceType}` } },
          {
            authorization: `Bearer p:${sessionToken}`,
            'content-type': MEDIA_TYPE,
          },
        ),
        status: 401,
      },
      {
        title: 'no credentials and malformed JSON',
        probe: raw(operation, '{"data":', { 'content-type': MEDIA_TYPE }),
        status: 401,
      },
      {
        title: 'an unknown personal access token and data 5',
        probe: raw(operation, '{"data": 5}', { authorization: 'Bearer p:unknown-token', 'content-type': MEDIA_TYPE }),
        status: 401,
      },
      ...['{data: 1}', 'nul', '{"data":{}}}'].map((text) => ({
        title: `malformed JSON ${text}`,
        probe: raw(operation, text),
        status: 400,
      })),
      {
        title: 'a body that is not UTF-8',
        probe: raw(operation, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
        status: 400,
      },
      {
        title: 'an attribute the contract does not name',
        probe: post(operation, withValueAt(documentOf(operation), '/data/attributes/notNamedByTheContract', 'blue')),
        status: 201,
      },
      ...(someAttributeRequired(operation)
        ? []
        : [
            {
              title: 'empty attributes',
              probe: post(operation, withValueAt(documentOf(operation), '/data/attributes', {})),
              status: 201,
            },
          ]),
      ...(attributesRequired(operation)
        ? []
        : [
            {
              title: 'no attributes',
              probe: post(operation, withoutValueAt(documentOf(operation), '/data/attributes')),
              status: 201,
            },
          ]),
      ...(attributesRequired(operation) || relationshipsRequired(operation)
        ? []
        : [
            { title: 'its type only', probe: post(operation, { data: { type: operation.resourceType } }), status: 201 },
          ]),
      ...(relationshipsRequired(operation)
        ? []
        : [
            {
              title: 'no relationships',
              probe: post(operation, withoutValueAt(documentOf(operation), '/data/relationships')),
              status: 201,
            },
          ]),
      ...(takesAnyRelationship(operation) && heldRecord !== undefined
        ? [
            {
              title: 'a relationship the contract does not name, naming a record that exists',
              probe: post(
                operation,
                withValueAt(documentOf(operation), '/data/relationships/group', {
                  data: [{ type: 'UserGroup', id: heldRecord }],
                }),
              ),
              status: 201,
            },
          ]
        : []),
    ];
    const itAnswers = (c: BeyondCase) =>
      it(`${c.title}: ${c.status}, and the contract finds nothing`, async () => {
        const exchanged = await exchange(c.probe);
        expect(exchanged.response.status).toBe(c.status);
        expect(serverFindings(exchanged)).toEqual([]);
      });
    describeWith(list, 'list')('to a list', (operation) => toList(operation).forEach(itAnswers));
    for (const operation of creates)
      describe(`to ${operation.operationId}`, () => toCreate(operation).forEach(itAnswers));
  });

  describe('creates resources per its documented choices', () => {
    itWith(createWithServerAttributes, 'create whose answer carries attributes only the server sets')(
      'answers 201 with a new ObjectId, the attributes as sent plus those only it sets, and the relationships as sent',
      async (operation) => {
        const document = documentOf(operation);
        const sent = document.data as SentResource;
        const relationships = takesAnyRelationship(operation) ? { group: { data: null } } : sent.relationships;
        sent.relationships = relationships;
        const created = createdOf(await exchange(post(operation, document)));
        expect(created.id).toMatch(OBJECT_ID);
        const setByServer = serverAttributes(operation).filter((m) => m.required);
        for (const m of setByServer) expect(m.types).toContain(typeof created.attributes[m.name]);
        expect(created).toEqual({
          id: created.id,
          type: operation.resourceType,
          attributes: {
            ...sent.attributes,
            ...Object.fromEntries(setByServer.map((m) => [m.name, created.attributes[m.name]])),
          },
          relationships,
        });
      },
    );

    itWith(createWithServerAttributes, 'create whose answer carries attributes only the server sets')(
      'ignores an attribute only it sets sent by the client',
      async (operation) => {
        const setByServer = serverAttributes(operation).filter((m) => m.required);
        const plain = createdOf(await exchange(post(operation, documentOf(operation))));
        const document = documentOf(operation);
        for (const m of setByServer) (document.data as SentResource).attributes[m.name] = 'yes';
        const exchanged = await exchange(post(operation, document));
        expect(exchanged.response.status).toBe(201);
        for (const m of setByServer) expect(createdOf(exchanged).attributes[m.name]).toEqual(plain.attributes[m.name]);
      },
    );

    itWith(createWithUniqueAttribute, `create whose document has a ${UNIQUE_ATTRIBUTE}`)(
      `keeps what it created: a ${UNIQUE_ATTRIBUTE} used before is a 409 conflict pointing at it`,
      async (operation) => {
        const document = documentOf(operation);
        expect((await exchange(post(operation, document))).response.status).toBe(201);
        const again = await exchange(post(operation, document));
        expect(again.response.status).toBe(409);
        expect(errorsOf(again)[0]).toMatchObject({
          status: '409',
          code: 'duplicate-custom-id',
          source: { pointer: `/data/attributes/${UNIQUE_ATTRIBUTE}` },
        });
        expect(serverFindings(again)).toEqual([]);
      },
    );

    for (const operation of creates) {
      for (const { pointer, kind } of recordMembers([operation])) {
        it(`answers ${operation.operationId} with a ${kind} that it holds no record of 404, pointing at it`, async () => {
          const exchanged = await exchange(post(operation, withValueAt(documentOf(operation), pointer, UNKNOWN_ID)));
          expect(exchanged.response.status).toBe(404);
          expect(errorsOf(exchanged)[0]).toMatchObject({
            status: '404',
            code: 'record-not-found',
            source: { pointer },
          });
          expect(serverFindings(exchanged)).toEqual([]);
        });
      }
    }

    itWith(createWithAnyRelationship, 'create taking relationships of names not shown')(
      'keeps what it creates: a relationship naming a resource it created is served, one naming an id it holds no record of is 404, pointing at it',
      async (operation) => {
        const earlier = createdOf(await exchange(post(create!, documentOf(create!))));
        const naming = (id: string) =>
          post(
            operation,
            withValueAt(documentOf(operation), '/data/relationships/marks', { data: [{ type: earlier.type, id }] }),
          );
        expect((await exchange(naming(earlier.id))).response.status).toBe(201);
        const unknown = await exchange(naming(UNKNOWN_ID));
        expect(unknown.response.status).toBe(404);
        expect(errorsOf(unknown)[0]).toMatchObject({
          status: '404',
          code: 'record-not-found',
          source: { pointer: '/data/relationships/marks/data/0/id' },
        });
        expect(serverFindings(unknown)).toEqual([]);
      },
    );

    it('keeps at most a bounded number of records, the oldest going first', () => {
      const kept = new Map<string, number>();
      for (const [index, key] of ['a', 'b', 'c', 'b', 'd'].entries()) keep(kept, key, index, 3);
      expect([...kept.keys()]).toEqual(['c', 'b', 'd']);
      expect(MAX_KEPT_RESOURCES).toBeGreaterThan(0);
    });

    for (const operation of creates.filter((o) => recordMembers([o]).length > 0)) {
      it(`uses the fixtures as the records that exist (${operation.operationId})`, async () => {
        const created = await exchange(post(operation, documentOf(operation)));
        for (const { pointer, kind } of recordMembers([operation]))
          expect(valueAt(created.json, pointer), pointer).toBe(REFERENCE_FIXTURES[kind]);
      });
    }

    itWith(createWithStringAttribute, 'create whose document has a string attribute')(
      'answers a data.type of another resource 409, and 400 when something else is wrong too',
      async (operation) => {
        const otherType = withValueAt(documentOf(operation), '/data/type', `Other${operation.resourceType}`);
        const conflict = await exchange(post(operation, otherType));
        expect(conflict.response.status).toBe(409);
        const { pointer } = freeStringAttribute(operation)!;
        const invalid = await exchange(post(operation, withValueAt(otherType, pointer, 5)));
        expect(invalid.response.status).toBe(400);
        expect(
          errorsOf(invalid)
            .map((e) => e.source.pointer)
            .sort(),
        ).toEqual([pointer, '/data/type'].sort());
      },
    );
  });
});
