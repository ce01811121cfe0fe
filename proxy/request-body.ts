// The request body on its way to the upstream: read while it fits the limit (to be judged), then
// handed on whole, or as what was read followed by the rest of the stream.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** HTTP/1.1 requests carry a body only with Content-Length or Transfer-Encoding (RFC 9112 section 6.3). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body read whole (`complete`), or its first bytes and a stream of all of it, to forward. */
export type ReadBody = { complete: true; raw: Buffer } | { complete: false; stream: Readable };

/** Reads a request body while it fits the limit; past it, stops and hands back a stream of what it read and the rest. */
export function readBodyUpTo(req: IncomingMessage, limit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      cleanup();
      req.pause();
      resolve({ complete: false, stream: Readable.from(replay(chunks, req)) });
    };
    const onEnd = () => {
      cleanup();
      resolve({ complete: true, raw: Buffer.concat(chunks, size) });
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

async function* replay(head: Buffer[], rest: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield* head;
  yield* rest;
}
