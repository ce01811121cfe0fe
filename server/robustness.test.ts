// No input, however malformed, gets a 5xx or a body that is not a JSON:API document: odd bytes,
// odd HTTP, odd JSON, clients that hang up. Also: the request log shows no credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DEFAULT_CREDENTIALS, MAX_NESTING_DEPTH, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { MEDIA_TYPE, servedFilterMember, type Operation } from '../contract/index.ts';
import { contract, create, describeWith, lists, listQuery } from '../contract/test-support.ts';
import {
  completeDocumentOf,
  documentWithRawValue,
  freeFormMember,
  freeStringAttribute,
  numberAttribute,
  rawExchange,
  send,
  type RawResponse,
} from './test-support.ts';

const TOKEN = DEFAULT_CREDENTIALS.sessionToken;
const SESSION_HEADER = `Authorization: Bearer r:${TOKEN}`;
/** An operation every state of the contract holds one of: the first. */
const [served] = contract.operations;

function head(requestLine: string, headers: string[]): string {
  return `${requestLine}\r\nHost: reference\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
}

/** A POST with a Content-Length body and the session token. */
function postRaw(path: string, body: string | Buffer, extra: string[] = []): Array<string | Buffer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return [
    head(`POST /v3${path} HTTP/1.1`, [
      SESSION_HEADER,
      `Content-Type: ${MEDIA_TYPE}`,
      `Content-Length: ${bytes.length}`,
      'Connection: close',
      ...extra,
    ]),
    bytes,
  ];
}

function chunked(path: string, pieces: string[], tail = '0\r\n\r\n'): Array<string | Buffer> {
  const body = pieces.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + tail;
  return [
    head(`POST /v3${path} HTTP/1.1`, [
      SESSION_HEADER,
      `Content-Type: ${MEDIA_TYPE}`,
      'Transfer-Encoding: chunked',
      'Connection: close',
    ]),
    body,
  ];
}

/** The path (query included) and body of a request the reference server serves for an operation. */
function servedRequest(operation: Operation): { path: string; body?: string } {
  const query = listQuery(operation);
  return {
    path: query === '' ? operation.pathTemplate : `${operation.pathTemplate}?${query}`,
    ...(operation.requestBody ? { body: JSON.stringify(completeDocumentOf(operation.operationId)) } : {}),
  };
}

/** The status the reference server answers a request it serves with (the lowest 2xx the operation lists). */
const successStatus = (operation: Operation) => Math.min(...operation.statuses.filter((s) => s >= 200 && s < 300));

/** A served request to `operation` in raw form, with `headers` instead of the session token. */
function servedRaw(operation: Operation, headers: string[], target = (path: string) => `/v3${path}`) {
  const { path, body } = servedRequest(operation);
  const framing =
    body === undefined ? [] : [`Content-Type: ${MEDIA_TYPE}`, `Content-Length: ${Buffer.byteLength(body)}`];
  return [
    head(`${operation.method} ${target(path)} HTTP/1.1`, [...headers, ...framing, 'Connection: close']),
    body ?? '',
  ];
}

const createWithFreeForm = contract.operations.find((o) => o.requestBody && freeFormMember(o));
const createWithNumber = contract.operations.find((o) => o.requestBody && numberAttribute(o));
const createWithFreeString = contract.operations.find((o) => o.requestBody && freeStringAttribute(o));
/** A list whose filter names allowed values, and whose requirements name the filter and a page not a number. */
const listWithAllowedValues = lists.find(
  (o) => servedFilterMember(o) !== undefined && o.roles.filterRequired && o.roles.pageNotANumber,
);

interface OddCase {
  title: string;
  parts: Array<string | Buffer>;
  /** The status it must get. */
  status: number;
  code?: string;
}

/** Bodies and framings no create should answer otherwise, whatever its document. */
function createCases(operation: Operation): OddCase[] {
  const path = operation.pathTemplate;
  const complete = () => JSON.stringify(completeDocumentOf(operation.operationId));
  const halfway = (text: string) => [text.slice(0, text.length / 2), text.slice(text.length / 2)];
  const withOddNames = documentWithRawValue(
    completeDocumentOf(operation.operationId),
    '/data/attributes/constructor',
    '1',
  ).replace('"constructor":1', '"__proto__":{"polluted":true},"constructor":1');
  return [
    {
      title: 'a body that is not UTF-8',
      parts: postRaw(path, Buffer.from([0x7b, 0x22, 0x64, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])),
      status: 400,
      code: 'REQ-MALFORMED-JSON',
    },
    {
      title: `objects nested ${MAX_NESTING_DEPTH + 1} deep`,
      parts: postRaw(path, '{"a":'.repeat(MAX_NESTING_DEPTH + 1) + '1' + '}'.repeat(MAX_NESTING_DEPTH + 1)),
      status: 400,
      code: 'nesting-too-deep',
    },
    {
      title: 'a NUL byte inside a JSON string',
      parts: postRaw(path, documentWithRawValue(completeDocumentOf(operation.operationId), '/data/type', '"a\u0000b"')),
      status: 400,
      code: 'REQ-MALFORMED-JSON',
    },
    { title: '__proto__ and constructor as attribute names', parts: postRaw(path, withOddNames), status: 201 },
    {
      title: 'a byte order mark before the JSON',
      parts: postRaw(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(complete())])),
      status: 201,
    },
    { title: 'a chunked body', parts: chunked(path, halfway(complete())), status: 201 },
    {
      title: 'a chunked body above the size limit',
      parts: chunked(
        path,
        Array.from({ length: 20 }, () => 'x'.repeat(60_000)),
      ),
      status: 413,
      code: 'body-too-large',
    },
    {
      title: 'a chunked body with a broken chunk size',
      parts: chunked(path, [], 'zz\r\nabc\r\n0\r\n\r\n'),
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'Content-Length and Transfer-Encoding together',
      parts: [head(`POST /v3${path} HTTP/1.1`, ['Content-Length: 5', 'Transfer-Encoding: chunked']), '0\r\n\r\n'],
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'two different Content-Length values',
      parts: [head(`POST /v3${path} HTTP/1.1`, ['Content-Length: 2', 'Content-Length: 3']), '{}x'],
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'a Transfer-Encoding other than chunked',
      parts: [head(`POST /v3${path} HTTP/1.1`, ['Transfer-Encoding: gzip']), 'abc'],
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'Expect: 100-continue with a declared size above the limit',
      parts: [
        head(`POST /v3${path} HTTP/1.1`, [
          SESSION_HEADER,
          `Content-Type: ${MEDIA_TYPE}`,
          'Content-Length: 2000000',
          'Expect: 100-continue',
        ]),
      ],
      status: 413,
      code: 'body-too-large',
    },
    {
      title: 'Expect: 100-continue with a body',
      parts: postRaw(path, complete(), ['Expect: 100-continue']),
      status: 201,
    },
  ];
}

/** Numbers past a double's range, where the schema leaves the member free-form. */
function freeFormCases(operation: Operation): OddCase[] {
  const { pointer } = freeFormMember(operation)!;
  const deeplyNested = documentWithRawValue(
    completeDocumentOf(operation.operationId),
    `${pointer}/deep`,
    '['.repeat(100_000) + ']'.repeat(100_000),
  );
  return [
    {
      title: `arrays nested ${100_000} deep in a free-form member`,
      parts: postRaw(operation.pathTemplate, deeplyNested),
      status: 400,
      code: 'nesting-too-deep',
    },
    {
      title: 'a number too large for a double in a free-form member',
      parts: postRaw(
        operation.pathTemplate,
        documentWithRawValue(completeDocumentOf(operation.operationId), `${pointer}/note`, '1e400'),
      ),
      status: 400,
      code: 'number-out-of-range',
    },
  ];
}

function numberCases(operation: Operation): OddCase[] {
  const { pointer } = numberAttribute(operation)!;
  const typeMismatch = contract.requirementFor({
    operation: operation.operationId,
    location: 'request',
    keyword: 'type',
    pointer,
  });
  const withNumber = (raw: string) => documentWithRawValue(completeDocumentOf(operation.operationId), pointer, raw);
  return [
    {
      title: 'a number too large for a double in a typed member',
      parts: postRaw(operation.pathTemplate, withNumber('-1e999')),
      status: 400,
      code: typeMismatch.id,
    },
    {
      title: 'a huge but finite integer',
      parts: postRaw(operation.pathTemplate, withNumber('123456789012345678901234567890')),
      status: 201,
    },
  ];
}

function stringCases(operation: Operation): OddCase[] {
  const { pointer } = freeStringAttribute(operation)!;
  return [
    {
      title: 'lone surrogate escapes in strings',
      parts: postRaw(
        operation.pathTemplate,
        documentWithRawValue(completeDocumentOf(operation.operationId), pointer, '"\\ud800\\udfff\\udc00"'),
      ),
      status: 201,
    },
  ];
}

/** Odd HTTP, whatever operation it is sent to. */
function httpCases(operation: Operation): OddCase[] {
  const target = `/v3${operation.pathTemplate}`;
  return [
    {
      title: 'a control character in a header',
      parts: [head(`GET ${target} HTTP/1.1`, ['X-Odd: a\u0001b'])],
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'a header line without a colon',
      parts: [head(`GET ${target} HTTP/1.1`, ['NoColonHere'])],
      status: 400,
      code: 'bad-http-request',
    },
    {
      title: 'headers above the size limit',
      parts: [head(`GET ${target} HTTP/1.1`, [`X-Big: ${'a'.repeat(20_000)}`])],
      status: 431,
      code: 'bad-http-request',
    },
    { title: 'a request line that is not HTTP', parts: ['HELLO THERE\r\n\r\n'], status: 400, code: 'bad-http-request' },
  ];
}

/** Odd request targets and credentials on a request the server otherwise serves. */
function servedCases(operation: Operation): OddCase[] {
  const success = successStatus(operation);
  return [
    {
      title: 'an absolute-form request target',
      parts: servedRaw(operation, [SESSION_HEADER], (path) => `http://reference/v3${path}`),
      status: success,
    },
    {
      title: 'the legacy header twice',
      parts: servedRaw(operation, [`${contract.legacyHeader}: ${TOKEN}`, `${contract.legacyHeader}: ${TOKEN}`]),
      status: 401,
      code: 'AUTH-401-UNKNOWN-TOKEN',
    },
    {
      title: 'Authorization twice, the first valid',
      parts: servedRaw(operation, [SESSION_HEADER, 'Authorization: Bearer r:other']),
      status: success,
    },
    {
      title: 'Authorization with trailing garbage',
      parts: servedRaw(operation, [`${SESSION_HEADER} extra`]),
      status: 401,
      code: 'AUTH-401-MALFORMED',
    },
  ];
}

