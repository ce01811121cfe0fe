// Who a request comes from: the socket's peer, unless a peer the operator trusts says who its
// client is. A client that writes its own X-Forwarded-For changes nothing.
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  ClientIdentity,
  clientKey,
  trustedRanges,
  type ClientIdentityOptions,
  type PeerRequest,
} from './client-identity.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, send, startUpstream, type TestServer } from './test-support.ts';

const OFF: ClientIdentityOptions = { forwardedHeaders: false, trustedProxies: ['0.0.0.0/0', '::/0'] };
const NONE_TRUSTED: ClientIdentityOptions = { forwardedHeaders: true, trustedProxies: [] };
const BALANCERS: ClientIdentityOptions = { forwardedHeaders: true, trustedProxies: ['10.0.0.0/8', 'fd00::/8'] };

const cases: { name: string; options: ClientIdentityOptions; request: PeerRequest; client: string }[] = [
  {
    name: "without --forwarded-headers, a direct client's X-Forwarded-For names nobody",
    options: OFF,
    request: { peer: '203.0.113.7', forwardedFor: '198.51.100.1', forwarded: undefined },
    client: '203.0.113.7',
  },
  {
    name: 'without --forwarded-headers, not even a peer in a range given as trusted',
    options: OFF,
    request: { peer: '10.0.0.2', forwardedFor: '198.51.100.1', forwarded: 'for=192.0.2.9' },
    client: '10.0.0.2',
  },
  {
    name: 'with --forwarded-headers, an untrusted peer is its own client',
    options: NONE_TRUSTED,
    request: { peer: '203.0.113.7', forwardedFor: '198.51.100.1', forwarded: undefined },
    client: '203.0.113.7',
  },
  {
    name: 'a trusted balancer names the last address it appended',
    options: BALANCERS,
    request: { peer: '10.0.0.2', forwardedFor: 'forged, 198.51.100.1', forwarded: undefined },
    client: '198.51.100.1',
  },
  {
    name: 'trusted hops at the end of the list are skipped',
    options: BALANCERS,
    request: { peer: '10.0.0.2', forwardedFor: '198.51.100.1, 10.1.2.3', forwarded: undefined },
    client: '198.51.100.1',
  },
  {
    name: 'several X-Forwarded-For headers read as one list',
    options: BALANCERS,
    request: { peer: '10.0.0.2', forwardedFor: ['198.51.100.1', '198.51.100.2'], forwarded: undefined },
    client: '198.51.100.2',
  },
  {
    name: "Forwarded's for= when there is no X-Forwarded-For, its port and brackets left out",
    options: BALANCERS,
    request: {
      peer: '10.0.0.2',
      forwardedFor: undefined,
      forwarded: 'for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711"',
    },
    client: '2001:db8:cafe:0::/64',
  },
  {
    name: 'a trusted balancer that names nobody leaves the peer',
    options: BALANCERS,
    request: { peer: '10.0.0.2', forwardedFor: undefined, forwarded: undefined },
    client: '10.0.0.2',
  },
  {
    name: 'an IPv4 peer mapped into IPv6 is read as IPv4, and trusted as such',
    options: BALANCERS,
    request: { peer: '::ffff:10.0.0.2', forwardedFor: '198.51.100.1', forwarded: undefined },
    client: '198.51.100.1',
  },
  {
    name: 'an IPv6 client is known by its /64',
    options: NONE_TRUSTED,
    request: { peer: '2001:db8:1:2:aaaa::1', forwardedFor: undefined, forwarded: undefined },
    client: '2001:db8:1:2::/64',
  },
];

describe('ClientIdentity.clientOf', () => {
  for (const c of cases) {
    test(c.name, () => {
      expect(new ClientIdentity(c.options).clientOf(c.request)).toBe(c.client);
    });
  }
});

describe('ClientIdentity.trusts', () => {
  test('reads each address the same way after more addresses than it remembers', () => {
    const identity = new ClientIdentity(BALANCERS);
    const asked = Array.from({ length: 3000 }, (_, i) =>
      i % 2 === 0 ? `10.0.${(i >> 8) & 255}.${i & 255}` : `198.51.${(i >> 8) & 255}.${i & 255}`,
    );
    for (let round = 0; round < 2; round += 1) {
      for (const [i, address] of asked.entries()) expect(identity.trusts(address)).toBe(i % 2 === 0);
    }
  });
});

describe('clientKey', () => {
  test('two addresses of one /64 are one client, of two /64s two', () => {
    expect(clientKey('2001:db8::1')).toBe(clientKey('2001:0db8:0:0:ffff::9'));
    expect(clientKey('2001:db8:0:1::1')).not.toBe(clientKey('2001:db8::1'));
  });
});

describe('trustedRanges', () => {
  for (const entry of ['10.0.0.0/33', 'proxy.internal', '10.0.0.0/8/8', '::1/129', '10.0.0.0/x']) {
    test(`refuses "${entry}", naming it`, () => {
      expect(() => trustedRanges([entry])).toThrow(entry);
    });
  }
});

describe('through a live proxy', () => {
  let upstream: TestServer;
  let direct: StartedProxy;
  let forwarding: StartedProxy;

  beforeAll(async () => {
    upstream = await startUpstream(answering(200, '{"data":[]}'));
    direct = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations: null });
    forwarding = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      violations: null,
      forwardedHeaders: true,
      trustedProxies: ['127.0.0.1'],
    });
  });

  afterAll(async () => {
    await direct?.close();
    await forwarding?.close();
    await upstream?.close();
  });

  /** The client each of `count` requests, each with an X-Forwarded-For of its own, was charged as. */
  async function clientsCharged(proxy: StartedProxy, count: number): Promise<string[]> {
    const charged = vi.spyOn(proxy.proxy.budget, 'request');
    try {
      for (let i = 0; i < count; i += 1)
        await send(`${proxy.baseUrl}/unspecified`, { headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } });
      return charged.mock.calls.map(([client]) => client);
    } finally {
      charged.mockRestore();
    }
  }

  test('a new X-Forwarded-For per request is one client without --forwarded-headers', async () => {
    expect(new Set(await clientsCharged(direct, 5))).toEqual(new Set(['127.0.0.1']));
  });

  test('and as many clients as it names from a trusted peer', async () => {
    expect(new Set(await clientsCharged(forwarding, 5)).size).toBe(5);
  });

  test('--trusted-proxies without --forwarded-headers is refused, saying what to add', async () => {
    await expect(
      startValidatingProxy({ upstream: `${upstream.url}/v3`, trustedProxies: ['10.0.0.0/8'] }),
    ).rejects.toThrow(/add --forwarded-headers/);
  });
});
