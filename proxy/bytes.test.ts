// Report mode changes no byte of a response: each case is answered by a deterministic upstream,
// fetched once directly and once through the proxy, and the end-to-end hashes must match. Answers
// to a list or a create are to those of the contract's, skipped when it holds none of that kind.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { withValueAt, type Operation } from '../contract/index.ts';
import {
  create,
  describeWith,
  documentExample,
  itemTypeBreak,
  itWith,
  list,
  listPage,
  listQuery,
  requestPath,
} from '../contract/test-support.ts';
import type { ViolationRecord } from './violations.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { exchangeHash, Recorder, send, startUpstream, type RawRequest, type TestServer } from './test-support.ts';

const MAX_BODY = 4096;
const MEDIA_TYPE = 'application/vnd.api+json';
const LIST = 'list';
const CREATE = 'create';
/** A page of the list: `count` items of its example, the first with an attribute of a wrong type when `broken`. */
function listDocument(list: Operation, count: number, broken = false): string {
  const { pointer, value } = itemTypeBreak(list);
  const data = listPage(list, count).data.map((item, i) =>
    broken && i === 0 ? withValueAt(item, pointer, value) : item,
  );
  return JSON.stringify({ data });
}
const largeBinary = randomBytes(64 * 1024);
/** A page of the list well above the proxy's body limit. */
const largeJson = (list: Operation) => {
  const one = listDocument(list, 1).length;
  return listDocument(list, Math.ceil((6 * MAX_BODY) / one));
};

type Respond = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

interface ByteCase {
  name: string;
  path: string;
  request?: RawRequest;
  respond: Respond;
}

function fixed(status: number, headers: Record<string, string | string[]>, body: Buffer | string): Respond {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

function chunked(status: number, headers: Record<string, string>, body: Buffer, pieces: number): Respond {
  return (_req, res) => {
    res.writeHead(status, headers);
    const size = Math.ceil(body.length / pieces);
    for (let offset = 0; offset < body.length; offset += size) res.write(body.subarray(offset, offset + size));
    res.end();
  };
}

/** Answers to a list of the contract's, asked for as it takes them. */
function listByteCases(list: Operation): ByteCase[] {
  const path = requestPath(list, listQuery(list));
  const small = listDocument(list, 1);
  const large = largeJson(list);
  return [
    {
      name: 'a list document with content-length',
      path,
      respond: fixed(200, { 'Content-Type': MEDIA_TYPE, 'Content-Length': String(Buffer.byteLength(small)) }, small),
    },
    {
      name: 'a chunked list document',
      path,
      respond: chunked(200, { 'Content-Type': MEDIA_TYPE }, Buffer.from(large), 7),
    },
    {
      name: 'a gzip body with content-length',
      path,
      respond: fixed(
        200,
        { 'Content-Type': MEDIA_TYPE, 'Content-Encoding': 'gzip', 'Content-Length': String(gzipSync(small).length) },
        gzipSync(small),
      ),
    },
    {
      name: 'a chunked gzip body',
      path,
      respond: chunked(200, { 'Content-Type': MEDIA_TYPE, 'Content-Encoding': 'gzip' }, gzipSync(large), 5),
    },
    {
      name: 'a deflate body',
      path,
      respond: fixed(200, { 'Content-Type': MEDIA_TYPE, 'Content-Encoding': 'deflate' }, deflateSync(small)),
    },
    {
      name: 'a brotli body',
      path,
      respond: fixed(200, { 'Content-Type': MEDIA_TYPE, 'Content-Encoding': 'br' }, brotliCompressSync(small)),
    },
    {
      name: 'a JSON body above --max-body with content-length',
      path,
      respond: fixed(200, { 'Content-Type': MEDIA_TYPE, 'Content-Length': String(Buffer.byteLength(large)) }, large),
    },
    {
      name: 'HEAD with a content-length',
      path,
      request: { method: 'HEAD' },
      respond: fixed(200, { 'Content-Type': MEDIA_TYPE, 'Content-Length': '1234' }, ''),
    },
  ];
}

/** A create of the contract's, its request document echoed. */
const createByteCase = (create: Operation): ByteCase => ({
  name: 'an echoed request body',
  path: requestPath(create),
  request: {
    method: 'POST',
    headers: { 'content-type': MEDIA_TYPE, authorization: 'Bearer p:abc' },
    body: JSON.stringify(documentExample(create)),
  },
  respond: (req, res, body) => {
    res.writeHead(201, { 'Content-Type': MEDIA_TYPE, 'X-Seen-Length': String(body.length) });
    res.end(body);
  },
});

/** Answers outside the contract's operations. */
const otherByteCases: ByteCase[] = [
  {
    name: 'a binary body above --max-body, chunked',
    path: '/v3/files/1',
    respond: chunked(200, { 'Content-Type': 'application/octet-stream' }, largeBinary, 9),
  },
  {
    name: '204 without a body',
    path: '/v3/marketing-consent/1',
    request: { method: 'DELETE', headers: { authorization: 'Bearer r:abc' } },
    respond: fixed(204, { 'X-Trace': 'one' }, ''),
  },
  {
    name: 'repeated headers, mixed case and a custom reason phrase',
    path: '/v3/users',
    respond: (_req, res) => {
      res.statusMessage = 'Quite Fine';
      res.writeHead(
        200,
        [
          ['Set-Cookie', 'a=1'],
          ['set-cookie', 'b=2'],
          ['X-MiXeD-CaSe', 'v'],
          ['Content-Type', MEDIA_TYPE],
        ].flat(),
      );
      res.end('{"data":[]}');
    },
  },
  {
    name: 'a 404 in plain text',
    path: '/v3/nowhere',
    respond: fixed(404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'not here\n'),
  },
  {
    name: 'an echoed request body above --max-body',
    path: '/v3/uploads',
    request: { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: largeBinary },
    respond: (req, res, body) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'X-Seen-Length': String(body.length) });
      res.end(body);
    },
  },
];

