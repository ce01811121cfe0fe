// The reference server's documented choices where the specification is open, and the order in
// which it answers: credentials → route → method → size → media type → validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, MEDIA_TYPE, withoutValueAt, withValueAt } from '../contract/index.ts';
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
import { completeDocumentOf, serverFindings, send, type Exchanged, type Probe } from './test-support.ts';

const SESSION = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
const SESSION_MEDIA_TYPE = { ...SESSION, 'content-type': MEDIA_TYPE };
const OBJECT_ID = /^[0-9a-f]{24}$/;

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

const list = (query: string): Probe => ({ method: 'GET', path: `/notification-groups${query}`, headers: SESSION });
const create = (path: string, document: unknown, headers: Record<string, string> = SESSION_MEDIA_TYPE): Probe => ({
  method: 'POST',
  path,
  headers,
  body: JSON.stringify(document),
});

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
    const cases: Array<{ title: string; probe: Probe; status: number; code: string }> = [
      {
        title: 'no credentials on an unknown path',
        probe: { method: 'GET', path: '/no-such-thing' },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'no credentials with a method not served',
        probe: { method: 'DELETE', path: '/highlights' },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'no credentials with an oversized body',
        probe: { method: 'POST', path: '/highlights', headers: { 'content-type': MEDIA_TYPE }, body: oversized },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'no credentials with another media type',
        probe: { method: 'POST', path: '/highlights', headers: { 'content-type': 'text/plain' }, body: '{}' },
        status: 401,
        code: 'AUTH-401-NO-CREDENTIALS',
      },
      {
        title: 'the forbidden credential on an unknown path',
        probe: {
          method: 'GET',
          path: '/no-such-thing',
          headers: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.forbiddenToken}` },
        },
        status: 403,
        code: 'AUTH-403-FORBIDDEN',
      },
      {
        title: 'an unknown path',
        probe: { method: 'GET', path: '/no-such-thing', headers: SESSION },
        status: 404,
        code: 'not-found',
      },
      {
        title: 'a path outside the base path',
        probe: { method: 'GET', path: '/../notification-groups', headers: SESSION },
        status: 404,
        code: 'not-found',
      },
      {
        title: 'a method not served, with an oversized body',
        probe: { method: 'PUT', path: '/highlights', headers: SESSION_MEDIA_TYPE, body: oversized },
        status: 405,
        code: 'method-not-allowed',
      },
      {
        title: 'an oversized body of another media type',
        probe: {
          method: 'POST',
          path: '/highlights',
          headers: { ...SESSION, 'content-type': 'text/plain' },
          body: oversized,
        },
        status: 413,
        code: 'body-too-large',
      },
      {
        title: 'another media type with a malformed body',
        probe: {
          method: 'POST',
          path: '/highlights',
          headers: { ...SESSION, 'content-type': 'text/plain' },
          body: '{"data":',
        },
        status: 415,
        code: 'unsupported-media-type',
      },
      {
        title: 'a body without Content-Type',
        probe: {
          method: 'POST',
          path: '/attribute-configs',
          headers: SESSION,
          body: JSON.stringify(completeDocumentOf('createAttributeConfig')),
        },
        status: 415,
        code: 'unsupported-media-type',
      },
      {
        title: 'application/json',
        probe: create('/attribute-configs', completeDocumentOf('createAttributeConfig'), {
          ...SESSION,
          'content-type': 'application/json',
        }),
        status: 415,
        code: 'unsupported-media-type',
      },
    ];
    for (const c of cases) {
      it(`${c.title}: ${c.status} ${c.code}`, async () => {
        const exchanged = await exchange(c.probe);
        expect(exchanged.response.status).toBe(c.status);
        expect(exchanged.response.headers['content-type']).toBe(MEDIA_TYPE);
        expect(errorsOf(exchanged)[0]).toMatchObject({ status: String(c.status), code: c.code });
      });
    }

    it('names the allowed methods on 405 and challenges on 401', async () => {
      const wrongMethod = await exchange({ method: 'DELETE', path: '/notification-groups', headers: SESSION });
      expect(wrongMethod.response.headers.allow).toBe('GET, HEAD');
      const unauthenticated = await exchange({ method: 'GET', path: '/notification-groups' });
      expect(unauthenticated.response.headers['www-authenticate']).toBe('Bearer realm="v3"');
    });

    it('answers 413 and reads the rest of the body away, so the connection stays usable', async () => {
      const exchanged = await exchange({
        method: 'POST',
        path: '/highlights',
        headers: SESSION_MEDIA_TYPE,
        body: oversized,
      });
      expect(exchanged.response.status).toBe(413);
      expect(exchanged.response.headers.connection).not.toBe('close');
    });

    it('serves HEAD like GET without a body', async () => {
      const exchanged = await exchange({
        method: 'HEAD',
        path: '/notification-groups?filter[type]=portal',
        headers: SESSION,
      });
      expect(exchanged.response.status).toBe(200);
      expect(exchanged.response.bodyText).toBe('');
      expect(Number(exchanged.response.headers['content-length'])).toBeGreaterThan(0);
    });
  });

  describe('serves the seed', () => {
    const contract = loadContract();
    const attributeValues = (name: string): string[] => {
      const schema = (
        contract.schemas.NotificationGroupAttributes.properties as Record<
          string,
          { enum?: string[]; items?: { enum: string[] } }
        >
      )[name];
      return schema.enum ?? schema.items!.enum;
    };

    const filterTypes = (
      contract.operation('listNotificationGroups').parameters[0].schema.properties as { type: { enum: string[] } }
    ).type.enum;
    for (const [filterType, size] of filterTypes.map(
      (value, index) => [value, SEED_SIZES[index % SEED_SIZES.length]] as const,
    )) {
      it(`${size} ${filterType} NotificationGroups using every groupId and recipientType, with ObjectId ids`, async () => {
        const page = listOf(
          await exchange(list(`?filter[type]=${filterType}&page[limit]=${MAX_PAGE_LIMIT}&page[offset]=0`)),
        );
        expect(page.meta.total).toBe(size);
        expect(page.data).toHaveLength(size);
        expect(new Set(page.data.map((item) => item.attributes.groupId))).toEqual(new Set(attributeValues('groupId')));
        expect(new Set(page.data.flatMap((item) => item.attributes.recipientType ?? []))).toEqual(
          new Set(attributeValues('recipientType')),
        );
        for (const item of page.data) expect(item.id).toMatch(OBJECT_ID);
      });
    }

    it('has different sizes per filter type, and the same items on every server', async () => {
      expect(new Set(SEED_SIZES).size).toBe(SEED_SIZES.length);
      const other = await startReferenceServer();
      try {
        const here = await exchange(list('?filter[type]=user'));
        const there = await send(other.baseUrl, list('?filter[type]=user'));
        expect(there.response.bodyText).toBe(here.response.bodyText);
      } finally {
        await other.close();
      }
    });
  });

  describe('lists pages per its documented choices', () => {
    const cases: Array<{ title: string; query: string; meta: Record<string, number>; length: number }> = [
      {
        title: `no page: limit ${DEFAULT_PAGE_LIMIT}, offset 0`,
        query: '?filter[type]=portal',
        meta: { limit: DEFAULT_PAGE_LIMIT, offset: 0, page: 1, pages: 3, total: 27 },
        length: DEFAULT_PAGE_LIMIT,
      },
      {
        title: `a limit above ${MAX_PAGE_LIMIT} is capped and reported`,
        query: '?filter[type]=portal&page[limit]=500&page[offset]=0',
        meta: { limit: MAX_PAGE_LIMIT, pages: 1 },
        length: 27,
      },
      {
        title: 'the last, partial page',
        query: '?filter[type]=portal&page[limit]=10&page[offset]=20',
        meta: { page: 3, offset: 20 },
        length: 7,
      },
      {
        title: 'an offset between page boundaries',
        query: '?filter[type]=user&page[limit]=5&page[offset]=7',
        meta: { page: 2, offset: 7, pages: 3 },
        length: 5,
      },
      {
        title: 'an offset past the end',
        query: '?filter[type]=user&page[limit]=5&page[offset]=50',
        meta: { page: 11, offset: 50, total: 13 },
        length: 0,
      },
    ];
    for (const c of cases) {
      it(c.title, async () => {
        const page = listOf(await exchange(list(c.query)));
        expect(page.meta).toMatchObject(c.meta);
        expect(page.data).toHaveLength(c.length);
      });
    }

    it('keeps the deprecated meta members equal to their replacements, and resultCount to the page length', async () => {
      const { meta, data } = listOf(await exchange(list('?filter[type]=portal&page[limit]=4&page[offset]=24')));
      expect(meta).toMatchObject({
        totalCount: meta.total,
        totalPages: meta.pages,
        currentPage: meta.page,
        resultCount: data.length,
        totalWithoutFilters: 40,
      });
    });

    it('accepts any include name and omits included', async () => {
      const exchanged = await exchange(list('?filter[type]=portal&include=owner,anything'));
      expect(exchanged.response.status).toBe(200);
      expect(listOf(exchanged)).not.toHaveProperty('included');
    });

    const wholeNumbers = [
      { query: '&page[limit]=2.5&page[offset]=0', code: 'NG-PAGE-FRACTIONAL', parameter: 'page[limit]' },
      { query: '&page[limit]=10&page[offset]=0.5', code: 'NG-PAGE-FRACTIONAL', parameter: 'page[offset]' },
      { query: '&page[limit]=10&page[offset]=1e400', code: 'NG-PAGE-NOT-A-NUMBER', parameter: 'page[offset]' },
      // Past 2^53 - 1 a number reads rounded: refused rather than echoed in meta.offset as another number.
      { query: '&page[limit]=10&page[offset]=9007199254740993', code: 'NG-PAGE-FRACTIONAL', parameter: 'page[offset]' },
      { query: '&page[limit]=1e300&page[offset]=0', code: 'NG-PAGE-FRACTIONAL', parameter: 'page[limit]' },
    ];
    for (const c of wholeNumbers) {
      it(`answers a page member that is not a whole number 400 naming it: ${c.query}`, async () => {
        const exchanged = await exchange(list(`?filter[type]=portal${c.query}`));
        expect(exchanged.response.status).toBe(400);
        expect(errorsOf(exchanged)[0]).toMatchObject({ code: c.code, source: { parameter: c.parameter } });
        expect(serverFindings(exchanged)).toEqual([]);
      });
    }
  });

  // The suite's cases (run by suite-cases.test.ts) send one input of each kind; these are further
  // inputs of those kinds the reference server must answer the same way.
  describe('answers inputs beyond those the suite sends as the suite expects', () => {
    const { sessionToken, pat, forbiddenToken } = DEFAULT_CREDENTIALS;
    const legacyHeader = loadContract().legacyHeader;
    const raw = (path: string, text: string | Buffer, headers: Record<string, string> = SESSION_MEDIA_TYPE): Probe => ({
      method: 'POST',
      path,
      headers,
      body: text,
    });
    const cases: Array<{ title: string; probe: Probe; status: number }> = [
      {
        title: 'the personal access token in the legacy header',
        probe: { method: 'GET', path: '/notification-groups?filter[type]=portal', headers: { [legacyHeader]: pat } },
        status: 401,
      },
      {
        title: 'the forbidden token under the p: prefix',
        probe: {
          method: 'GET',
          path: '/notification-groups?filter[type]=portal',
          headers: { authorization: `Bearer p:${forbiddenToken}` },
        },
        status: 403,
      },
      {
        title: 'a malformed Authorization and no filter',
        probe: { method: 'GET', path: '/notification-groups', headers: { authorization: `Bearer ${sessionToken}` } },
        status: 401,
      },
      {
        title: 'the session token under p: and a wrong data.type',
        probe: raw('/attribute-configs', JSON.stringify({ data: { type: 'Highlight' } }), {
          authorization: `Bearer p:${sessionToken}`,
          'content-type': MEDIA_TYPE,
        }),
        status: 401,
      },
      {
        title: 'no credentials and malformed JSON',
        probe: raw('/attribute-configs', '{"data":', { 'content-type': MEDIA_TYPE }),
        status: 401,
      },
      {
        title: 'no credentials and an unknown filter value',
        probe: { method: 'GET', path: '/notification-groups?filter[type]=bogus' },
        status: 401,
      },
      {
        title: 'an unknown token and page[limit]=0',
        probe: {
          method: 'GET',
          path: '/notification-groups?filter[type]=portal&page[limit]=0&page[offset]=0',
          headers: { authorization: 'Bearer r:unknown-token' },
        },
        status: 401,
      },
      {
        title: 'an unknown personal access token and data 5',
        probe: raw('/highlights', '{"data": 5}', {
          authorization: 'Bearer p:unknown-token',
          'content-type': MEDIA_TYPE,
        }),
        status: 401,
      },
      { title: 'filter[type] given twice', probe: list('?filter[type]=portal&filter[type]=user'), status: 400 },
      { title: 'page as a plain value', probe: list('?filter[type]=portal&page=5'), status: 400 },
      ...['{data: 1}', 'nul', '{"data":{}}}'].map((text) => ({
        title: `malformed JSON ${text}`,
        probe: raw('/highlights', text),
        status: 400,
      })),
      {
        title: 'a body that is not UTF-8',
        probe: raw('/highlights', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
        status: 400,
      },
      {
        title: 'an AttributeConfig with empty attributes',
        probe: create('/attribute-configs', { data: { type: 'AttributeConfig', attributes: {} } }),
        status: 201,
      },
      {
        title: 'a Highlight of its type only',
        probe: create('/highlights', { data: { type: 'Highlight' } }),
        status: 201,
      },
      {
        title: 'an AttributeConfig with relationships',
        probe: create(
          '/attribute-configs',
          withValueAt(completeDocumentOf('createAttributeConfig'), '/data/relationships', {
            group: { data: [{ type: 'UserGroup', id: REFERENCE_FIXTURES.ownerUserId }] },
          }),
        ),
        status: 201,
      },
      {
        title: 'an AttributeConfig with an attribute the contract does not name',
        probe: create(
          '/attribute-configs',
          withValueAt(completeDocumentOf('createAttributeConfig'), '/data/attributes/colour', 'blue'),
        ),
        status: 201,
      },
      {
        title: 'a Highlight without relationships',
        probe: create('/highlights', withoutValueAt(completeDocumentOf('createHighlight'), '/data/relationships')),
        status: 201,
      },
      {
        title: 'a Highlight without attributes',
        probe: create('/highlights', withoutValueAt(completeDocumentOf('createHighlight'), '/data/attributes')),
        status: 201,
      },
    ];
    for (const c of cases) {
      it(`${c.title}: ${c.status}, and the contract finds nothing`, async () => {
        const exchanged = await exchange(c.probe);
        expect(exchanged.response.status).toBe(c.status);
        expect(serverFindings(exchanged)).toEqual([]);
      });
    }
  });

  describe('creates resources per its documented choices', () => {
    it('answers 201 with a new ObjectId, the attributes as sent plus inUse false, and the relationships as sent', async () => {
      const document = completeDocumentOf('createAttributeConfig');
      (document.data as SentResource).relationships = { group: { data: null } };
      const created = createdOf(await exchange(create('/attribute-configs', document)));
      expect(created.id).toMatch(OBJECT_ID);
      expect(created).toEqual({
        id: created.id,
        type: 'AttributeConfig',
        attributes: { ...(document.data as SentResource).attributes, inUse: false },
        relationships: { group: { data: null } },
      });
    });

    it('ignores an inUse sent by the client', async () => {
      const document = completeDocumentOf('createAttributeConfig');
      (document.data as SentResource).attributes.inUse = 'yes';
      const exchanged = await exchange(create('/attribute-configs', document));
      expect(exchanged.response.status).toBe(201);
      expect(createdOf(exchanged).attributes.inUse).toBe(false);
    });

    it('keeps created AttributeConfigs: a customId used before is a 409 conflict pointing at it', async () => {
      const document = completeDocumentOf('createAttributeConfig');
      expect((await exchange(create('/attribute-configs', document))).response.status).toBe(201);
      const again = await exchange(create('/attribute-configs', document));
      expect(again.response.status).toBe(409);
      expect(errorsOf(again)[0]).toMatchObject({
        status: '409',
        code: 'duplicate-custom-id',
        source: { pointer: '/data/attributes/customId' },
      });
      expect(serverFindings(again)).toEqual([]);
    });

    const unknownRecords: Array<{ title: string; pointer: string; value: string }> = [
      {
        title: 'an owner that is not a known User',
        pointer: '/data/relationships/owner/data/id',
        value: 'ffffffffffffffffffffffff',
      },
      {
        title: 'a collectionItemId that is not a known item',
        pointer: '/data/attributes/collectionItemId',
        value: 'ffffffffffffffffffffffff',
      },
    ];
    for (const c of unknownRecords) {
      it(`answers a Highlight with ${c.title} 404, pointing at it`, async () => {
        const document = completeDocumentOf('createHighlight');
        const [, , ...path] = c.pointer.split('/');
        path
          .slice(0, -1)
          .reduce((node, key) => node[key] as Record<string, unknown>, document.data as Record<string, unknown>)[
          path[path.length - 1]
        ] = c.value;
        const exchanged = await exchange(create('/highlights', document));
        expect(exchanged.response.status).toBe(404);
        expect(errorsOf(exchanged)[0]).toMatchObject({
          status: '404',
          code: 'record-not-found',
          source: { pointer: c.pointer },
        });
        expect(serverFindings(exchanged)).toEqual([]);
      });
    }

    it('keeps what it creates: a relationship naming a resource it created is served, one naming an id it holds no record of is 404, pointing at it', async () => {
      const highlight = createdOf(await exchange(create('/highlights', completeDocumentOf('createHighlight'))));
      const naming = (id: string) => {
        const document = completeDocumentOf('createAttributeConfig');
        (document.data as SentResource).relationships = { marks: { data: [{ type: 'Highlight', id }] } };
        return create('/attribute-configs', document);
      };
      expect((await exchange(naming(highlight.id))).response.status).toBe(201);
      const unknown = await exchange(naming('ffffffffffffffffffffffff'));
      expect(unknown.response.status).toBe(404);
      expect(errorsOf(unknown)[0]).toMatchObject({
        status: '404',
        code: 'record-not-found',
        source: { pointer: '/data/relationships/marks/data/0/id' },
      });
      expect(serverFindings(unknown)).toEqual([]);
    });

    it('keeps at most a bounded number of records, the oldest going first', () => {
      const kept = new Map<string, number>();
      for (const [index, key] of ['a', 'b', 'c', 'b', 'd'].entries()) keep(kept, key, index, 3);
      expect([...kept.keys()]).toEqual(['c', 'b', 'd']);
      expect(MAX_KEPT_RESOURCES).toBeGreaterThan(0);
    });

    it('uses the fixtures as the records that exist', async () => {
      const created = createdOf(await exchange(create('/highlights', completeDocumentOf('createHighlight'))));
      expect(created.attributes.collectionItemId).toBe(REFERENCE_FIXTURES.collectionItemId);
      expect(created.relationships.owner.data.id).toBe(REFERENCE_FIXTURES.ownerUserId);
    });

    it('answers a data.type of another resource 409, and 400 when something else is wrong too', async () => {
      const conflict = await exchange(create('/highlights', { data: { type: 'AttributeConfig' } }));
      expect(conflict.response.status).toBe(409);
      const invalid = await exchange(
        create('/highlights', { data: { type: 'AttributeConfig', attributes: { color: 5 } } }),
      );
      expect(invalid.response.status).toBe(400);
      expect(
        errorsOf(invalid)
          .map((e) => e.source.pointer)
          .sort(),
      ).toEqual(['/data/attributes/color', '/data/type']);
    });
  });
});
