// An https upstream: forwarded byte for byte and judged when its certificate is trusted
// (--upstream-ca), refused with a 502 naming the untrusted certificate when it is not.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MEDIA_TYPE } from '../contract/index.ts';
import { startValidatingProxy, type ValidatingProxyOptions } from './proxy.ts';
import { exchangeHash, Recorder, send } from './test-support.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
// A self-signed certificate for 127.0.0.1 and localhost, valid until 2126, used by tests only.
const certificate = fixture('test-upstream.cert.pem');
const key = fixture('test-upstream.key.pem');

const brokenList = JSON.stringify({
  data: [
    {
      id: '5f1d7c2e9b1e8a0012345678',
      type: 'NotificationGroup',
      attributes: { groupId: 'Exams', label: 'l', defaultValue: 'yes', description: 'd' },
    },
  ],
  meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 10 },
});
const listPath = '/notification-groups?filter[type]=portal&page[limit]=10&page[offset]=0';
const session = { authorization: 'Bearer r:https-token' };

let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer({ key, cert: certificate }, (req, res) => {
    req.resume();
    res.sendDate = false;
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end(brokenList);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}/v3`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function throughProxy(options: Partial<ValidatingProxyOptions>) {
  const violations = new Recorder();
  const proxy = await startValidatingProxy({ upstream: upstreamUrl, violations, ...options });
  try {
    const response = await send(`${proxy.baseUrl}${listPath}`, { headers: session });
    await proxy.proxy.settled();
    const upstreamErrors = (await proxy.proxy.metrics.upstreamErrors.get()).values.map(
      (v) => `${v.labels.kind} ${v.value}`,
    );
    return { response, findings: violations.lines(), upstreamErrors };
  } finally {
    await proxy.close();
  }
}

test('an https upstream whose certificate is trusted is forwarded byte for byte and judged', async () => {
  const direct = await send(`${upstreamUrl}${listPath}`, { headers: session, ca: certificate });
  const proxied = await throughProxy({ upstreamCa: certificate });
  expect(proxied.response.status).toBe(200);
  expect(exchangeHash(proxied.response)).toBe(exchangeHash(direct));
  expect(proxied.findings).toEqual([
    expect.objectContaining({ direction: 'response', pointer: '/data/0/attributes/defaultValue', level: 'MUST' }),
  ]);
  expect(proxied.upstreamErrors).toEqual([]);
});

test('an https upstream whose certificate is not trusted gets a 502 naming the certificate, and nothing is judged', async () => {
  const proxied = await throughProxy({});
  expect(proxied.response.status).toBe(502);
  expect(JSON.parse(proxied.response.body.toString('utf8'))).toEqual({
    errors: [expect.objectContaining({ status: '502', code: 'PROXY-UPSTREAM-UNTRUSTED' })],
  });
  expect(proxied.findings).toEqual([]);
  expect(proxied.upstreamErrors).toEqual(['untrusted 1']);
});

test('with a certificate and key, the proxy serves its clients over https (the admin server stays http)', async () => {
  const proxy = await startValidatingProxy({
    upstream: upstreamUrl,
    upstreamCa: certificate,
    violations: new Recorder(),
    forwardedHeaders: true,
    tls: { cert: certificate, key },
  });
  try {
    expect(proxy.baseUrl.startsWith('https://')).toBe(true);
    expect(proxy.adminUrl.startsWith('http://')).toBe(true);
    const direct = await send(`${upstreamUrl}${listPath}`, { headers: session, ca: certificate });
    const proxied = await send(`${proxy.baseUrl}${listPath}`, { headers: session, ca: certificate });
    expect(exchangeHash(proxied)).toBe(exchangeHash(direct));
    await expect(send(`${proxy.baseUrl}${listPath}`, { headers: session })).rejects.toThrow(/self.signed|certificate/i);
  } finally {
    await proxy.close();
  }
});