const withList = itWith(list, LIST);

let upstream: TestServer;
let proxy: StartedProxy;
const violations = new Recorder();
const responders = new Map<string, Respond>();

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.sendDate = false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => responders.get(String(req.headers['x-case']))!(req, res, Buffer.concat(chunks)));
  });
  // Every finding written (no folding of repeats): each case reads what its own exchange found.
  proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    maxBody: MAX_BODY,
    violations,
    repeatInterval: 0,
  });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** The case's answer fetched directly and through the proxy: the same bytes. */
function relaysByteForByte(c: ByteCase): void {
  test(c.name, async () => {
    responders.set(c.name, c.respond);
    const request = { ...c.request, headers: { ...c.request?.headers, 'x-case': c.name } };
    const direct = await send(`${upstream.url}${c.path}`, request);
    const proxied = await send(`${proxy.proxyUrl}${c.path}`, request);
    expect(proxied.status).toBe(direct.status);
    expect(proxied.body.length).toBe(direct.body.length);
    expect(exchangeHash(proxied)).toBe(exchangeHash(direct));
  });
}

describe('report mode relays every response byte for byte', () => {
  describeWith(list, LIST)('answers to a list', (list) => listByteCases(list).forEach(relaysByteForByte));
  describeWith(create, CREATE)('answers to a create', (create) => relaysByteForByte(createByteCase(create)));
  describe('answers outside the operations', () => otherByteCases.forEach(relaysByteForByte));
});

