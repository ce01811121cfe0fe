// No credential the proxy was sent appears in anything it wrote: violations, logs, metrics, the
// dashboard's state and event stream, or the Las-Violations header. The requests go to a list and a
// create of the contract's, or outside it when it holds none of that kind: the proxy redacts any request alike.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Operation } from '../contract/index.ts';
import { contract, create, documentExample, list, listQuery, requestPath } from '../contract/test-support.ts';
import { createProxyLogger } from './logger.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from './test-support.ts';

const secrets = {
  session: 'sess-7f3a9c1e5b2d4f60a8e1',
  pat: 'pat-0c4b8e2a6d1f3957b2c4',
  legacy: 'legacy-9d2e4a6c8b0f1357e9a2',
  malformed: 'basic-4e6a8c0b2d4f6a8c0e2b',
  accessToken: 'qs-access-1b3d5f7a9c2e4b6d8f0a',
  apiKey: 'qs-apikey-2c4e6a8b0d1f3a5c7e9b',
  password: 'qs-password-3d5f7b9a1c3e5a7c9e1d',
  proxyAuthorization: 'proxyauth-5a7c9e1b3d5f7a9c1e3b',
  cookie: 'cookie-6b8d0f2a4c6e8a0c2e4d',
};

/** Where a request goes: `operation` when the contract holds one of its kind; the proxy redacts any path alike. */
const pathTo = (operation: Operation | undefined, query = '') =>
  operation
    ? requestPath(operation, query)
    : `${contract.basePath}/outside-the-contract${query === '' ? '' : `?${query}`}`;
const listing = (query: string) => pathTo(list, [list ? listQuery(list) : '', query].filter((p) => p !== '').join('&'));

const requests: { path: string; method?: string; headers: Record<string, string>; body?: string }[] = [
  {
    path: listing(`access_token=${secrets.accessToken}`),
    headers: { authorization: `Bearer r:${secrets.session}` },
  },
  {
    path: listing(`page[limit]=0&page[offset]=0&api_key=${secrets.apiKey}`),
    headers: { authorization: `Bearer p:${secrets.pat}` },
  },
  {
    path: pathTo(create),
    method: 'POST',
    headers: { 'x-svc-session-token': secrets.legacy, 'content-type': 'text/plain', cookie: `sid=${secrets.cookie}` },
    body: JSON.stringify(create ? documentExample(create) : {}),
  },
  {
    path: pathTo(create),
    method: 'POST',
    headers: { authorization: `Basic ${secrets.malformed}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify(create ? documentExample(create) : {}).slice(0, -10),
  },
  {
    path: `${contract.basePath}/reset?Password=${secrets.password}`,
    headers: {
      authorization: `Bearer r:${secrets.session}`,
      'proxy-authorization': `Basic ${secrets.proxyAuthorization}`,
    },
  },
];

let upstream: TestServer;
const proxies: StartedProxy[] = [];
const written: Recorder[] = [];

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    if (req.url?.startsWith('/v3/reset')) return req.socket.destroy();
    req.resume();
    // A broken upstream: 200 for everything, echoing nothing of the request.
    res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
    res.end('{"data":[{"id":1}]}');
  });
  for (const mode of ['report', 'enforce'] as const) {
    const violations = new Recorder();
    const log = new Recorder();
    written.push(violations, log);
    proxies.push(
      await startValidatingProxy({
        upstream: `${upstream.url}/v3`,
        mode,
        violations,
        violationsHeader: true,
        logger: createProxyLogger(log, 'debug'),
      }),
    );
  }
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await upstream?.close();
});

test('no credential appears in violations, logs, metrics, dashboard or headers', async () => {
  const seen: string[] = [];
  for (const proxy of proxies) {
    const events = new AbortController();
    const stream = await fetch(`${proxy.adminUrl}/events`, { signal: events.signal });
    const reader = stream.body!.getReader();
    for (const request of requests) {
      const { path, ...options } = request;
      const response = await send(`${proxy.proxyUrl}${path}`, options);
      seen.push(JSON.stringify(response.headers));
    }
    await proxy.proxy.settled();
    // The dashboard pushes a snapshot at connect time and again after the findings.
    let streamed = '';
    while (!streamed.includes('AUTH-401-MALFORMED')) streamed += new TextDecoder().decode((await reader.read()).value);
    events.abort();
    seen.push(streamed);
    for (const path of ['/metrics', '/summary.json'])
      seen.push((await send(`${proxy.adminUrl}${path}`)).body.toString());
  }
  for (const proxy of proxies) await proxy.close();
  seen.push(...written.map((recorder) => recorder.text()));

  const everything = seen.join('\n');
  // The scan is only meaningful if the proxy wrote about these very exchanges.
  expect(everything).toContain('RES-ID-STRING');
  expect(everything).toContain('access_token=***');
  expect(everything).toContain('Password=***');
  expect(everything).toContain('upstream failed');
  for (const [name, secret] of Object.entries(secrets))
    expect(everything.includes(secret), `${name} leaked`).toBe(false);
});
