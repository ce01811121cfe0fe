// `--capture DIR`: each exchange that draws a MUST finding is written as a HAR entry (one per
// line, with its request id and findings under `_las`), so that it can be judged again offline
// (`las-conformance judge`), replayed against a fixed service (`las-conformance replay`) and kept
// as a regression case. Credentials are masked by the kit's one policy (contract/credential-policy.ts), bodies
// are kept up to --max-body, files rotate at a size and the directory stays under a bound, the
// oldest file dropped first. Writing is asynchronous and bounded: what cannot wait is counted as
// lost, never held without limit.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { appendFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  bodySecrets,
  headerSecrets,
  headerValue,
  maskCredentialQuery,
  maskedBody,
  maskedHeaderValue,
  maskedQueryPairs,
  maskedText,
  querySecrets,
  type Finding,
} from '../contract/index.ts';
import { decodeBody } from './body.ts';
import type { ProxiedExchange } from './exchange.ts';
import { BODY_NOT_KEPT, type HarContent, type HarEntry, type HarHeader } from './har.ts';
import type { CapturedBody } from './judge.ts';
import type { ProxyMetrics } from './metrics.ts';

export interface CaptureOptions {
  /** The directory capture files are written to (created when missing). */
  dir: string;
  /** A file is closed and the next one started once it holds this many bytes. */
  fileBytes?: number;
  /** The capture files of the directory are kept under this many bytes in all, the oldest dropped first. */
  maxBytes?: number;
}

export const CAPTURE_DEFAULTS = { fileBytes: 16 * 1024 * 1024, maxBytes: 256 * 1024 * 1024 };

/** Lines waiting to be written, at most: past it an entry is counted lost (the disk is slower than the findings). */
const PENDING_BYTES = 8 * 1024 * 1024;

/** The name of a capture file the proxy writes; `judge` reads these from a capture directory. */
export const CAPTURE_FILE = /^capture-\d{8}T\d{6}Z-\d{4}\.ndjson$/;

export interface CaptureParts {
  legacyHeader: string;
  maxBody: number;
  metrics: ProxyMetrics;
  logger: Logger;
}

export class ExchangeCapture {
  readonly dir: string;
  private readonly fileBytes: number;
  private readonly maxBytes: number;
  /** Capture files on disk, oldest first, with their sizes (the current file last). */
  private readonly files: { name: string; size: number }[];
  private current: { name: string; size: number } | null = null;
  private sequence = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing: Promise<void> = Promise.resolve();
  private failureLogged = false;

