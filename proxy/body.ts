// The validation tap: a copy of a body, kept only while it fits the limit, and decoded only
// for validation. The bytes that reach the client are never touched here.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** Collects the chunks of one body while their total stays within the limit. */
export class BodyTap {
  private chunks: Buffer[] = [];
  size = 0;
  overflowed = false;

  constructor(readonly limit: number) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.overflowed) return;
    if (this.size > this.limit) {
      this.overflowed = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }

  /** The collected bytes, joined once; only meaningful when the tap did not overflow. */
  bytes(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0];
  }
}

/** Why a body was not validated: too large (raw or decoded), or in a coding the proxy cannot undo. */
export type OmissionCause = 'size' | 'coding';

export type DecodedBody = { ok: true; text: string } | { ok: false; reason: string; cause: OmissionCause };

type Decoder = (input: Buffer, maxOutputLength: number) => Buffer;

/** Content codings the tap can undo (RFC 9110 section 8.4.1), by their token. */
export const CONTENT_DECODERS: Record<string, Decoder> = {
  identity: (input) => input,
  gzip: (input, maxOutputLength) => gunzipSync(input, { maxOutputLength }),
  'x-gzip': (input, maxOutputLength) => gunzipSync(input, { maxOutputLength }),
  br: (input, maxOutputLength) => brotliDecompressSync(input, { maxOutputLength }),
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
 * The body as text for validation: content codings undone in reverse order of application, the
 * decoded size held to the same limit as the raw one (a small gzip body can inflate hugely).
 */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, limit: number): DecodedBody {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '');
  let bytes = raw;
  for (const coding of codings.reverse()) {
    const decoder = CONTENT_DECODERS[coding];
    if (!decoder) return { ok: false, reason: `content coding ${coding.slice(0, 40)} is not one the proxy decodes`, cause: 'coding' };
    try {
      bytes = decoder(bytes, limit);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, reason: `body larger than ${limit} bytes once decoded`, cause: 'size' };
      return { ok: false, reason: `the ${coding} body could not be decoded`, cause: 'coding' };
    }
  }
  return { ok: true, text: bytes.toString('utf8') };
}