/** Queries a list's parser must refuse naming the list's own requirements. */
function listCases(operation: Operation): OddCase[] {
  const member = servedFilterMember(operation)!;
  const target = `/v3${operation.pathTemplate}?${listQuery(operation)}`;
  const get = (path: string) => [head(`GET ${path} HTTP/1.1`, [SESSION_HEADER, 'Connection: close'])];
  return [
    {
      title: 'a malformed percent escape in the query',
      parts: get(`/v3${operation.pathTemplate}?filter[${member.name}]=%zz&page[limit]=%`),
      status: 400,
      code: operation.roles.filterRequired,
    },
    {
      title: 'a repeated page member',
      parts: get(`${target}&page[limit]=5&page[offset]=0&page[offset]=5`),
      status: 400,
      code: operation.roles.pageNotANumber,
    },
  ];
}

function expectJsonApi(response: RawResponse | undefined, status: number, code?: string): void {
  expect(response?.status).toBe(status);
  expect(response?.headers['content-type']).toBe(MEDIA_TYPE);
  const document = JSON.parse(response!.bodyText) as { data?: unknown; errors?: Array<Record<string, unknown>> };
  expect(document.data !== undefined || document.errors !== undefined).toBe(true);
  if (status >= 400) {
    for (const error of document.errors ?? []) expect(error.status).toBe(String(status));
    if (code) expect(document.errors?.[0].code).toBe(code);
  }
}

