// No input, however malformed, gets a 5xx or a body that is not a JSON:API document: odd bytes,
// odd HTTP, odd JSON, clients that hang up. Also: the request log shows no credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DEFAULT_CREDENTIALS, MAX_NESTING_DEPTH, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { loadContract, MEDIA_TYPE, withValueAt } from '../contract/index.ts';
import { completeDocumentOf, rawExchange, send, type RawResponse } from './test-support.ts';

const TOKEN = DEFAULT_CREDENTIALS.sessionToken;
const LIST_TARGET = '/v3/notification-groups?filter[type]=portal';

function head(requestLine: string, headers: string[]): string {
  return `${requestLine}\r\nHost: reference\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
}

/** A POST with a Content-Length body and the session token. */
function postRaw(path: string, body: string | Buffer, extra: string[] = []): Array<string | Buffer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return [
    head(`POST /v3${path} HTTP/1.1`, [
      `Authorization: Bearer r:${TOKEN}`,
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
      `Authorization: Bearer r:${TOKEN}`,
      `Content-Type: ${MEDIA_TYPE}`,
      'Transfer-Encoding: chunked',
      'Connection: close',
    ]),
    body,
  ];
}

const getRaw = (target: string, headers: string[] = [`Authorization: Bearer r:${TOKEN}`]) => [
  head(`GET ${target} HTTP/1.1`, [...headers, 'Connection: close']),
];

const deeplyNested = JSON.stringify({
  data: { type: 'Highlight', relationships: { owner: { data: { type: 'User', id: 'x' }, meta: { deep: 'DEEP' } } } },
}).replace('"DEEP"', '['.repeat(100_000) + ']'.repeat(100_000));
const withHugeNumber = JSON.stringify(
  withValueAt(completeDocumentOf('createHighlight'), '/data/relationships/owner/meta', { note: 'x' }),
).replace('"note":"x"', '"note":1e400');

interface OddCase {
  title: string;
  parts: Array<string | Buffer>;
  /** The status it must get. */
  status: number;
  code?: string;
}

const ODD_CASES: OddCase[] = [
  {
    title: 'a body that is not UTF-8',
    parts: postRaw('/highlights', Buffer.from([0x7b, 0x22, 0x64, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])),
    status: 400,
    code: 'REQ-MALFORMED-JSON',
  },
  {
    title: `arrays nested ${100_000} deep in a free-form member`,
    parts: postRaw('/highlights', deeplyNested),
    status: 400,
    code: 'nesting-too-deep',
  },
  {
    title: `objects nested ${MAX_NESTING_DEPTH + 1} deep`,
    parts: postRaw(
      '/attribute-configs',
      '{"a":'.repeat(MAX_NESTING_DEPTH + 1) + '1' + '}'.repeat(MAX_NESTING_DEPTH + 1),
    ),
    status: 400,
    code: 'nesting-too-deep',
  },
  {
    title: 'a number too large for a double in a free-form member',
    parts: postRaw('/highlights', withHugeNumber),
    status: 400,
    code: 'number-out-of-range',
  },
  {
    title: 'a number too large for a double in a typed member',
    parts: postRaw('/attribute-configs', '{"data":{"type":"AttributeConfig","attributes":{"editPermission":-1e999}}}'),
    status: 400,
    code: 'AC-TYPE-MISMATCH',
  },
  {
    title: 'a huge but finite integer',
    parts: postRaw(
      '/attribute-configs',
      '{"data":{"type":"AttributeConfig","attributes":{"editPermission":123456789012345678901234567890}}}',
    ),
    status: 201,
  },
  {
    title: 'a NUL byte inside a JSON string',
    parts: postRaw('/highlights', '{"data":{"type":"Highlight","attributes":{"color":"a\u0000b"}}}'),
    status: 400,
    code: 'REQ-MALFORMED-JSON',
  },
  {
    title: 'lone surrogate escapes in strings',
    parts: postRaw('/highlights', '{"data":{"type":"Highlight","attributes":{"summary":"\\ud800\\udfff\\udc00"}}}'),
    status: 201,
  },
  {
    title: '__proto__ and constructor as attribute names',
    parts: postRaw(
      '/attribute-configs',
      '{"data":{"type":"AttributeConfig","attributes":{"__proto__":{"polluted":true},"constructor":1}}}',
    ),
    status: 201,
  },
  {
    title: 'a byte order mark before the JSON',
    parts: postRaw(
      '/highlights',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"data":{"type":"Highlight"}}')]),
    ),
    status: 201,
  },
  {
    title: 'a chunked body',
    parts: chunked('/attribute-configs', ['{"data":{"type":"Attri', 'buteConfig","attributes":{"label":"chunked"}}}']),
    status: 201,
  },
  {
    title: 'a chunked body above the size limit',
    parts: chunked(
      '/highlights',
      Array.from({ length: 20 }, () => 'x'.repeat(60_000)),
    ),
    status: 413,
    code: 'body-too-large',
  },
  {
    title: 'a chunked body with a broken chunk size',
    parts: chunked('/highlights', [], 'zz\r\nabc\r\n0\r\n\r\n'),
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'Content-Length and Transfer-Encoding together',
    parts: [head('POST /v3/highlights HTTP/1.1', ['Content-Length: 5', 'Transfer-Encoding: chunked']), '0\r\n\r\n'],
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'two different Content-Length values',
    parts: [head('POST /v3/highlights HTTP/1.1', ['Content-Length: 2', 'Content-Length: 3']), '{}x'],
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'a Transfer-Encoding other than chunked',
    parts: [head('POST /v3/highlights HTTP/1.1', ['Transfer-Encoding: gzip']), 'abc'],
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'a control character in a header',
    parts: [head('GET /v3/notification-groups HTTP/1.1', ['X-Odd: a\u0001b'])],
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'a header line without a colon',
    parts: [head('GET /v3/notification-groups HTTP/1.1', ['NoColonHere'])],
    status: 400,
    code: 'bad-http-request',
  },
  {
    title: 'headers above the size limit',
    parts: [head('GET /v3/notification-groups HTTP/1.1', [`X-Big: ${'a'.repeat(20_000)}`])],
    status: 431,
    code: 'bad-http-request',
  },
  { title: 'a request line that is not HTTP', parts: ['HELLO THERE\r\n\r\n'], status: 400, code: 'bad-http-request' },
  { title: 'an absolute-form request target', parts: getRaw(`http://reference${LIST_TARGET}`), status: 200 },
  {
    title: 'a malformed percent escape in the query',
    parts: getRaw('/v3/notification-groups?filter[type]=%zz&page[limit]=%'),
    status: 400,
    code: 'NG-FILTER-REQUIRED',
  },
  {
    title: 'a repeated page member',
    parts: getRaw(`${LIST_TARGET}&page[limit]=5&page[offset]=0&page[offset]=5`),
    status: 400,
    code: 'NG-PAGE-NOT-A-NUMBER',
  },
  {
    title: 'the legacy header twice',
    parts: getRaw(LIST_TARGET, [`X-Svc-Session-Token: ${TOKEN}`, `X-Svc-Session-Token: ${TOKEN}`]),
    status: 401,
    code: 'AUTH-401-UNKNOWN-TOKEN',
  },
  {
    title: 'Authorization twice, the first valid',
    parts: getRaw(LIST_TARGET, [`Authorization: Bearer r:${TOKEN}`, 'Authorization: Bearer r:other']),
    status: 200,
  },
  {
    title: 'Authorization with trailing garbage',
    parts: getRaw(LIST_TARGET, [`Authorization: Bearer r:${TOKEN} extra`]),
    status: 401,
    code: 'AUTH-401-MALFORMED',
  },
  {
    title: 'Expect: 100-continue with a declared size above the limit',
    parts: [
      head('POST /v3/highlights HTTP/1.1', [
        `Authorization: Bearer r:${TOKEN}`,
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
    parts: postRaw('/attribute-configs', JSON.stringify(completeDocumentOf('createAttributeConfig')), [
      'Expect: 100-continue',
    ]),
    status: 201,
  },
];

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

  for (const c of ODD_CASES) {
    it(`${c.title}: ${c.status}${c.code ? ` ${c.code}` : ''}, a JSON:API document`, async () => {
      expectJsonApi(await rawExchange(server.port, c.parts), c.status, c.code);
    });
  }

  const hangUps = [
    {
      title: 'a client that hangs up halfway through a body',
      parts: [
        head('POST /v3/highlights HTTP/1.1', [
          `Authorization: Bearer r:${TOKEN}`,
          `Content-Type: ${MEDIA_TYPE}`,
          'Content-Length: 1000',
        ]),
        '{"data":',
      ],
    },
    {
      title: 'a client that hangs up halfway through a chunk',
      parts: [
        head('POST /v3/highlights HTTP/1.1', [`Authorization: Bearer r:${TOKEN}`, 'Transfer-Encoding: chunked']),
        '100\r\n{"da',
      ],
    },
    {
      title: 'a client that hangs up halfway through the headers',
      parts: ['GET /v3/notification-groups HTTP/1.1\r\nAuthor'],
    },
  ];
  for (const c of hangUps) {
    it(`${c.title} leaves the server serving`, async () => {
      await rawExchange(server.port, c.parts, { hangUp: true });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const after = await send(server.baseUrl, {
        method: 'GET',
        path: '/notification-groups?filter[type]=user',
        headers: { authorization: `Bearer r:${TOKEN}` },
      });
      expect(after.response.status).toBe(200);
    });
  }
});

describe('the request log', () => {
  it('has one JSON line per request with method, masked path, status and ms, and never a token', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const server = await startReferenceServer({ logger });
    try {
      const headers = { authorization: `Bearer r:${TOKEN}` };
      await send(server.baseUrl, {
        method: 'GET',
        path: `/notification-groups?filter[type]=portal&access_token=${TOKEN}&other=${TOKEN}`,
        headers,
      });
      await send(server.baseUrl, {
        method: 'POST',
        path: '/highlights',
        headers: { [loadContract().legacyHeader]: DEFAULT_CREDENTIALS.forbiddenToken, 'content-type': MEDIA_TYPE },
        body: '{}',
      });
      await send(server.baseUrl, {
        method: 'GET',
        path: '/notification-groups',
        headers: { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` },
      });
    } finally {
      await server.close();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.method, r.status])).toEqual([
      ['GET', 200],
      ['POST', 403],
      ['GET', 400],
    ]);
    expect(records[0].path).toBe('/v3/notification-groups?filter[type]=portal&access_token=***&other=***');
    for (const record of records) expect(typeof record.ms).toBe('number');
    const text = lines.join('');
    for (const token of Object.values(DEFAULT_CREDENTIALS)) expect(text).not.toContain(token);
  });
});
