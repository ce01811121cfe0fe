// An https upstream: forwarded byte for byte and judged when its certificate is trusted
// (--upstream-ca), refused with a 502 naming the untrusted certificate when it is not.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { listItemAttributes, MEDIA_TYPE, type Operation } from '../contract/index.ts';
import { credentials, itWith, list, listPage, listTarget } from '../contract/test-support.ts';
import { startValidatingProxy, type ValidatingProxyOptions } from './proxy.ts';
import { exchangeHash, Recorder, send } from './test-support.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
// A self-signed certificate for 127.0.0.1 and localhost, valid until 2126, used by tests only.
const certificate = fixture('test-upstream.cert.pem');
const key = fixture('test-upstream.key.pem');

/** The first attribute of a list's items whose type is not string. */
const typedAttribute = (list: Operation) =>
  listItemAttributes(list).find((a) => typeof a.schema.type === 'string' && a.schema.type !== 'string')!.name;
/** A page of a list whose one item has a string for that attribute: one MUST finding of the response. */
function brokenPage(list: Operation): string {
  const page = listPage(list);
  const item = page.data[0] as { attributes: Record<string, unknown> };
  item.attributes = { ...item.attributes, [typedAttribute(list)]: 'yes' };
  return JSON.stringify(page);
}
const listPath = list === undefined ? '' : listTarget(list, { limit: 10, offset: 0 });
const session = credentials;
const withList = itWith(list, 'list');

let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer({ key, cert: certificate }, (req, res) => {
    req.resume();
    res.sendDate = false;
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end(list === undefined ? '{"data":[]}' : brokenPage(list));
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

withList('an https upstream whose certificate is trusted is forwarded byte for byte and judged', async (list) => {
  const direct = await send(`${upstreamUrl}${listPath}`, { headers: session, ca: certificate });
  const proxied = await throughProxy({ upstreamCa: certificate });
  expect(proxied.response.status).toBe(200);
  expect(exchangeHash(proxied.response)).toBe(exchangeHash(direct));
  expect(proxied.findings).toEqual([
    expect.objectContaining({
      direction: 'response',
      pointer: `/data/0/attributes/${typedAttribute(list)}`,
      level: 'MUST',
    }),
  ]);
  expect(proxied.upstreamErrors).toEqual([]);
});

withList(
  'an https upstream whose certificate is not trusted gets a 502 naming the certificate, and nothing is judged',
  async () => {
    const proxied = await throughProxy({});
    expect(proxied.response.status).toBe(502);
    expect(JSON.parse(proxied.response.body.toString('utf8'))).toEqual({
      errors: [expect.objectContaining({ status: '502', code: 'PROXY-UPSTREAM-UNTRUSTED' })],
    });
    expect(proxied.findings).toEqual([]);
    expect(proxied.upstreamErrors).toEqual(['untrusted 1']);
  },
);

withList(
  'with a certificate and key, the proxy serves its clients over https (the admin server stays http)',
  async () => {
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
      await expect(send(`${proxy.baseUrl}${listPath}`, { headers: session })).rejects.toThrow(
        /self.signed|certificate/i,
      );
    } finally {
      await proxy.close();
    }
  },
);
