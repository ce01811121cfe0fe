import { describe, expect, test } from 'vitest';
import { endToEndHeaders, forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from './headers.ts';

describe('endToEndHeaders', () => {
  for (const name of HOP_BY_HOP_HEADERS) {
    test(`drops ${name}`, () => expect(endToEndHeaders([name, 'x', 'X-Kept', 'y'])).toEqual(['X-Kept', 'y']));
  }

  test('drops the headers Connection names, keeps order, case and repeats of the rest', () => {
    const raw = ['Connection', 'close, X-Private', 'Set-Cookie', 'a=1', 'x-private', 'p', 'set-cookie', 'b=2', 'Content-Type', 'text/plain'];
    expect(endToEndHeaders(raw)).toEqual(['Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'Content-Type', 'text/plain']);
  });

  test('reads raw Buffers as latin1, byte for byte', () => {
    expect(endToEndHeaders([Buffer.from('X-Name'), Buffer.from([0x63, 0x61, 0x66, 0xe9])])).toEqual(['X-Name', 'caf\u00e9']);
  });
});

describe('forwardedRequestHeaders', () => {
  test('also drops Host and Expect, which the proxy handles itself', () => {
    expect(forwardedRequestHeaders(['Host', 'proxy:8080', 'Expect', '100-continue', 'Authorization', 'Bearer r:t'])).toEqual(['Authorization', 'Bearer r:t']);
  });
});
