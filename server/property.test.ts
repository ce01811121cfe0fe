// Generated requests against one reference server: valid, near-valid (valid documents and
// queries with one member changed or removed) and garbage. Whatever comes, the answer is never
// 5xx, is a JSON:API document of the right media type that the contract finds nothing wrong with,
// and is 2xx only for a request the contract accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Pool } from 'undici';
import {
  bodyMembers,
  filterMembers,
  MEDIA_TYPE,
  SAMPLE_OF_TYPE,
  validateRequest,
  withoutValueAt,
  withValueAt,
  type Operation,
} from '../contract/index.ts';
import { contract, creates, lists } from '../contract/test-support.ts';
import { fixtureMembers } from '../suites/documents.ts';
import { operationInputs, queryText } from '../suites/generation/inputs.ts';
import { arbitraryOf, type PointerOverride } from '../suites/generation/schema-arbitrary.ts';
import { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer, type StartedReferenceServer } from './index.ts';
import {
  completeDocumentOf,
  documentWithRawValue,
  freeFormMember,
  freeStringAttribute,
  numberAttribute,
  serverFindings,
  send,
  type Exchanged,
  type Probe,
} from './test-support.ts';

/** Requests per operation: RUNS property runs of BATCH requests sent together. */
const BATCH = 20;
const RUNS = 500;
const CONNECTIONS = 8;
/** An operation's BATCH * RUNS requests: about 20 s alone, several times that beside other test files. */
const PROPERTY_TIMEOUT_MS = 240_000;

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

/** Odd values of a list's query members: its filter's allowed values run together among them. */
function oddValue(operation: Operation): fc.Arbitrary<string> {
  const allowed = filterMembers(operation).flatMap((m) => m.values);
  return fc.oneof(
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
      allowed.join(','),
      '%zz',
      'é',
      '\u0000',
    ),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: -5, max: 200 }).map(String),
  );
}

/** Odd names of a list's query members: its own names, nested, emptied or made up beside them. */
function oddKey(operation: Operation): fc.Arbitrary<string> {
  const names = operation.parameters.flatMap((p) => {
    const members = Object.keys(p.schema.properties ?? {});
    return [
      p.name,
      `${p.name}[]`,
      `${p.name}[unknown]`,
      ...members.flatMap((m) => [`${p.name}[${m}]`, `${p.name}[${m}][x]`, `[${m}]`]),
    ];
  });
  return fc.oneof(fc.constantFrom(...names, ''), fc.string({ maxLength: 8 }));
}

/** A valid query of a list, as pairs, from its parameters' schemas. */
function validPairs(operation: Operation): fc.Arbitrary<Pair[]> {
  return operationInputs(operation, REFERENCE_FIXTURES)
    .filter((input) => input.mutation === undefined)
    .map((input) =>
      queryText(operation, input.query ?? {})
        .split('&')
        .filter((part) => part !== '')
        .map((part) => {
          const [name, value = ''] = part.split('=');
          return [decodeURIComponent(name), decodeURIComponent(value)] as Pair;
        }),
    );
}

/** One change to a valid query: a member removed, its value or name replaced, one added or repeated. */
function nearValidPairs(operation: Operation): fc.Arbitrary<Pair[]> {
  return fc
    .tuple(
      validPairs(operation),
      fc.nat(),
      fc.constantFrom('remove', 'value', 'name', 'add', 'repeat'),
      oddKey(operation),
      oddValue(operation),
    )
    .map(([pairs, at, change, key, value]) => {
      if (pairs.length === 0) return [[key, value] as Pair];
      const index = at % pairs.length;
      const out = [...pairs];
      if (change === 'remove') out.splice(index, 1);
      if (change === 'value') out[index] = [out[index][0], value];
      if (change === 'name') out[index] = [key, out[index][1]];
      if (change === 'add') out.push([key, value]);
      if (change === 'repeat') out.push([out[index][0], value]);
      return out;
    });
}

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

function listProbe(operation: Operation): fc.Arbitrary<Probe> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: validPairs(operation).map(pairsQuery) },
        { weight: 5, arbitrary: nearValidPairs(operation).map(pairsQuery) },
        { weight: 2, arbitrary: garbageQuery },
      ),
      credentials,
    )
    .map(([query, headers]) => ({ method: operation.method, path: `${operation.pathTemplate}?${query}`, headers }));
}

// --- Bodies ----------------------------------------------------------------------------------------

