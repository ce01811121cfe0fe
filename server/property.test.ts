// Generated requests against one reference server: valid, near-valid (valid documents and
// queries with one member changed or removed) and garbage. Whatever comes, the answer is never
// 5xx, is a JSON:API document of the right media type that the contract finds nothing wrong with,
// and is 2xx only for a request the contract accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Pool } from 'undici';
import {
  bodyMembers,
  loadContract,
  MEDIA_TYPE,
  SAMPLE_OF_TYPE,
  validateRequest,
  withoutValueAt,
  withValueAt,
} from '../contract/index.ts';
import { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { serverFindings, send, type Exchanged, type Probe } from './test-support.ts';

const contract = loadContract();
/** Requests per operation: RUNS property runs of BATCH requests sent together. */
const BATCH = 20;
const RUNS = 500;
const CONNECTIONS = 8;

// --- Credentials and headers -------------------------------------------------------------------

const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
const credentials: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(session) },
  fc.constantFrom<Record<string, string>>(
    {},
    { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` },
    { [contract.legacyHeader]: DEFAULT_CREDENTIALS.sessionToken },
    { authorization: 'Bearer r:unknown-token' },
    { authorization: `Bearer ${DEFAULT_CREDENTIALS.sessionToken}` },
    { authorization: `Bearer r:${DEFAULT_CREDENTIALS.forbiddenToken}` },
  ),
);
const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(MEDIA_TYPE) },
  fc.constantFrom(
    undefined,
    'application/json',
    'text/plain',
    `${MEDIA_TYPE}; charset=utf-8`,
    MEDIA_TYPE.toUpperCase(),
    '',
  ),
);

// --- Queries ---------------------------------------------------------------------------------------

type Pair = [string, string];

const filterValues = (
  contract.operation('listNotificationGroups').parameters[0].schema.properties as Record<string, { enum: string[] }>
).type.enum;
const oddValue = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1.5',
    'abc',
    '1e400',
    '99999999999999999999999',
    ' 5',
    '+3',
    'null',
    'true',
    '[]',
    'portal,user',
    '%zz',
    'é',
    '\u0000',
  ),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 200 }).map(String),
);
const oddKey = fc.oneof(
  fc.constantFrom(
    'filter',
    'page',
    'filter[type]',
    'filter[kind]',
    'page[limit]',
    'page[offset]',
    'page[size]',
    'include',
    'include[]',
    'filter[type][x]',
    'page[]',
    '[type]',
    '',
  ),
  fc.string({ maxLength: 8 }),
);

const validPairs: fc.Arbitrary<Pair[]> = fc
  .record(
    {
      type: fc.constantFrom(...filterValues),
      page: fc.record({ limit: fc.integer({ min: 1, max: 150 }), offset: fc.integer({ min: 0, max: 45 }) }),
      include: fc.array(fc.constantFrom('owner', 'recipients', 'anything'), { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['type'] },
  )
  .map(({ type, page, include }) => [
    ['filter[type]', type] as Pair,
    ...(page
      ? ([
          ['page[limit]', String(page.limit)],
          ['page[offset]', String(page.offset)],
        ] as Pair[])
      : []),
    ...(include ? ([['include', include.join(',')]] as Pair[]) : []),
  ]);

/** One change to a valid query: a member removed, its value or name replaced, one added or repeated. */
const nearValidPairs: fc.Arbitrary<Pair[]> = fc
  .tuple(validPairs, fc.nat(), fc.constantFrom('remove', 'value', 'name', 'add', 'repeat'), oddKey, oddValue)
  .map(([pairs, at, change, key, value]) => {
    const index = at % pairs.length;
    const out = [...pairs];
    if (change === 'remove') out.splice(index, 1);
    if (change === 'value') out[index] = [out[index][0], value];
    if (change === 'name') out[index] = [key, out[index][1]];
    if (change === 'add') out.push([key, value]);
    if (change === 'repeat') out.push([out[index][0], value]);
    return out;
  });

const encodeQueryPart = (text: string) => encodeURIComponent(text).replace(/%5B/g, '[').replace(/%5D/g, ']');
const pairsQuery = (pairs: Pair[]) => pairs.map(([k, v]) => `${encodeQueryPart(k)}=${encodeQueryPart(v)}`).join('&');

/** Raw bytes in the query: only what no HTTP client can send (outside ! to ~) is escaped. */
const garbageQuery = fc
  .string({ unit: 'binary-ascii', maxLength: 60 })
  .map((text) =>
    text
      .replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c).replace(/%(?![0-9A-F]{2})/g, '%25'))
      .replace(/#/g, '%23'),
  );

const listProbe: fc.Arbitrary<Probe> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: validPairs.map(pairsQuery) },
      { weight: 5, arbitrary: nearValidPairs.map(pairsQuery) },
      { weight: 2, arbitrary: garbageQuery },
    ),
    credentials,
  )
  .map(([query, headers]) => ({ method: 'GET', path: `/notification-groups?${query}`, headers }));

// --- Bodies ----------------------------------------------------------------------------------------

const text = fc.string({ maxLength: 16 });
const objectId = fc.oneof(
  { weight: 4, arbitrary: fc.constant(REFERENCE_FIXTURES.ownerUserId) },
  fc.stringMatching(/^[0-9a-f]{24}$/),
);

const validAttributeConfig = fc
  .record(
    {
      customId: fc.uuid(),
      target: fc.constantFrom('User', 'Group', 'x'),
      type: fc.constantFrom('boolean', 'text'),
      label: text,
      sublabel: text,
      description: text,
      options: fc.array(fc.record({ value: text, label: text }, { requiredKeys: [] }), { maxLength: 3 }),
      labelQuestion: text,
      registration: fc.record({ collect: fc.boolean() }, { requiredKeys: [] }),
      required: fc.boolean(),
      editPermission: fc.double({ noNaN: true, noDefaultInfinity: true }),
      viewPermission: fc.integer(),
      settings: fc.record(
        {
          link: fc.record(
            {
              display: fc.record({ asButton: fc.boolean() }, { requiredKeys: [] }),
              authenticated: fc.boolean(),
              clickBehavior: fc.constantFrom('newWindow', 'sameWindow'),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((attributes) => ({ data: { type: 'AttributeConfig', attributes } }));

const owner = fc.record(
  {
    data: fc.record({ type: fc.constant('User'), id: objectId }),
    meta: fc.dictionary(text, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  },
  { requiredKeys: ['data'] },
);
const validHighlight = fc
  .record(
    {
      attributes: fc.record(
        {
          collectionItemId: fc.oneof(
            { weight: 4, arbitrary: fc.constant(REFERENCE_FIXTURES.collectionItemId) },
            fc.stringMatching(/^[0-9a-f]{24}$/),
          ),
          color: text,
          range: text,
          summary: text,
        },
        { requiredKeys: [] },
      ),
      relationships: fc.record({ owner }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  )
  .map((data) => ({ data: { type: 'Highlight', ...data } }));

const memberValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...Object.values(SAMPLE_OF_TYPE), 1e308, -0, '', 'x'.repeat(300), [], {}),
);

/** A valid document with one member (any depth the schema names) replaced or removed. */
function nearValidDocument(valid: fc.Arbitrary<Record<string, unknown>>, operationId: string): fc.Arbitrary<unknown> {
  const pointers = bodyMembers(contract.operation(operationId)).map((m) => m.pointer);
  return fc
    .tuple(valid, fc.constantFrom(...pointers), fc.boolean(), memberValue)
    .map(([document, pointer, remove, value]) =>
      remove ? withoutValueAt(document, pointer) : withValueAt(document, pointer, value),
    );
}

const TRICKY_BODIES = [
  '',
  '{}',
  'null',
  '{"data":',
  '{"data":{"type":"AttributeConfig","attributes":{"editPermission":1e400}}}',
  `{"data":{"type":"Highlight","relationships":{"owner":{"data":{"type":"User","id":"${REFERENCE_FIXTURES.ownerUserId}"},"meta":{"n":-1e999}}}}}`,
  '['.repeat(5000) + ']'.repeat(5000),
  '{"data":'.repeat(200),
  '"\\ud800"',
  '{"data":{"type":"Highlight","attributes":{"color":"\\u0000"}}}',
];

/** Garbage: random bytes, random text, random JSON, a valid document cut short, tricky constants. */
function garbageBody(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.tuple(valid, fc.nat()).map(([document, at]) => {
      const full = JSON.stringify(document);
      return full.slice(0, at % (full.length + 1));
    }),
    fc.constantFrom(...TRICKY_BODIES),
  );
}

function createProbe(
  path: string,
  valid: fc.Arbitrary<Record<string, unknown>>,
  operationId: string,
): fc.Arbitrary<Probe> {
  const body = fc.oneof(
    { weight: 3, arbitrary: valid.map((d) => JSON.stringify(d)) },
    { weight: 5, arbitrary: nearValidDocument(valid, operationId).map((d) => JSON.stringify(d) ?? '') },
    { weight: 2, arbitrary: garbageBody(valid) },
  );
  return fc.tuple(body, credentials, contentType).map(([payload, auth, type]) => ({
    method: 'POST',
    path,
    headers: { ...auth, ...(type === undefined ? {} : { 'content-type': type }) },
    body: payload,
  }));
}

// --- The property --------------------------------------------------------------------------------

const jsonApiDocument = contract.componentValidator('JsonApiDocument');

/** What is wrong with one answer, as sentences; empty when it holds. */
function problemsWith(exchanged: Exchanged): string[] {
  const { request, response } = exchanged;
  const operation = contract.operations.find((o) => request.path.startsWith(`${contract.basePath}${o.pathTemplate}`))!;
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`answered ${response.status}`);
  if (response.headers['content-type'] !== MEDIA_TYPE)
    problems.push(`Content-Type ${String(response.headers['content-type'])}`);
  if (!jsonApiDocument(exchanged.json))
    problems.push(`not a JSON:API document: ${(response.bodyText ?? '').slice(0, 120)}`);
  const requestFindings = validateRequest(contract, operation, request);
  if (response.status < 300 && requestFindings.length > 0)
    problems.push(`answered ${response.status} to a request the contract rejects: ${requestFindings[0].message}`);
  problems.push(...serverFindings(exchanged).map((f) => `${f.requirement} (${f.level}): ${f.message}`));
  return problems;
}

function describeProbe(probe: Probe): string {
  const body = probe.body === undefined ? '' : ` body ${JSON.stringify(probe.body.toString()).slice(0, 200)}`;
  return `${probe.method} ${probe.path} ${JSON.stringify(probe.headers)}${body}`;
}

const OPERATIONS: Array<{ name: string; probe: fc.Arbitrary<Probe> }> = [
  { name: 'List NotificationGroups', probe: listProbe },
  {
    name: 'Create AttributeConfig',
    probe: createProbe('/attribute-configs', validAttributeConfig, 'createAttributeConfig'),
  },
  { name: 'Create Highlight', probe: createProbe('/highlights', validHighlight, 'createHighlight') },
];

describe('generated requests', () => {
  let server: StartedReferenceServer;
  let pool: Pool;
  beforeAll(async () => {
    server = await startReferenceServer();
    pool = new Pool(new URL(server.baseUrl).origin, { connections: CONNECTIONS });
  });
  afterAll(async () => {
    await pool.close();
    await server.close();
  });

  for (const { name, probe } of OPERATIONS) {
    it(`${name}: ${BATCH * RUNS} valid, near-valid and garbage requests are never 5xx, always JSON:API, 2xx only when the contract accepts them`, async () => {
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(probe, { minLength: BATCH, maxLength: BATCH }), async (probes) => {
          const exchanged = await Promise.all(probes.map((p) => send(server.baseUrl, p, pool)));
          sent += exchanged.length;
          const failures = exchanged.flatMap((x, i) =>
            problemsWith(x).map((problem) => `${describeProbe(probes[i])}\n  → ${x.response.status}: ${problem}`),
          );
          expect(failures).toEqual([]);
        }),
        { numRuns: RUNS },
      );
      expect(sent).toBeGreaterThanOrEqual(BATCH * RUNS);
    });
  }
});
