// The validation tap: a copy of a body, kept only while it fits the limit, and decoded only
// for validation. The bytes that reach the client are never touched here.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { utf8Text, type Utf8Reading } from '../contract/index.ts';

/**
 * Most chunks one body may arrive in and still be kept to judge. A chunk costs a few hundred
 * bytes of bookkeeping however small it is (a one-byte chunk on the wire is six bytes):
 * bodies are copied into one buffer as they come, and a body sent in more pieces than this is
 * passed on without being kept, as one larger than the byte limit is.
 */
export const CHUNKS_KEPT_MAX = 16_384;

/**
 * Bytes copied into one buffer that grows by doubling: memory stays within twice the bytes, whatever the number of
 * chunks (a single chunk is kept as it is).
 */
/** The buffer of a collector holding nothing, shared: nothing is ever written into it. */
const NOTHING: Buffer = Buffer.alloc(0);

export class ByteCollector {
  private buffer: Buffer = NOTHING;
  size = 0;
  chunks = 0;

  append(chunk: Buffer): void {
    this.chunks += 1;
    // A body that comes in one chunk (most do) is kept as that chunk: nothing copied. A second chunk
    // never writes into it: it holds exactly the first one's bytes, so the next append grows a copy.
    if (this.size === 0 && this.buffer.length === 0) {
      this.buffer = chunk;
      this.size = chunk.length;
      return;
    }
    const needed = this.size + chunk.length;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.buffer.length, 1024));
      this.buffer.copy(grown, 0, 0, this.size);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.size);
    this.size = needed;
  }

  /** Bytes the collector holds room for (at most twice the bytes collected, or 1 KiB). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** The bytes collected (a view, not a copy). */
  bytes(): Buffer {
    return this.size === this.buffer.length ? this.buffer : this.buffer.subarray(0, this.size);
  }

  clear(): void {
    this.buffer = NOTHING;
    this.size = 0;
  }
}

/** Collects the chunks of one body while their total stays within the limit (bytes and chunks). */
export class BodyTap {
  private collected = new ByteCollector();
  size = 0;
  overflowed = false;

  constructor(readonly limit: number) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.overflowed) return;
    if (this.size > this.limit || this.collected.chunks >= CHUNKS_KEPT_MAX) {
      this.overflowed = true;
      this.collected.clear();
      return;
    }
    this.collected.append(chunk);
  }

  /** Why the body was not kept, when it was not. */
  get overflowReason(): string {
    return this.size > this.limit
      ? `body larger than ${this.limit} bytes`
      : `body sent in more than ${CHUNKS_KEPT_MAX} chunks`;
  }

  /** The collected bytes; only meaningful when the tap did not overflow. */
  bytes(): Buffer {
    return this.collected.bytes();
  }
}

/** Why a body was not validated: too large (raw or decoded), or in a coding the proxy cannot undo. */
export type OmissionCause = 'size' | 'coding';

/** A body decoded: its text, and whether its bytes were UTF-8 (read before decoding them replaces what is not). */
export type DecodedBody =
  { ok: true; text: string; utf8: Utf8Reading } | { ok: false; reason: string; cause: OmissionCause };

type Decoder = (input: Buffer, maxOutputLength: number) => Buffer;

export interface BrotliStreamStart {
  /**
   * The window the stream declares (WBITS); undefined for the large-window extension, which the decoder refuses anyway.
   */
  windowBits: number | undefined;
  /** How many bytes the first meta-block decodes to (MLEN); undefined for an empty or a metadata meta-block. */
  firstMetaBlockLength: number | undefined;
}

/**
 * Reads the stream header and the first meta-block header of a brotli stream (RFC 7932 sections 9.1 and 9.2): plain
 * bits, before any Huffman code.
 */
export function brotliStreamStart(stream: Uint8Array): BrotliStreamStart {
  let position = 0;
  const read = (count: number): number => {
    let value = 0;
    for (let i = 0; i < count; i += 1, position += 1)
      value |= (((stream[position >> 3] ?? 0) >> (position & 7)) & 1) << i;
    return value;
  };
  let windowBits: number | undefined = 16;
  if (read(1) === 1) {
    const wide = read(3);
    const narrow = wide === 0 ? read(3) : 0;
    windowBits = wide !== 0 ? 17 + wide : narrow === 1 ? undefined : narrow === 0 ? 17 : 8 + narrow;
  }
  const last = read(1) === 1;
  if (windowBits === undefined || (last && read(1) === 1)) return { windowBits, firstMetaBlockLength: undefined };
  const nibbles = read(2);
  return { windowBits, firstMetaBlockLength: nibbles === 3 ? undefined : read((nibbles + 4) * 4) + 1 };
}

/** The smallest window written in the same four bits as the usual ones (18 to 24, RFC 7932 section 9.1). */
const BROTLI_NARROWED_WINDOW_BITS_MIN = 18;

/**
 * The stream with the smallest window that still holds `maxOutputLength` bytes, when it declares a
 * larger one. A decoder may fill its whole window before a byte comes out, whatever the output
 * limit: a 76-byte body declaring 16 MiB cost 26 ms, one declaring the usual 4 MiB 7 ms (on the 2
 * cores of bench/hostile-cost.bench.ts). Within the first window-minus-16 bytes a window of any
 * size reads every distance alike (RFC 7932 section 4: a distance past what was written is a
 * dictionary reference in both), so the bytes up to the output limit come out the same, and
 * decoding costs what the limit allows, not what the sender declared. Past the limit the output
 * is never read: a stream that needs the larger window there fails to decode instead.
 */