describe('the validation tap', () => {
  const encodings: { name: string; headers: Record<string, string>; encode: (text: string) => Buffer }[] = [
    { name: 'identity', headers: {}, encode: (text) => Buffer.from(text) },
    { name: 'gzip', headers: { 'Content-Encoding': 'gzip' }, encode: (text) => gzipSync(text) },
    { name: 'deflate', headers: { 'Content-Encoding': 'deflate' }, encode: (text) => deflateSync(text) },
    { name: 'br', headers: { 'Content-Encoding': 'br' }, encode: (text) => brotliCompressSync(text) },
  ];
  for (const encoding of encodings) {
    withList(`decodes a ${encoding.name} body for validation only`, async (list) => {
      const name = `tap ${encoding.name}`;
      responders.set(
        name,
        fixed(200, { 'Content-Type': MEDIA_TYPE, ...encoding.headers }, encoding.encode(listDocument(list, 1, true))),
      );
      const requestId = `tap-${encoding.name}`;
      await send(`${proxy.proxyUrl}${requestPath(list, listQuery(list))}`, {
        headers: { 'x-case': name, 'x-request-id': requestId, authorization: 'Bearer r:abc' },
      });
      await proxy.proxy.settled();
      expect(
        violations
          .lines<ViolationRecord>()
          .filter((l) => l.requestId === requestId)
          .map((l) => `${l.rule} ${l.direction} ${l.pointer}`),
      ).toEqual([`${list.roles.itemShape} response /data/0${itemTypeBreak(list).pointer}`]);
    });
  }

  // A proxy of its own: the shared one may have logged this INFO observation for the operation already.
  withList('reports a body above --max-body as not validated, once, at INFO', async (list) => {
    const name = 'tap too large';
    responders.set(name, fixed(200, { 'Content-Type': MEDIA_TYPE }, largeJson(list)));
    const log = new Recorder();
    const fresh = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      maxBody: MAX_BODY,
      violations: log,
      repeatInterval: 0,
    });
    try {
      await send(`${fresh.proxyUrl}${requestPath(list, listQuery(list))}`, {
        headers: { 'x-case': name, 'x-request-id': 'tap-large', authorization: 'Bearer r:abc' },
      });
      await fresh.proxy.settled();
      expect(
        log
          .lines()
          .filter((l) => l.requestId === 'tap-large')
          .map((l) => [l.rule, l.level, l.direction, l.message]),
      ).toEqual([
        [
          'PROXY-BODY-NOT-VALIDATED',
          'INFO',
          'response',
          `response body not validated: body larger than ${MAX_BODY} bytes`,
        ],
      ]);
    } finally {
      await fresh.close();
    }
  });

  test('forwards X-Request-Id, generating one when the client sent none', async () => {
    const seen: (string | undefined)[] = [];
    const name = 'request id';
    responders.set(name, (req, res) => {
      seen.push(req.headers['x-request-id'] as string | undefined);
      res.writeHead(204).end();
    });
    await send(`${proxy.baseUrl}/things`, { headers: { 'x-case': name, 'x-request-id': 'given-id' } });
    await send(`${proxy.baseUrl}/things`, { headers: { 'x-case': name } });
    expect(seen[0]).toBe('given-id');
    expect(seen[1]).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('adds X-Forwarded-For, -Proto and -Host only when asked to, keeping the forwarding headers of a trusted peer only', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const name = 'forwarded headers';
    responders.set(name, (req, res) => {
      seen.push(req.headers);
      res.writeHead(204).end();
    });
    const claimed = {
      'x-case': name,
      'x-forwarded-for': '198.51.100.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'claimed.example',
    };
    const forwarding = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      violations: null,
      forwardedHeaders: true,
    });
    const behindTrusted = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      violations: null,
      forwardedHeaders: true,
      trustedProxies: ['127.0.0.0/8'],
    });
    try {
      await send(`${proxy.baseUrl}/things`, { headers: { 'x-case': name } });
      await send(`${forwarding.baseUrl}/things`, { headers: claimed });
      await send(`${behindTrusted.baseUrl}/things`, { headers: claimed });
    } finally {
      await forwarding.close();
      await behindTrusted.close();
    }
    expect(Object.keys(seen[0]).filter((header) => header.startsWith('x-forwarded-'))).toEqual([]);
    expect([seen[1]['x-forwarded-for'], seen[1]['x-forwarded-proto'], seen[1]['x-forwarded-host']]).toEqual([
      '127.0.0.1',
      'http',
      new URL(forwarding.proxyUrl).host,
    ]);
    expect([seen[2]['x-forwarded-for'], seen[2]['x-forwarded-proto'], seen[2]['x-forwarded-host']]).toEqual([
      '198.51.100.1, 127.0.0.1',
      'https',
      'claimed.example',
    ]);
  });

  test('drops hop-by-hop headers and those Connection names, in both directions', async () => {
    let upstreamSaw: IncomingMessage['headers'] = {};
    const name = 'hop by hop';
    responders.set(name, (req, res) => {
      upstreamSaw = req.headers;
      res.writeHead(200, { Connection: 'X-Hop', 'X-Hop': 'drop me', 'X-Keep': 'keep me', 'Content-Length': '0' });
      res.end();
    });
    const proxied = await send(`${proxy.baseUrl}/things`, {
      headers: {
        'x-case': name,
        connection: 'X-Client-Hop',
        'x-client-hop': 'drop',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-client-keep': 'keep',
      },
    });
    expect(upstreamSaw['x-client-hop']).toBeUndefined();
    expect(upstreamSaw['proxy-authorization']).toBeUndefined();
    expect(upstreamSaw['x-client-keep']).toBe('keep');
    expect(proxied.headers['x-hop']).toBeUndefined();
    expect(proxied.headers['x-keep']).toBe('keep me');
  });
});

describe('an upstream with a path prefix', () => {
  withList('gets the prefix before the /v3 root, and the proxy still routes the operation', async (list) => {
    const paths: string[] = [];
    const prefixed = await startUpstream((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': MEDIA_TYPE });
      res.end(listDocument(list, 1, true));
    });
    const log = new Recorder();
    const prefixedProxy = await startValidatingProxy({
      upstream: `${prefixed.url}/api/v3/`,
      violations: log,
      repeatInterval: 0,
    });
    try {
      const path = requestPath(list, listQuery(list));
      await send(`${prefixedProxy.proxyUrl}${path}`, { headers: { authorization: 'Bearer r:abc' } });
      expect(paths).toEqual([`/api${path}`]);
      await prefixedProxy.proxy.settled();
      expect(log.lines<ViolationRecord>().map((l) => `${String(l.operationId)} ${l.rule}`)).toEqual([
        `${list.operationId} ${list.roles.itemShape}`,
      ]);
    } finally {
      await prefixedProxy.close();
      await prefixed.close();
    }
  });
});
