// Reading a request body within a size limit, and the guards that keep any body, however odd,
// from reaching code that could fail on it: UTF-8, nesting depth, numbers JSON cannot hold.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { escapeToken } from '../contract/index.ts';

export type BodyReading = { kind: 'complete'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

const EMPTY = Buffer.alloc(0);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** HTTP/1.1 requests carry a body only with Content-Length or Transfer-Encoding (RFC 9112 6.3). */
export function announcesBody(headers: IncomingHttpHeaders): boolean {
  return (
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0')
  );
}

/**
 * Reads the body, buffering no more than `maxBytes`: a declared or streamed excess stops reading.
 * `beforeReading` runs once the declared size is acceptable, just before the first byte is read.
 */
export function readBody(
  request: IncomingMessage,
  maxBytes: number,
  beforeReading: () => void = () => undefined,
): Promise<BodyReading> {
  if (!announcesBody(request.headers)) return Promise.resolve({ kind: 'complete', bytes: EMPTY });
  if (Number(request.headers['content-length']) > maxBytes) return Promise.resolve({ kind: 'too-large' });
  beforeReading();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (reading: BodyReading) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      resolve(reading);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      request.pause();
      settle({ kind: 'too-large' });
    };
    request.on('data', onData);
    request.once('end', () => settle({ kind: 'complete', bytes: Buffer.concat(chunks, size) }));
    request.once('close', () => settle({ kind: 'aborted' }));
  });
}

/**
 * How much of a refused body is read and thrown away after the answer, so the client reads the answer instead of a
 * reset.
 */
export const DISCARD_LIMITS = { bytes: 64 * 1024 * 1024, ms: 5000 };

/**
 * Reads and throws away the rest of a body the server refused (a lingering close): closing a
 * connection with unread bytes makes the kernel send a reset, which can destroy the answer before
 * the client reads it. Past the limits, in bytes or time, the connection is cut.
 */
export function discardRest(request: IncomingMessage, limits = DISCARD_LIMITS): void {
  let discarded = 0;
  const cut = () => request.socket.destroy();
  const timer = setTimeout(cut, limits.ms).unref();
  request.removeAllListeners('data');
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.bytes) cut();
  });
  request.once('end', () => clearTimeout(timer));
  request.once('close', () => clearTimeout(timer));
  request.resume();
}

/** The body as text, or undefined when it is not valid UTF-8 (RFC 8259 section 8.1). */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether JSON text nests arrays and objects deeper than `maxDepth` (strings skipped). */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The pointer of the first number JSON.parse could only read as ±Infinity (e.g. 1e400), if any. */
export function nonFiniteNumberAt(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : pointer;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, member] of entries) {
    const found = nonFiniteNumberAt(member, `${pointer}/${escapeToken(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
