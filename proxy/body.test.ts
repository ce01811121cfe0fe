import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { BodyTap, decodeBody } from './body.ts';

const text = JSON.stringify({ data: [] });

describe('decodeBody', () => {
  const cases: { coding: string | undefined; raw: Buffer }[] = [
    { coding: undefined, raw: Buffer.from(text) },
    { coding: 'identity', raw: Buffer.from(text) },
    { coding: 'gzip', raw: gzipSync(text) },
    { coding: 'x-gzip', raw: gzipSync(text) },
    { coding: 'deflate', raw: deflateSync(text) },
    { coding: 'deflate', raw: deflateRawSync(text) },
    { coding: 'br', raw: brotliCompressSync(text) },
    { coding: 'gzip, br', raw: brotliCompressSync(gzipSync(text)) },
  ];
  for (const c of cases) test(`undoes ${c.coding ?? 'no coding'}`, () => expect(decodeBody(c.raw, c.coding, 1024)).toEqual({ ok: true, text }));

  test('stops at the limit once decoded', () => {
    expect(decodeBody(gzipSync('x'.repeat(10_000)), 'gzip', 1024)).toEqual({ ok: false, reason: 'body larger than 1024 bytes once decoded', cause: 'size' });
  });

  test('names a coding it cannot undo, and a body that is not what it claims', () => {
    expect(decodeBody(Buffer.from(text), 'zstd', 1024)).toEqual({ ok: false, reason: 'content coding zstd is not one the proxy decodes', cause: 'coding' });
    expect(decodeBody(Buffer.from(text), 'gzip', 1024)).toEqual({ ok: false, reason: 'the gzip body could not be decoded', cause: 'coding' });
  });
});

describe('BodyTap', () => {
  test('keeps the bytes within the limit and forgets them past it', () => {
    const tap = new BodyTap(4);
    tap.add(Buffer.from('ab'));
    tap.add(Buffer.from('cd'));
    expect(tap.bytes().toString()).toBe('abcd');
    tap.add(Buffer.from('e'));
    expect({ overflowed: tap.overflowed, size: tap.size }).toEqual({ overflowed: true, size: 5 });
  });
});
