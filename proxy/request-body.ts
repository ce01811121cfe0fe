// The request body on its way to the upstream: read while it fits the limit (to be judged), then
// handed on whole, or as what was read followed by the rest of the stream.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { ByteCollector, CHUNKS_KEPT_MAX } from './body.ts';

/** HTTP/1.1 requests carry a body only with Content-Length or Transfer-Encoding (RFC 9112 section 6.3). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A body read whole (`complete`), or its first bytes and a stream of all of it, to forward (`reason`: why it was not
 * read whole).
 */
export type ReadBody = { complete: true; raw: Buffer } | { complete: false; stream: Readable; reason: string };

/**
 * Reads a request body while it fits the limit, in bytes and in chunks (CHUNKS_KEPT_MAX);
 * past it, stops and hands back a stream of what it read and the rest.
 */
export function readBodyUpTo(req: IncomingMessage, limit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const read = new ByteCollector();
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      read.append(chunk);
      if (read.size <= limit && read.chunks <= CHUNKS_KEPT_MAX) return;
      cleanup();
      req.pause();
      const reason =
        read.size > limit ? `body larger than ${limit} bytes` : `body sent in more than ${CHUNKS_KEPT_MAX} chunks`;
      resolve({ complete: false, stream: Readable.from(replay(read.bytes(), req)), reason });
    };
    const onEnd = () => {
      cleanup();
      resolve({ complete: true, raw: read.bytes() });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new Error('client closed before sending the whole body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

async function* replay(head: Buffer, rest: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield head;
  yield* rest;
}
