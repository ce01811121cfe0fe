import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { BodyTap, brotliStreamStart, CONTENT_CODINGS_MAX, decodeBody, narrowedBrotliWindow } from './body.ts';

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
  for (const c of cases)
    test(`undoes ${c.coding ?? 'no coding'}`, () =>
      expect(decodeBody(c.raw, c.coding, 1024)).toEqual({ ok: true, text, utf8: 'valid' }));

  test('reads the decoded bytes as UTF-8 before they become text, with a coding or without', () => {
    const latin1 = Buffer.from([0x22, 0x63, 0x61, 0x66, 0xe9, 0x22]);
    for (const [raw, coding] of [
      [latin1, undefined],
      [gzipSync(latin1), 'gzip'],
    ] as const)
      expect(decodeBody(raw, coding, 1024)).toEqual({ ok: true, text: '"caf\uFFFD"', utf8: { invalidAt: 4 } });
  });

  test('stops at the limit once decoded', () => {
    expect(decodeBody(gzipSync('x'.repeat(10_000)), 'gzip', 1024)).toEqual({
      ok: false,
      reason: 'body larger than 1024 bytes once decoded',
      cause: 'size',
    });
  });

  test("reads the window and the first meta-block's length a brotli stream declares, for every window an encoder can choose", () => {
    for (let windowBits = 10; windowBits <= 24; windowBits += 1) {
      expect(
        brotliStreamStart(brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_LGWIN]: windowBits } }))
          .windowBits,
        `lgwin ${windowBits}`,
      ).toBe(windowBits);
    }
    const long = JSON.stringify({ options: new Array<number>(30_000).fill(1) });
    expect(
      brotliStreamStart(brotliCompressSync(long, { params: { [constants.BROTLI_PARAM_SIZE_HINT]: long.length } })),
    ).toEqual({ windowBits: 22, firstMetaBlockLength: long.length });
    expect(brotliStreamStart(brotliCompressSync(''))).toEqual({ windowBits: 22, firstMetaBlockLength: undefined });
    expect(brotliStreamStart(new Uint8Array(0))).toEqual({ windowBits: 16, firstMetaBlockLength: 1 });
  });

  test('decodes a brotli body within a window narrowed to what the limit needs, to the same bytes, whatever window it declares', () => {
    const repeats = Array.from({ length: 3000 }, (_, i) => `{"value":"v${i % 97}","label":"Label ${i % 89}"}`).join(
      ',',
    );
    const texts = [text, `[${repeats}]`, `${'ab'.repeat(20_000)}${'cd'.repeat(10_000)}${'ab'.repeat(20_000)}`];
    for (const source of texts) {
      for (const windowBits of [16, 18, 20, 22, 24]) {
        const stream = brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_LGWIN]: windowBits } });
        if (source === text)
          expect(decodeBody(stream, 'br', 1024 * 1024), `lgwin ${windowBits}`).toEqual({
            ok: true,
            text: source,
            utf8: 'valid',
          });
        expect(
          brotliDecompressSync(narrowedBrotliWindow(stream, source.length)).toString(),
          `lgwin ${windowBits}, narrowed to the text's length`,
        ).toBe(source);
      }
    }
  });

  test('narrows a declared window to the smallest that holds the limit, never below 256 KiB, never above what was declared', () => {
    const declaring = (windowBits: number) =>
      brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_LGWIN]: windowBits } });
    expect(brotliStreamStart(narrowedBrotliWindow(declaring(24), 64 * 1024)).windowBits).toBe(18);
    expect(brotliStreamStart(narrowedBrotliWindow(declaring(24), 1024 * 1024)).windowBits).toBe(21);
    expect(brotliStreamStart(narrowedBrotliWindow(declaring(22), 8 * 1024 * 1024)).windowBits).toBe(22);
    expect(brotliStreamStart(narrowedBrotliWindow(declaring(16), 64 * 1024)).windowBits).toBe(16);
  });

  test('a brotli body whose first meta-block is longer than the limit is too large without being decoded', () => {
    const bomb = brotliCompressSync(JSON.stringify({ options: new Array<number>(2_000_000).fill(1) }));
    expect(brotliStreamStart(bomb).firstMetaBlockLength).toBeGreaterThan(1024 * 1024);
    expect(decodeBody(bomb, 'br', 1024 * 1024)).toEqual({
      ok: false,
      reason: `body of ${bomb.length} bytes inflating past 65536 bytes once decoded (32 times its size)`,
      cause: 'size',
    });
    // Its header alone decides: cut short after it, the stream is still too large, not undecodable (a decoder would
    // have run into its end).
    const header = bomb.subarray(0, 6);
    expect(decodeBody(header, 'br', 1024 * 1024)).toMatchObject({ ok: false, cause: 'size' });
    expect(() => brotliDecompressSync(header)).toThrow();
  });

  test(`undoes at most ${CONTENT_CODINGS_MAX} codings of one body, identity aside: each may inflate to the bound again`, () => {
    const layered = (count: number) =>
      Array.from({ length: count }, () => 0).reduce<Buffer>((body) => gzipSync(body), Buffer.from(text));
    const codings = (count: number) =>
      ['identity', ...Array.from({ length: count }, () => 'gzip'), 'identity'].join(', ');
    expect(decodeBody(layered(CONTENT_CODINGS_MAX), codings(CONTENT_CODINGS_MAX), 1024)).toEqual({
      ok: true,
      text,
      utf8: 'valid',
    });
    expect(decodeBody(layered(CONTENT_CODINGS_MAX + 1), codings(CONTENT_CODINGS_MAX + 1), 1024)).toEqual({
      ok: false,
      reason: `${CONTENT_CODINGS_MAX + 1} content codings, more than the ${CONTENT_CODINGS_MAX} the proxy undoes on one body (each may inflate to the bound again)`,
      cause: 'coding',
    });
  });

  test('names a coding it cannot undo, and a body that is not what it claims', () => {
    expect(decodeBody(Buffer.from(text), 'zstd', 1024)).toEqual({
      ok: false,
      reason: 'content coding zstd is not one the proxy decodes',
      cause: 'coding',
    });
    expect(decodeBody(Buffer.from(text), 'gzip', 1024)).toEqual({
      ok: false,
      reason: 'the gzip body could not be decoded',
      cause: 'coding',
    });
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
