// Helpers the proxy's tests share: tiny upstreams (one answering raw bytes), a raw HTTP client that
// keeps every byte, exchange hashes, a stream that records what the proxy wrote, and a full garbage
// collection before a memory figure is read.
import { createHash } from 'node:crypto';
import {
  Agent,
  createServer,
  request,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestListener,
  type Server,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MEDIA_TYPE } from '../contract/index.ts';
import { HOP_BY_HOP_HEADERS } from './headers.ts';

export interface TestServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** An upstream on 127.0.0.1 and a free port, closed (connections included) by `close()`. */
export async function startUpstream(listener: RequestListener): Promise<TestServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An upstream on 127.0.0.1 speaking raw bytes: `reply` answers each request head that arrives on a
 * connection (the head as text, its request line first); `close()` destroys every connection.
 */
export async function startRawUpstream(
  reply: (socket: Socket, head: string) => void,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const complete = head;
      head = '';
      reply(socket, complete);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A full garbage collection, so that a memory figure read next counts only what is still held. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A listener that answers every request with one JSON:API document, whatever was asked. */
export function answering(status: number, document: string): RequestListener {
  return (req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': MEDIA_TYPE });
    res.end(document);
  };
}

export interface RawResponse {
  status: number;
  statusMessage: string;
  /** Header names and values as received, in order: `[name, value, name, value, ...]`. */
  rawHeaders: string[];
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface RawRequest {
  method?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  agent?: Agent;
  /** Certificates to trust for an https URL. */
  ca?: string;
  /** The request target exactly as sent, in place of the URL's (which URL parsing normalizes). */
  path?: string;
}

/** Sends one request with Node's own client (not the proxy's) and keeps the body's bytes undecoded. */
export function send(url: string, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const requestOf = url.startsWith('https:') ? httpsRequest : request;
    const req = requestOf(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent ?? false,
        ca: options.ca,
        ...(options.path === undefined ? {} : { path: options.path }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            rawHeaders: res.rawHeaders,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const hopByHop = new Set(HOP_BY_HOP_HEADERS);

/** The end-to-end part of a response: status, headers but hop-by-hop (minus any `ignored`), body. */
export function endToEnd(response: RawResponse, ignored: readonly string[] = []): string {
  const skip = new Set([...hopByHop, ...ignored]);
  const headers: string[] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    if (!skip.has(response.rawHeaders[i].toLowerCase()))
      headers.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
  }
  return `${response.status} ${response.statusMessage}\n${headers.join('\n')}\n\n${response.body.toString('base64')}`;
}

/** sha256 of the end-to-end part of a response. */
export function exchangeHash(response: RawResponse, ignored: readonly string[] = []): string {
  return createHash('sha256').update(endToEnd(response, ignored)).digest('hex');
}

/** A writable that keeps everything written to it. */
export class Recorder extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    callback();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  /** Every NDJSON line written so far, parsed. */
  lines<T = Record<string, unknown>>(): T[] {
    return this.text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as T);
  }
}

/** Polls until `check` returns a value other than undefined (bounded; throws with `what` on timeout). */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