  constructor(
    options: CaptureOptions,
    private readonly parts: CaptureParts,
  ) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? CAPTURE_DEFAULTS.maxBytes;
    this.fileBytes = Math.min(options.fileBytes ?? CAPTURE_DEFAULTS.fileBytes, this.maxBytes);
    mkdirSync(this.dir, { recursive: true });
    // Files an earlier run left count against the bound too.
    this.files = readdirSync(this.dir)
      .filter((name) => CAPTURE_FILE.test(name))
      .sort()
      .map((name) => ({ name, size: statSync(join(this.dir, name)).size }));
  }

  /** Writes the exchange when one of its findings is at MUST; the line is built only then. */
  capture(exchange: ProxiedExchange, findings: readonly Finding[]): void {
    if (!findings.some((f) => f.level === 'MUST')) return;
    const line = `${JSON.stringify(this.entry(exchange, findings))}\n`;
    const size = Buffer.byteLength(line);
    if (this.pendingBytes + size > PENDING_BYTES || size > this.maxBytes) {
      this.parts.metrics.captureEvents.inc({ event: 'lost' });
      return;
    }
    this.pending.push(line);
    this.pendingBytes += size;
    if (this.pending.length === 1) this.writing = this.writing.then(this.writePending);
  }

  /** Resolves once every entry captured so far is on disk (or counted lost). */
  async flushed(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.writing;
      await seen;
    } while (seen !== this.writing);
  }

  /** The exchange as a HAR entry, credentials masked (the kit's one policy), bodies as kept. */
  entry(exchange: ProxiedExchange, findings: readonly Finding[]): HarEntry {
    const { legacyHeader } = this.parts;
    const host = headerValue(exchange.headers, 'host') ?? 'proxy.invalid';
    const rawResponseHeaders: HarHeader[] = [];
    for (let i = 0; i + 1 < exchange.responseHeaders.length; i += 2)
      rawResponseHeaders.push({ name: exchange.responseHeaders[i], value: exchange.responseHeaders[i + 1] });
    const requestType = headerValue(exchange.headers, 'content-type') ?? '';
    const responseType = rawResponseHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
    const requestText = this.decoded(exchange.requestBody, headerValue(exchange.headers, 'content-encoding'));
    const responseBody: CapturedBody =
      !exchange.responseTap || exchange.responseTap.size === 0
        ? { kind: 'none' }
        : exchange.responseTap.overflowed
          ? { kind: 'omitted', reason: exchange.responseTap.overflowReason, cause: 'size' }
          : { kind: 'captured', raw: exchange.responseTap.bytes() };
    const responseText = this.decoded(
      responseBody,
      rawResponseHeaders.find((h) => h.name.toLowerCase() === 'content-encoding')?.value,
    );
    // Every credential the exchange carries, wherever it is, is masked wherever else it turns up.
    const known = new Set([
      ...headerSecrets(exchange.headers, legacyHeader),
      ...headerSecrets(
        { 'set-cookie': rawResponseHeaders.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value) },
        legacyHeader,
      ),
      ...querySecrets(exchange.path),
      ...('text' in requestText ? bodySecrets(requestText.text, requestType) : []),
      ...('text' in responseText ? bodySecrets(responseText.text, responseType) : []),
    ]);
    const requestHeaders: HarHeader[] = Object.entries(exchange.headers).flatMap(([name, value]) =>
      value === undefined
        ? []
        : (Array.isArray(value) ? value : [value]).map((v) => ({
            name,
            value: maskedHeaderValue(name, v, legacyHeader, known),
          })),
    );
    const responseHeaders = rawResponseHeaders.map(({ name, value }) => ({
      name,
      value: maskedHeaderValue(name, value, legacyHeader, known),
    }));
    const requestContent = this.content(requestText, requestType, known);
    const responseContent =
      exchange.status === null
        ? {
            size: 0,
            mimeType: '',
            comment: `answered by the proxy (${exchange.proxyStatus ?? 'no answer'}): the upstream's answer was never complete`,
          }
        : this.content(responseText, responseType, known);
    return {
      startedDateTime: new Date(exchange.completedAt || Date.now()).toISOString(),
      time: 0,
      request: {
        method: exchange.method,
        url: safeUrl(host, maskCredentialQuery(exchange.path, known)),
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: requestHeaders,
        queryString: maskedQueryPairs(exchange.path, known),
        ...(exchange.requestBody.kind === 'none'
          ? {}
          : {
              postData: {
                mimeType: requestType,
                ...(requestContent.text === undefined ? {} : { text: requestContent.text }),
                ...(requestContent.comment ? { comment: requestContent.comment } : {}),
              },
            }),
        headersSize: -1,
        bodySize: exchange.requestBody.kind === 'captured' ? exchange.requestBody.raw.byteLength : -1,
      },
      response: {
        status: exchange.status ?? 0,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: responseHeaders,
        content: responseContent,
        redirectURL: '',
        headersSize: -1,
        bodySize: exchange.responseTap?.size ?? -1,
      },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      _las: {
        requestId: exchange.requestId,
        findings: findings.map((f) => ({
          rule: f.requirement,
          level: f.level,
          direction: f.location,
          pointer: f.pointer,
          message: maskedText(f.message, known),
        })),
      },
    };
  }

  /** A body's decoded text, or why it is not kept (larger than --max-body, or in a coding not undone). */
  private decoded(
    body: CapturedBody,
    contentEncoding: string | undefined,
  ): { text: string } | { none: true } | { notKept: string } {
    if (body.kind === 'none') return { none: true };
    if (body.kind === 'omitted') return { notKept: body.reason };
    const decoded = decodeBody(
      Buffer.from(body.raw.buffer, body.raw.byteOffset, body.raw.byteLength),
      contentEncoding,
      this.parts.maxBody,
    );
    return decoded.ok ? { text: decoded.text } : { notKept: decoded.reason };
  }

  /** A body as HAR keeps it: decoded text with its credentials masked; or why it was not kept. */
  private content(
    body: ReturnType<ExchangeCapture['decoded']>,
    mimeType: string,
    known: ReadonlySet<string>,
  ): HarContent {
    if ('none' in body) return { size: 0, mimeType };
    if ('notKept' in body) return { size: -1, mimeType, comment: `${BODY_NOT_KEPT}${body.notKept}` };
    const masked = maskedBody(body.text, mimeType, known);
    if ('dropped' in masked) return { size: -1, mimeType, comment: `${BODY_NOT_KEPT}${masked.dropped}` };
    return { size: Buffer.byteLength(body.text), mimeType, text: masked.text };
  }

  private readonly writePending = async (): Promise<void> => {
    while (this.pending.length > 0) {
      const lines = this.pending;
      this.pending = [];
      this.pendingBytes = 0;
      for (const line of lines) await this.append(line);
    }
  };

  private async append(line: string): Promise<void> {
    const size = Buffer.byteLength(line);
    const file = this.fileFor(size);
    await this.keepUnder(this.maxBytes - size);
    try {
      await appendFile(join(this.dir, file.name), line);
      file.size += size;
      this.parts.metrics.captureEvents.inc({ event: 'written' });
    } catch (error) {
      this.parts.metrics.captureEvents.inc({ event: 'lost' });
      if (!this.failureLogged) {
        this.failureLogged = true;
        this.parts.logger.error(
          { error: (error as NodeJS.ErrnoException).code ?? (error as Error).message, dir: this.dir },
          'writing a capture file failed: las_proxy_capture_events_total{event="lost"} counts the entries lost (logged once)',
        );
      }
    }
  }

  /** The file the next line goes to: the current one, or a new one once the current is full. */
  private fileFor(size: number): { name: string; size: number } {
    if (this.current === null || this.current.size + size > this.fileBytes) {
      this.sequence += 1;
      const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
      this.current = { name: `capture-${stamp}-${String(this.sequence % 10_000).padStart(4, '0')}.ndjson`, size: 0 };
      this.files.push(this.current);
    }
    return this.current;
  }

  /** Drops the oldest files until the directory holds at most `bytes` (the current file is dropped last). */
  private async keepUnder(bytes: number): Promise<void> {
    let total = this.files.reduce((sum, f) => sum + f.size, 0);
    while (total > bytes && this.files.length > 0 && this.files[0] !== this.current) {
      const oldest = this.files.shift()!;
      total -= oldest.size;
      await unlink(join(this.dir, oldest.name)).catch(() => undefined);
      this.parts.metrics.captureEvents.inc({ event: 'file_dropped' });
    }
  }
}

function safeUrl(host: string, path: string): string {
  try {
    return new URL(path, `http://${host}`).href;
  } catch {
    return new URL(path, 'http://proxy.invalid').href;
  }
}
