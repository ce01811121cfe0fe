// undici drops the connection when an upstream sends an interim 100 Continue nobody asked for
// (the proxy never forwards Expect), although HTTP asks a client to read past any 1xx
// (RFC 9110 section 15.2). A request without a body, of a safe method, is sent once more through
// Node's client, which does; its answer reaches the same relay as undici's would have.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Dispatcher } from 'undici';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a failed exchange may be sent again: a safe method (the caller knows it has no body) and undici's sign of an
 * answer it would not read.
 */
export function resendable(method: string, error: Error): boolean {
  return (
    SAFE_METHODS.has(method) &&
    (error as NodeJS.ErrnoException).code === 'UND_ERR_SOCKET' &&
    error.message === 'bad response'
  );
}

export interface Resend {
  upstream: URL;
  path: string;
  method: string;
  /** Raw request headers, `[name, value, ...]`. */
  headers: string[];
  timeout: number;
  ca?: string | Buffer;
}

/**
 * Sends the request with Node's client and drives `handler` as undici would: connect, headers, data (with
 * back-pressure), complete or error.
 */
export function resendThroughNodeClient(resend: Resend, handler: Dispatcher.DispatchHandler): void {
  const requestOf = resend.upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = requestOf(
    {
      host: resend.upstream.hostname,
      port: resend.upstream.port,
      path: resend.path,
      method: resend.method,
      headers: resend.headers,
      agent: false,
      timeout: resend.timeout,
      ...(resend.ca === undefined ? {} : { ca: resend.ca }),
    },
    (res) => {
      // Node reads the reason phrase byte for byte (latin1); the relay takes it as undici gives it (UTF-8).
      const statusText = Buffer.from(res.statusMessage ?? '', 'latin1').toString('utf8');
      const headers = res.rawHeaders.map((value) => Buffer.from(value, 'latin1'));
      if (handler.onHeaders?.(res.statusCode ?? 502, headers, () => res.resume(), statusText) === false) res.pause();
      res.on('data', (chunk: Buffer) => {
        if (handler.onData?.(chunk) === false) res.pause();
      });
      res.on('end', () => handler.onComplete?.([]));
      res.on('error', (error) => handler.onError?.(error));
    },
  );
  req.on('timeout', () => req.destroy(Object.assign(new Error('upstream timed out'), { code: 'ETIMEDOUT' })));
  req.on('error', (error) => handler.onError?.(error));
  handler.onConnect?.((error?: Error) => req.destroy(error));
  req.end();
}
