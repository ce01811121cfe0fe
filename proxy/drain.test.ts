// Drain on SIGTERM as load balancers expect (close() is what SIGTERM calls): requests in flight
// on kept-alive connections when the drain starts are answered whole, each answer carries
// `Connection: close`, and no connection takes a request after that answer.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Client } from 'undici';
import { MEDIA_TYPE } from '../contract/index.ts';
import { contract, servedRequest } from '../contract/test-support.ts';
import { startValidatingProxy } from './proxy.ts';
import { eventually, startUpstream, type TestServer } from './test-support.ts';

const BODY = JSON.stringify({ data: [], meta: { padding: 'x'.repeat(256 * 1024) } });
const CONNECTIONS = 6;
/** How long the upstream takes to answer: the drain starts while every request is in flight. */
const UPSTREAM_LATENCY_MS = 300;

let upstream: TestServer;
let forwarded = 0;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    forwarded += 1;
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(BODY) });
      // Written in pieces, so that an answer cut at the drain would show as one.
      const pieces = 8;
      const size = Math.ceil(BODY.length / pieces);
      for (let i = 0; i < pieces; i += 1) res.write(BODY.slice(i * size, (i + 1) * size));
      res.end();
    }, UPSTREAM_LATENCY_MS);
  });
});

afterAll(async () => {
  await upstream?.close();
});

test(`${CONNECTIONS} kept-alive connections each with a request in flight when the drain starts: answered whole with Connection: close, and no connection takes another request`, async () => {
  const proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations: null, drainTimeout: 10_000 });
  const clients = Array.from({ length: CONNECTIONS }, () => new Client(proxy.proxyUrl));
  // Any request of the contract: what is drained does not depend on the operation.
  const served = servedRequest(contract.operations[0]);
  const request = {
    method: served.method as 'GET' | 'POST',
    path: `${contract.basePath}${served.target}`,
    headers: served.headers,
    body: served.body,
  };
  try {
    // Each connection is kept alive by a first exchange, then sends the request the drain finds in flight.
    for (const client of clients) await (await client.request(request)).body.text();
    const before = forwarded;
    const inFlight = clients.map((client) => client.request(request));
    await eventually('every request forwarded', () => (forwarded === before + CONNECTIONS ? true : undefined));
    const drained = proxy.close();
    const answers = await Promise.all(
      inFlight.map(async (pending) => {
        const response = await pending;
        const body = await response.body.text();
        return { whole: body === BODY, connection: response.headers.connection };
      }),
    );
    expect(answers).toEqual(Array.from({ length: CONNECTIONS }, () => ({ whole: true, connection: 'close' })));
    // After its closing answer, a connection takes nothing more: the next request is never forwarded.
    const next = await Promise.allSettled(clients.map((client) => client.request(request).then((r) => r.body.text())));
    expect(next.every((result) => result.status === 'rejected')).toBe(true);
    expect(forwarded).toBe(before + CONNECTIONS);
    await drained;
  } finally {
    await Promise.all(clients.map((client) => client.destroy()));
  }
});
