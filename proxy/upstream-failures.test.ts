// An upstream that is down, slow, resets or talks garbage gets the client a JSON:API 502 or 504
// (or, once the response has started, a cut connection), and the proxy keeps serving.
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startValidatingProxy, type ProxyMode, type StartedProxy } from './proxy.ts';
import { send, startRawUpstream } from './test-support.ts';

const TIMEOUT_MS = 300;
const okResponse = 'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.api+json\r\nContent-Length: 11\r\n\r\n{"data":[]}';

/** A raw TCP upstream whose behaviour is chosen by the request path. */
const behaviours: Record<string, (socket: Socket) => void> = {
  '/v3/ok': (socket) => socket.write(okResponse),
  '/v3/garbage': (socket) => socket.end('THIS IS NOT HTTP\r\n\r\n'),
  '/v3/reset': (socket) => socket.destroy(),
  '/v3/reset-mid-body': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/vnd.api+json\r\nContent-Length: 1000\r\n\r\n{"data":[');
    setTimeout(() => socket.destroy(), 20);
  },
  '/v3/slow': () => undefined,
  '/v3/stall-mid-body': (socket) =>
    socket.write(
      'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.api+json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"da\r\n',
    ),
};

interface FailureCase {
  name: string;
  path: string;
  /** The status the client gets, or 'cut' when the response had started and the connection is destroyed. */
  outcome: number | 'cut';
  code?: string;
  kind: string;
}

const failureCases: FailureCase[] = [
  { name: 'garbage instead of HTTP', path: '/garbage', outcome: 502, code: 'PROXY-UPSTREAM-INVALID', kind: 'invalid' },
  { name: 'a reset before any byte', path: '/reset', outcome: 502, code: 'PROXY-UPSTREAM-RESET', kind: 'reset' },
  {
    name: 'no answer within the timeout',
    path: '/slow',
    outcome: 504,
    code: 'PROXY-UPSTREAM-TIMEOUT',
    kind: 'timeout',
  },
  { name: 'a reset in the middle of the body', path: '/reset-mid-body', outcome: 'cut', kind: 'reset' },
  { name: 'a stall in the middle of the body', path: '/stall-mid-body', outcome: 'cut', kind: 'timeout' },
];

let raw: Awaited<ReturnType<typeof startRawUpstream>>;
const proxies: Partial<Record<ProxyMode, StartedProxy>> = {};

beforeAll(async () => {
  raw = await startRawUpstream((socket, head) => (behaviours[head.split(' ')[1]] ?? behaviours['/v3/garbage'])(socket));
  for (const mode of ['report', 'enforce'] as const) {
    proxies[mode] = await startValidatingProxy({
      upstream: `http://127.0.0.1:${raw.port}/v3`,
      mode,
      upstreamTimeout: TIMEOUT_MS,
    });
  }
});

afterAll(async () => {
  for (const proxy of Object.values(proxies)) await proxy?.close();
  await raw?.close();
});

async function upstreamErrors(proxy: StartedProxy, kind: string): Promise<number> {
  const metric = await proxy.proxy.metrics.upstreamErrors.get();
  return metric.values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

for (const mode of ['report', 'enforce'] as const) {
  describe(`${mode} mode, an upstream that fails`, () => {
    for (const c of failureCases) {
      test(`${c.name}: ${c.outcome === 'cut' ? 'the client connection is cut' : `answered ${c.outcome}`}, and the proxy keeps serving`, async () => {
        const proxy = proxies[mode]!;
        const errorsBefore = await upstreamErrors(proxy, c.kind);
        const headers = { authorization: 'Bearer r:abc' };
        if (c.outcome === 'cut') {
          // In enforce mode a body within --max-body is held until judged, so the client gets 502/504 instead.
          const answer = send(`${proxy.baseUrl}${c.path}`, { headers });
          if (mode === 'report') await expect(answer).rejects.toThrow();
          else expect((await answer).status).toBe(c.kind === 'timeout' ? 504 : 502);
        } else {
          const response = await send(`${proxy.baseUrl}${c.path}`, { headers });
          expect(response.status).toBe(c.outcome);
          expect(response.headers['content-type']).toBe('application/vnd.api+json');
          const document = JSON.parse(response.body.toString()) as { errors: { status: string; code: string }[] };
          expect(document.errors).toEqual([expect.objectContaining({ status: String(c.outcome), code: c.code })]);
        }
        expect(await upstreamErrors(proxy, c.kind)).toBe(errorsBefore + 1);
        const next = await send(`${proxy.baseUrl}/ok`, { headers });
        expect(next.status).toBe(200);
        expect(next.body.toString()).toBe('{"data":[]}');
      });
    }
  });
}

test('an upstream that is down: 502 unreachable, and /readyz says not ready', async () => {
  const closed = createTcpServer();
  const port = await new Promise<number>((resolve) =>
    closed.listen(0, '127.0.0.1', () => resolve((closed.address() as AddressInfo).port)),
  );
  await new Promise((resolve) => closed.close(resolve));
  const proxy = await startValidatingProxy({ upstream: `http://127.0.0.1:${port}/v3`, upstreamTimeout: TIMEOUT_MS });
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await send(`${proxy.baseUrl}/ok`);
      expect(response.status).toBe(502);
      expect((JSON.parse(response.body.toString()) as { errors: { code: string }[] }).errors[0].code).toBe(
        'PROXY-UPSTREAM-UNREACHABLE',
      );
    }
    expect((await send(`${proxy.adminUrl}/readyz`)).status).toBe(503);
    expect((await send(`${proxy.adminUrl}/healthz`)).status).toBe(200);
  } finally {
    await proxy.close();
  }
});