export function narrowedBrotliWindow(
  stream: Buffer,
  maxOutputLength: number,
  windowBits = brotliStreamStart(stream).windowBits,
): Buffer {
  if (windowBits === undefined) return stream;
  let narrowed = BROTLI_NARROWED_WINDOW_BITS_MIN;
  while (narrowed < windowBits && 2 ** narrowed - 16 < maxOutputLength) narrowed += 1;
  if (narrowed >= windowBits) return stream;
  const copy = Buffer.from(stream);
  copy[0] = (copy[0] & ~0b1110) | ((narrowed - 17) << 1);
  return copy;
}

/**
 * Brotli within bounds of cost, not only of output: a first meta-block longer than the output
 * allowed is too large without decoding a byte of it, and the window is narrowed to what the
 * output limit needs (narrowedBrotliWindow).
 */
function brotliDecoder(input: Buffer, maxOutputLength: number): Buffer {
  const start = brotliStreamStart(input);
  if (start.firstMetaBlockLength !== undefined && start.firstMetaBlockLength > maxOutputLength)
    throw Object.assign(new Error('first meta-block past the limit'), { code: 'ERR_BUFFER_TOO_LARGE' });
  return brotliDecompressSync(narrowedBrotliWindow(input, maxOutputLength, start.windowBits), { maxOutputLength });
}

/** Content codings the tap can undo (RFC 9110 section 8.4.1), by their token. */
export const CONTENT_DECODERS: Record<string, Decoder> = {
  identity: (input) => input,
  gzip: (input, maxOutputLength) => gunzipSync(input, { maxOutputLength }),
  'x-gzip': (input, maxOutputLength) => gunzipSync(input, { maxOutputLength }),
  br: brotliDecoder,
  // "deflate" means zlib-wrapped data, but some servers send it raw; accept both.
  deflate: (input, maxOutputLength) => {
    try {
      return inflateSync(input, { maxOutputLength });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
      return inflateRawSync(input, { maxOutputLength });
    }
  },
};

/**
 * The content codings undone on one body, `identity` aside. Each may inflate to the decoded bound
 * again, so a stack of them multiplies what a body costs: 801 gzip layers, the inner ones stored
 * blocks of 60 KB, took 65 ms to undo for 14 KB sent. Senders apply one, seldom two.
 */
export const CONTENT_CODINGS_MAX = 3;

/**
 * What a content-coded body may inflate to and still be judged: DECODED_RATIO times the bytes
 * sent, and never less than DECODED_FLOOR (small bodies compress poorly, and judging 64 KiB costs
 * little). Judging costs what the decoded body weighs; this keeps it a small constant times what
 * was sent (a kilobyte of gzip can inflate to a megabyte of wrong items).
 */
export const DECODED_BOUNDS = { ratio: 32, floor: 64 * 1024 } as const;

/** The largest decoded size of a body of `rawSize` bytes: DECODED_BOUNDS, and the byte limit. */
export function decodedLimit(rawSize: number, limit: number): number {
  return Math.min(limit, Math.max(DECODED_BOUNDS.floor, rawSize * DECODED_BOUNDS.ratio));
}

/**
 * Runs a decoder without capturing a stack trace for the error it throws past the limit: a body
 * inflating past it is the usual attack, and capturing the trace cost as much as a fifth of
 * refusing one. The error's code and message are all that is read of it.
 */
function decodeWithoutStack(decoder: Decoder, input: Buffer, maxOutputLength: number): Buffer {
  const traced = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return decoder(input, maxOutputLength);
  } finally {
    Error.stackTraceLimit = traced;
  }
}

/**
 * The body as text for validation: content codings undone in reverse order of application, the
 * decoded size held to the byte limit and to DECODED_BOUNDS (a small gzip body can inflate hugely).
 */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, limit: number): DecodedBody {
  // Most bodies come in no coding at all: nothing to split or undo.
  if (contentEncoding === undefined || contentEncoding === '') return { ok: true, ...utf8Text(raw) };
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
  const applied = codings.filter((coding) => coding !== 'identity').length;
  if (applied > CONTENT_CODINGS_MAX)
    return {
      ok: false,
      reason: `${applied} content codings, more than the ${CONTENT_CODINGS_MAX} the proxy undoes on one body (each may inflate to the bound again)`,
      cause: 'coding',
    };
  const decodedMax = decodedLimit(raw.length, limit);
  let bytes = raw;
  for (const coding of codings.reverse()) {
    const decoder = CONTENT_DECODERS[coding];
    if (!decoder)
      return {
        ok: false,
        reason: `content coding ${coding.slice(0, 40)} is not one the proxy decodes`,
        cause: 'coding',
      };
    try {
      bytes = decodeWithoutStack(decoder, bytes, decodedMax);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return {
          ok: false,
          reason:
            decodedMax < limit
              ? `body of ${raw.length} bytes inflating past ${decodedMax} bytes once decoded (${DECODED_BOUNDS.ratio} times its size)`
              : `body larger than ${limit} bytes once decoded`,
          cause: 'size',
        };
      return { ok: false, reason: `the ${coding} body could not be decoded`, cause: 'coding' };
    }
  }
  return { ok: true, ...utf8Text(bytes) };
}