describe('malformed input', () => {
  let server: StartedReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());

  const itAnswers = (c: OddCase) =>
    it(`${c.title}: ${c.status}${c.code ? ` ${c.code}` : ''}, a JSON:API document`, async () => {
      expectJsonApi(await rawExchange(server.port, c.parts), c.status, c.code);
    });
  const groups: Array<{
    title: string;
    operation: Operation | undefined;
    what: string;
    cases: (o: Operation) => OddCase[];
  }> = [
    { title: 'sent to any operation', operation: served, what: 'operation', cases: httpCases },
    { title: 'on a request served', operation: served, what: 'operation', cases: servedCases },
    { title: 'sent to a create', operation: create, what: 'create', cases: createCases },
    {
      title: 'in a free-form member of a document',
      operation: createWithFreeForm,
      what: 'create whose document has a free-form member',
      cases: freeFormCases,
    },
    {
      title: 'in a number attribute',
      operation: createWithNumber,
      what: 'create whose document has a number attribute',
      cases: numberCases,
    },
    {
      title: 'in a string attribute',
      operation: createWithFreeString,
      what: 'create whose document has a free string attribute',
      cases: stringCases,
    },
    {
      title: 'in the query of a list',
      operation: listWithAllowedValues,
      what: 'list whose filter names allowed values',
      cases: listCases,
    },
  ];
  for (const group of groups)
    describeWith(group.operation, group.what)(group.title, (operation) => group.cases(operation).forEach(itAnswers));

  describeWith(create, 'create')('a client that hangs up', (operation) => {
    const hangUps = [
      {
        title: 'a client that hangs up halfway through a body',
        parts: [
          head(`POST /v3${operation.pathTemplate} HTTP/1.1`, [
            SESSION_HEADER,
            `Content-Type: ${MEDIA_TYPE}`,
            'Content-Length: 1000',
          ]),
          '{"data":',
        ],
      },
      {
        title: 'a client that hangs up halfway through a chunk',
        parts: [
          head(`POST /v3${operation.pathTemplate} HTTP/1.1`, [SESSION_HEADER, 'Transfer-Encoding: chunked']),
          '100\r\n{"da',
        ],
      },
      {
        title: 'a client that hangs up halfway through the headers',
        parts: [`GET /v3${operation.pathTemplate} HTTP/1.1\r\nAuthor`],
      },
    ];
    for (const c of hangUps) {
      it(`${c.title} leaves the server serving`, async () => {
        await rawExchange(server.port, c.parts, { hangUp: true });
        await new Promise((resolve) => setTimeout(resolve, 20));
        const after = await rawExchange(server.port, servedRaw(served, [SESSION_HEADER]));
        expect(after?.status).toBe(successStatus(served));
      });
    }
  });
});