const objectId = fc.stringMatching(/^[0-9a-f]{24}$/);

/** Members naming a record take the reference server's record most of the time, any ObjectId otherwise. */
function recordOverride(operation: Operation): PointerOverride {
  const fixtureOf = new Map(fixtureMembers(operation));
  return (pointer) => {
    const key = fixtureOf.get(pointer);
    const record = key === undefined ? undefined : REFERENCE_FIXTURES[key];
    return record === undefined
      ? undefined
      : fc.oneof({ weight: 4, arbitrary: fc.constant(record) }, { weight: 1, arbitrary: objectId });
  };
}

/** Valid documents of a create, from its request schema, strings kept short. */
function validDocument(operation: Operation): fc.Arbitrary<Record<string, unknown>> {
  const options = { override: recordOverride(operation), maxStringLength: 16 };
  return arbitraryOf(operation.requestBody!, '', options) as fc.Arbitrary<Record<string, unknown>>;
}

const memberValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...Object.values(SAMPLE_OF_TYPE), 1e308, -0, '', 'x'.repeat(300), [], {}),
);

/** A valid document with one member (any depth the schema names) replaced or removed. */
function nearValidDocument(valid: fc.Arbitrary<Record<string, unknown>>, operation: Operation): fc.Arbitrary<unknown> {
  const pointers = bodyMembers(operation).map((m) => m.pointer);
  return fc
    .tuple(valid, fc.constantFrom(...pointers), fc.boolean(), memberValue)
    .map(([document, pointer, remove, value]) =>
      remove ? withoutValueAt(document, pointer) : withValueAt(document, pointer, value),
    );
}

const TRICKY_TEXTS = [
  '',
  '{}',
  'null',
  '{"data":',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"data":'.repeat(200),
  '"\\ud800"',
];

/** Complete documents of a create with a number past a double's range, or an escaped NUL, where its schema allows. */
function trickyDocuments(operation: Operation): string[] {
  const document = completeDocumentOf(operation.operationId);
  const free = freeFormMember(operation);
  const number = numberAttribute(operation);
  const string = freeStringAttribute(operation);
  return [
    ...(number ? [documentWithRawValue(document, number.pointer, '1e400')] : []),
    ...(free ? [documentWithRawValue(document, `${free.pointer}/n`, '-1e999')] : []),
    ...(string ? [documentWithRawValue(document, string.pointer, '"\\u0000"')] : []),
  ];
}

/** Garbage: random bytes, random text, random JSON, a valid document cut short, tricky constants. */
function garbageBody(
  operation: Operation,
  valid: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.tuple(valid, fc.nat()).map(([document, at]) => {
      const full = JSON.stringify(document);
      return full.slice(0, at % (full.length + 1));
    }),
    fc.constantFrom(...TRICKY_TEXTS, ...trickyDocuments(operation)),
  );
}

function createProbe(operation: Operation): fc.Arbitrary<Probe> {
  const valid = validDocument(operation);
  const body = fc.oneof(
    { weight: 3, arbitrary: valid.map((d) => JSON.stringify(d)) },
    { weight: 5, arbitrary: nearValidDocument(valid, operation).map((d) => JSON.stringify(d) ?? '') },
    { weight: 2, arbitrary: garbageBody(operation, valid) },
  );
  return fc.tuple(body, credentials, contentType).map(([payload, auth, type]) => ({
    method: operation.method,
    path: operation.pathTemplate,
    headers: { ...auth, ...(type === undefined ? {} : { 'content-type': type }) },
    body: payload,
  }));
}

// --- The property --------------------------------------------------------------------------------

const jsonApiDocument = contract.componentValidator('JsonApiDocument');

/** What is wrong with one answer, as sentences; empty when it holds. */
function problemsWith(exchanged: Exchanged): string[] {
  const { request, response } = exchanged;
  const path = request.path.split('?')[0];
  const operation = contract.operations.find((o) => path === `${contract.basePath}${o.pathTemplate}`)!;
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

/** Every list and every create of the contract, each with the requests generated for it. */
const OPERATIONS: Array<{ name: string; probe: fc.Arbitrary<Probe> }> = [
  ...lists.map((o) => ({ name: o.operationId, probe: listProbe(o) })),
  ...creates.map((o) => ({ name: o.operationId, probe: createProbe(o) })),
];

describe('generated requests', { timeout: PROPERTY_TIMEOUT_MS }, () => {
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
