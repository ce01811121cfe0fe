// How the proxy relays what HTTP allows an upstream to send besides one plain final answer: an
// early final answer while the request body is still arriving, a reason phrase in any bytes,
// interim (1xx) answers, and a 204 that carries bytes it must not.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { MEDIA_TYPE } from '../contract/index.ts';
import { create, itWith } from '../contract/test-support.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer } from '../server/index.ts';
import { Recorder, send, startRawUpstream } from './test-support.ts';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
});

/** An upstream that answers each connection with `reply` (raw bytes), closed after the test. */
async function rawUpstream(reply: (socket: Socket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = await startRawUpstream(reply);
  opened.push(upstream);
  return upstream;
}

async function proxyTo(upstreamBase: string, mode: 'report' | 'enforce', maxBody?: number): Promise<StartedProxy> {
  const proxy = await startValidatingProxy({ upstream: upstreamBase, mode, violations: new Recorder(), maxBody });
  opened.push(proxy);
  return proxy;
}

/**
 * Sends a raw request on its own connection and returns every byte answered until the connection closes or `until`
 * matches.
 */
function rawExchange(url: string, request: Buffer | string, until: RegExp, timeoutMs = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (until.test(received)) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(request);
  });
}

// Outside the contract's root: what is relayed here is HTTP, not a document enforce mode would judge.
const OUTSIDE = '/status';

for (const mode of ['report', 'enforce'] as const) {
  describe(`${mode} mode`, () => {
    test('a reason phrase in UTF-8 reaches the client as the same bytes', async () => {
      const phrase = Buffer.from('Tout va très bien', 'utf8');
      const upstream = await rawUpstream((socket) =>
        socket.end(
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 '),
            phrase,
            Buffer.from(
              '\r\ncontent-type: application/vnd.api+json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"data":[]}',
            ),
          ]),
        ),
      );
      const proxy = await proxyTo(`${upstream.url}/v3`, mode);
      const answer = await rawExchange(
        proxy.baseUrl,
        `GET ${OUTSIDE} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
        /\{"data":\[\]\}/,
      );
      expect(answer.split('\r\n')[0]).toBe(`HTTP/1.1 200 ${phrase.toString('latin1')}`);
    });

    test('an interim 100 Continue the client did not ask for does not turn the answer into 502', async () => {
      const upstream = await rawUpstream((socket) =>
        socket.end(
          'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/vnd.api+json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"data":[]}',
        ),
      );
      const proxy = await proxyTo(`${upstream.url}/v3`, mode);
      const response = await send(`${proxy.proxyUrl}${OUTSIDE}`);
      expect(response.status).toBe(200);
      expect(response.body.toString()).toBe('{"data":[]}');
    });

    test('a 204 that carries a body: the client gets the 204 without it, and its connection stays usable', async () => {
      const upstream = await rawUpstream((socket) =>
        socket.end('HTTP/1.1 204 No Content\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello'),
      );
      const proxy = await proxyTo(`${upstream.url}/v3`, mode);
      const answer = await rawExchange(
        proxy.baseUrl,
        `GET ${OUTSIDE} HTTP/1.1\r\nhost: x\r\n\r\nGET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
        /HTTP\/1\.1 [0-9]{3}[^]*HTTP\/1\.1 [0-9]{3}/,
      );
      expect(answer.startsWith('HTTP/1.1 204')).toBe(true);
      expect(answer).not.toContain('hello');
      expect(answer.match(/HTTP\/1\.1 [0-9]{3}/g)?.length).toBe(2);
    });
  });
}

// Enforce mode reads the whole body before forwarding it, so only report mode streams a body an upstream may answer
// early.
itWith(create, 'create')(
  "the reference server's 413 to a body still arriving reaches the client, every time",
  async (create) => {
    const upstream = await startReferenceServer();
    opened.push(upstream);
    const proxy = await proxyTo(upstream.baseUrl, 'report');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const body = Buffer.alloc(4 * 1024 * 1024, 0x20);
      const response = await send(`${proxy.baseUrl}${create.pathTemplate}`, {
        method: 'POST',
        headers: { 'content-type': MEDIA_TYPE, authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` },
        body,
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([413, 413, 413, 413, 413, 413]);
  },
);