describe('the request log', () => {
  it('has one JSON line per request with method, masked path, status and ms, and never a token', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const server = await startReferenceServer({ logger });
    const { path, body } = servedRequest(served);
    const withSecrets = `${path}${path.includes('?') ? '&' : '?'}access_token=${TOKEN}&other=${TOKEN}`;
    const sent = { method: served.method, ...(body === undefined ? {} : { body }) };
    try {
      const headers = {
        authorization: `Bearer r:${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': MEDIA_TYPE }),
      };
      await send(server.baseUrl, { ...sent, path: withSecrets, headers });
      await send(server.baseUrl, {
        ...sent,
        path,
        headers: { [contract.legacyHeader]: DEFAULT_CREDENTIALS.forbiddenToken, 'content-type': MEDIA_TYPE },
      });
      await send(server.baseUrl, {
        method: 'GET',
        path: '/no-such-thing',
        headers: { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` },
      });
    } finally {
      await server.close();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.method, r.status])).toEqual([
      [served.method, successStatus(served)],
      [served.method, 403],
      ['GET', 404],
    ]);
    expect(records[0].path).toBe(`/v3${withSecrets.replaceAll(TOKEN, '***')}`);
    for (const record of records) expect(typeof record.ms).toBe('number');
    const text = lines.join('');
    for (const token of Object.values(DEFAULT_CREDENTIALS)) expect(text).not.toContain(token);
  });
});
