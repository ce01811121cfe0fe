import { describe, expect, test } from 'vitest';
import { addForwardedHeaders, endToEndHeaders, forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from './headers.ts';

describe('endToEndHeaders', () => {
  for (const name of HOP_BY_HOP_HEADERS) {
    test(`drops ${name}`, () => expect(endToEndHeaders([name, 'x', 'X-Kept', 'y'])).toEqual(['X-Kept', 'y']));
  }

  test('drops the headers Connection names, keeps order, case and repeats of the rest', () => {
    const raw = [
      'Connection',
      'close, X-Private',
      'Set-Cookie',
      'a=1',
      'x-private',
      'p',
      'set-cookie',
      'b=2',
      'Content-Type',
      'text/plain',
    ];
    expect(endToEndHeaders(raw)).toEqual(['Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'Content-Type', 'text/plain']);
  });

  test('drops hop-by-hop names and those Connection names in any case, whether Connection comes first or last', () => {
    const raw = [
      'X-Private',
      'p',
      'KEEP-ALIVE',
      'timeout=5',
      'TE',
      'trailers',
      'Tk',
      '?',
      'Content-Length',
      '2',
      'CONNECTION',
      'Keep-Alive, x-PRIVATE',
    ];
    expect(endToEndHeaders(raw)).toEqual(['Tk', '?', 'Content-Length', '2']);
  });

  test('keeps every other header when Connection lists only hop-by-hop names', () => {
    const raw = [
      Buffer.from('Content-Type'),
      Buffer.from('text/plain'),
      Buffer.from('Connection'),
      Buffer.from('keep-alive'),
      Buffer.from('Keep-Alive'),
      Buffer.from('timeout=5'),
    ];
    expect(endToEndHeaders(raw)).toEqual(['Content-Type', 'text/plain']);
  });

  test('reads raw Buffers as latin1, byte for byte', () => {
    expect(endToEndHeaders([Buffer.from('X-Name'), Buffer.from([0x63, 0x61, 0x66, 0xe9])])).toEqual([
      'X-Name',
      'caf\u00e9',
    ]);
  });
});

describe('forwardedRequestHeaders', () => {
  test('also drops Host and Expect, which the proxy handles itself', () => {
    expect(
      forwardedRequestHeaders(['Host', 'proxy:8080', 'Expect', '100-continue', 'Authorization', 'Bearer r:t']),
    ).toEqual(['Authorization', 'Bearer r:t']);
  });
});

describe('addForwardedHeaders', () => {
  const client = { address: '203.0.113.7', host: 'api.example.com' };
  const cases: {
    name: string;
    given: string[];
    client?: { address: string | undefined; host: string | undefined; encrypted?: boolean };
    trustedPeer?: boolean;
    added: string[];
  }[] = [
    {
      name: 'adds all three to a request that had none',
      given: ['Accept', '*/*'],
      added: [
        'Accept',
        '*/*',
        'X-Forwarded-For',
        '203.0.113.7',
        'X-Forwarded-Proto',
        'http',
        'X-Forwarded-Host',
        'api.example.com',
      ],
    },
    {
      name: 'from a trusted proxy: appends the client to the list it started, and keeps the scheme and host it named',
      given: ['x-forwarded-for', '198.51.100.1', 'X-Forwarded-Proto', 'https', 'x-forwarded-host', 'www.example.com'],
      trustedPeer: true,
      added: [
        'x-forwarded-for',
        '198.51.100.1, 203.0.113.7',
        'X-Forwarded-Proto',
        'https',
        'x-forwarded-host',
        'www.example.com',
      ],
    },
    {
      name: "from any other peer: replaces the forwarding headers it wrote (Forwarded too) with the proxy's own",
      given: [
        'x-forwarded-for',
        '198.51.100.1',
        'X-Forwarded-Proto',
        'https',
        'Accept',
        '*/*',
        'x-forwarded-host',
        'www.example.com',
        'Forwarded',
        'for=192.0.2.1;proto=https',
      ],
      added: [
        'Accept',
        '*/*',
        'X-Forwarded-For',
        '203.0.113.7',
        'X-Forwarded-Proto',
        'http',
        'X-Forwarded-Host',
        'api.example.com',
      ],
    },
    {
      name: 'names https when the client reached the proxy over TLS',
      given: [],
      client: { ...client, encrypted: true },
      added: ['X-Forwarded-For', '203.0.113.7', 'X-Forwarded-Proto', 'https', 'X-Forwarded-Host', 'api.example.com'],
    },
    {
      name: 'names an unknown client and leaves out a missing host',
      given: [],
      client: { address: undefined, host: undefined },
      added: ['X-Forwarded-For', 'unknown', 'X-Forwarded-Proto', 'http'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const headers = [...c.given];
      addForwardedHeaders(headers, c.client ?? client, c.trustedPeer);
      expect(headers).toEqual(c.added);
    });
  }
});
