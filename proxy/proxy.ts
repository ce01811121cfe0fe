// The validating reverse proxy (issue 5; docs/certification.md §6). Forwarding runs on undici (a
// keep-alive pool to the upstream, raw headers, back-pressure both ways). In report mode every
// response reaches the client as the upstream sent it and is judged after it completed; in
// enforce mode the proxy judges before it answers and refuses what breaks the contract.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Readable, type Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Pool, type Dispatcher } from 'undici';
import { headerValue, loadContract, occurrences, readCredentials, route } from '../contract/index.ts';
import { admissionFindings } from './admission.ts';
import type { Contract, Finding, Location } from '../contract/index.ts';
import { createAdminServer } from './admin.ts';
import { BodyTap } from './body.ts';
import { DashboardFeed } from './dashboard.ts';
import { refusalOf, refused, rejectedResponseAnswer, upstreamErrorAnswer, type ErrorAnswer, type UpstreamFailure } from './errors.ts';
import { addForwardedHeaders, endToEndHeaders, forwardedRequestHeaders, headersObject, rawHeaderValue, withoutHeader } from './headers.ts';
import { judgeRequest, judgeResponse, locate, NO_BODY, NOT_VALIDATED_RULES, operationLabel, repeatKind, type BodyEvidence, type ExchangeEvidence, type JudgeOptions, type RequestVerdict } from './judge.ts';
import { JudgeThread, type JudgedExchange } from './judge-thread.ts';
import { maskCredentialQuery } from './mask.ts';
import { createProxyMetrics, type ProxyMetrics } from './metrics.ts';
import { RepeatFolder, REPEAT_INTERVAL_MS } from './repeats.ts';
import { resendable, resendThroughNodeClient, type Resend } from './resend.ts';
import { partyOf, ViolationsLog, violationRecord, type ExchangeIdentity, type ViolationRecord } from './violations.ts';

export type ProxyMode = 'report' | 'enforce';

export interface ValidatingProxyOptions {
  /** Base URL of the service, normally ending in the `/v3` root; a path before it is kept. */
  upstream: string;
  mode?: ProxyMode;
  /** Largest body (bytes) buffered for validation; larger ones pass through unvalidated. */
  maxBody?: number;
  /** How long (ms) the upstream may take to send headers, or between two body chunks. */
  upstreamTimeout?: number;
  /** Fraction of exchanges judged in report mode (enforce mode judges all). */
  sample?: number;
  /** Body values in finding messages; off by default so production data stays out of logs. */
  logValues?: boolean;
  /** Adds `Las-Violations` (the rule ids known before the response starts) to answers. */
  violationsHeader?: boolean;
  /** Where the NDJSON violations go; null keeps none (metrics and dashboard still count). */
  violations?: Writable | null;
  logger?: Logger;
  contract?: Contract;
  /** How long (ms) close() waits for exchanges in flight before cutting them. */
  drainTimeout?: number;
  /** Most connections opened to the upstream. */
  upstreamConnections?: number;
  /** PEM certificates trusted for an https upstream, in place of Node's default authorities. */
  upstreamCa?: string | Buffer;
  /** Judges report-mode exchanges on a worker thread (default); false judges on the forwarding thread. */
  judgeThread?: boolean;
  /** Adds X-Forwarded-For, -Proto and -Host to forwarded requests; off by default (requests pass as sent, but for X-Request-Id). */
  forwardedHeaders?: boolean;
  /** How often (ms) the log writes the counts of findings it did not write one by one (repeats.ts); 0 writes every finding. */
  repeatInterval?: number;
  /** Bearer token the admin endpoints ask for (all but /healthz and /readyz); none by default. */
  adminToken?: string;
  /** Certificate chain and key (PEM) to serve clients over https; plain http when absent. The admin server stays http. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export interface ListenOptions {
  port?: number;
  adminPort?: number;
  host?: string;
  /** Where the admin server listens; 127.0.0.1 unless given, whatever `host` is. */
  adminHost?: string;
}

export interface ProxyAddresses {
  /** Origin of the proxy; the API is served under its `/v3` root. */
  proxyUrl: string;
  /** The proxy's base URL, to give clients in place of the upstream's. */
  baseUrl: string;
  adminUrl: string;
}

export const PROXY_DEFAULTS = {
  mode: 'report' as ProxyMode,
  maxBody: 1024 * 1024,
  upstreamTimeout: 30_000,
  sample: 1,
  drainTimeout: 10_000,
  upstreamConnections: 128,
  judgeThread: true,
};

export const VIOLATIONS_HEADER = 'Las-Violations';
export const VIOLATIONS_HEADER_MAX_LENGTH = 512;
/** X-Request-Id values passed on and logged: a bounded length, characters of a token set. */
export const REQUEST_ID_MAX_LENGTH = 200;
const REQUEST_ID_CHARACTERS = /^[A-Za-z0-9._~:@+=/-]+$/;

/** Whether a client's X-Request-Id is passed on and logged as given; otherwise the proxy makes one. */
export function acceptableRequestId(value: string | string[] | undefined): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= REQUEST_ID_MAX_LENGTH && REQUEST_ID_CHARACTERS.test(value);
}
/** Distinct judging errors logged in full; past it, failures are only counted. */
const FAILURES_LOGGED = 100;

/** One client exchange as the proxy saw it; what the deferred judging and the log read. */
class ProxiedExchange {
  readonly requestId: string;
  readonly requestIdGiven: boolean;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  requestBody: BodyEvidence = NO_BODY;
  verdict: RequestVerdict | null = null;
  location: Pick<RequestVerdict, 'inApi' | 'operation'> | null = null;
  /** The upstream's status; null when the upstream never answered. */
  status: number | null = null;
  /** The status the client received when it is not the upstream's (the proxy answered itself). */
  proxyStatus: number | null = null;
  responseHeaders: string[] = [];
  responseTap: BodyTap | null = null;
  responseComplete = false;
  /** What the proxy could not judge as the upstream will read it (admission.ts). */
  admission: Finding[] = [];
  /** Findings already known (enforce mode judges before answering), and the time judging took. */
  findings: Finding[] | null = null;
  judgeSeconds = 0;
  clientGone = false;
  completedAt = 0;
  /** When the request left for the upstream (performance.now()). */
  forwardedAt = 0;
  abortUpstream: ((error?: Error) => void) | null = null;

  /** Set when the client sent an X-Request-Id the proxy does not pass on (too long, or outside the token set). */
  readonly requestIdRefused: boolean;

  constructor(req: IncomingMessage, readonly sampled: boolean) {
    const given = req.headers['x-request-id'];
    this.requestIdGiven = acceptableRequestId(given);
    this.requestIdRefused = given !== undefined && !this.requestIdGiven;
    this.requestId = this.requestIdGiven ? (given as string) : randomUUID();
    this.method = req.method ?? 'GET';
    this.path = originForm(req.url ?? '/');
    this.headers = req.headers;
  }
}

export class ValidatingProxy {
  readonly contract: Contract;
  readonly metrics: ProxyMetrics;
  readonly feed: DashboardFeed;
  readonly server: Server | HttpsServer;
  readonly adminServer: Server;
  readonly mode: ProxyMode;
  readonly maxBody: number;
  private readonly upstream: URL;
  private readonly upstreamPrefix: string;
  private readonly upstreamTimeout: number;
  private readonly upstreamCa: string | Buffer | undefined;
  private readonly sample: number;
  private readonly violationsHeader: boolean;
  private readonly forwardedHeaders: boolean;
  private readonly drainTimeout: number;
  private readonly judgeOptions: JudgeOptions;
  private readonly pool: Pool;
  private readonly judgeThread: JudgeThread | null;
  private readonly violations: ViolationsLog;
  private readonly logger: Logger;
  private queue: ProxiedExchange[] = [];
  private drainScheduled = false;
  private sampleCredit = 0;
  private inFlight = 0;
  private closing = false;
  private idle: (() => void) | null = null;
  private closed: Promise<void> | null = null;
  /** Distinct judging errors logged so far (each once). */
  private readonly failuresLogged = new Set<string>();
  /** Findings written once per kind and interval, then counted. */
  private readonly repeats: RepeatFolder;
  private readonly repeatTimer: NodeJS.Timeout | null;

  constructor(options: ValidatingProxyOptions) {
    this.upstream = new URL(options.upstream);
    if (this.upstream.protocol !== 'http:' && this.upstream.protocol !== 'https:') throw new Error(`upstream must be an http or https URL, got ${this.upstream.protocol}`);
    this.contract = options.contract ?? loadContract();
    this.upstreamPrefix = upstreamPathPrefix(this.upstream, this.contract.basePath);
    this.mode = options.mode ?? PROXY_DEFAULTS.mode;
    this.maxBody = options.maxBody ?? PROXY_DEFAULTS.maxBody;
    this.upstreamTimeout = options.upstreamTimeout ?? PROXY_DEFAULTS.upstreamTimeout;
    this.upstreamCa = options.upstreamCa;
    this.sample = options.sample ?? PROXY_DEFAULTS.sample;
    this.violationsHeader = options.violationsHeader ?? false;
    this.forwardedHeaders = options.forwardedHeaders ?? false;
    this.drainTimeout = options.drainTimeout ?? PROXY_DEFAULTS.drainTimeout;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.judgeOptions = { includeValues: options.logValues ?? false, maxBody: this.maxBody };
    this.violations = new ViolationsLog(options.violations ?? null, {
      onFailure: (error) => this.logger.error({ error: error.message, code: (error as NodeJS.ErrnoException).code }, 'writing the violations log failed: findings are still counted on /metrics (las_proxy_violations_lines_lost_total counts the lines lost), /readyz says so, SIGHUP reopens the file'),
      onLost: (lines) => this.metrics.violationsLinesLost.inc(lines),
    });
    this.metrics = createProxyMetrics({ judgeBacklog: () => this.judgeThread?.backlog ?? 0 });
    this.feed = new DashboardFeed(this.contract, { upstream: upstreamDisplay(this.upstream), mode: this.mode });
    this.pool = new Pool(this.upstream.origin, {
      connections: options.upstreamConnections ?? PROXY_DEFAULTS.upstreamConnections,
      pipelining: 1,
      connect: { timeout: this.upstreamTimeout, ...(options.upstreamCa === undefined ? {} : { ca: options.upstreamCa }) },
    });
    // Enforce mode judges before answering, on the forwarding thread; with --sample 0 nothing is judged.
    const judgeOffThread = (options.judgeThread ?? PROXY_DEFAULTS.judgeThread) && this.mode === 'report' && this.sample > 0;
    this.judgeThread = judgeOffThread ? new JudgeThread({ judge: this.judgeOptions, onFailure: (error, unjudged) => this.judgeThreadFailed(error, unjudged) }) : null;
    const repeatInterval = options.repeatInterval ?? REPEAT_INTERVAL_MS;
    this.repeats = new RepeatFolder(repeatInterval > 0);
    this.repeatTimer = repeatInterval > 0 ? setInterval(this.endRepeatInterval, repeatInterval).unref() : null;
    this.server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, this.handleRequest) : createServer(this.handleRequest);
    this.adminServer = createAdminServer({ metrics: this.metrics, feed: this.feed, upstream: this.upstream, accepting: () => !this.closing, token: options.adminToken, trouble: () => (this.violations.failed ? `violations log failing (${(this.violations.failed as NodeJS.ErrnoException).code ?? this.violations.failed.message})` : null) });
  }

  async listen(options: ListenOptions = {}): Promise<ProxyAddresses> {
    const host = options.host ?? '127.0.0.1';
    const proxyUrl = await listenOn(this.server, options.port ?? 0, host, this.server instanceof HttpsServer ? 'https' : 'http');
    let adminUrl: string;
    try {
      adminUrl = await listenOn(this.adminServer, options.adminPort ?? 0, options.adminHost ?? '127.0.0.1');
    } catch (error) {
      this.server.close();
      throw error;
    }
    const addresses = { proxyUrl, baseUrl: `${proxyUrl}${this.contract.basePath}`, adminUrl };
    this.logger.info({ ...addresses, upstream: upstreamDisplay(this.upstream), mode: this.mode }, 'validating proxy listening');
    return addresses;
  }

  /** Writes the violations to `destination` from now on (SIGHUP after logrotate); returns the old destination, to be closed. */
  replaceViolations(destination: Writable): Writable | null {
    return this.violations.replace(destination);
  }

  /** Resolves once every exchange completed so far has been judged and its findings written. */
  async settled(): Promise<void> {
    do {
      await new Promise((resolve) => setImmediate(resolve));
      await this.judgeThread?.whenIdle();
    } while (this.queue.length > 0 || this.drainScheduled);
    this.violations.flush();
  }

  /** Stops accepting, lets exchanges in flight finish (bounded), judges and logs what is left. */
  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    this.closing = true;
    const serverClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await this.drained();
    this.server.closeAllConnections();
    await serverClosed;
    this.drain();
    const unjudged = (await this.judgeThread?.close(this.drainTimeout)) ?? 0;
    if (unjudged > 0) this.logger.warn({ unjudged }, 'closed before the judging thread caught up: some exchanges go unjudged');
    if (this.repeatTimer) clearInterval(this.repeatTimer);
    this.endRepeatInterval();
    this.violations.flush();
    await Promise.race([this.pool.close(), delay(this.drainTimeout)]);
    await this.pool.destroy().catch(() => undefined);
    this.feed.close();
    const adminClosed = new Promise<void>((resolve) => this.adminServer.close(() => resolve()));
    this.adminServer.closeAllConnections();
    await adminClosed;
    this.logger.info('validating proxy closed');
  }

  private drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, this.drainTimeout);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.idle = finish;
    });
  }

  private readonly handleRequest = (req: IncomingMessage, res: ServerResponse): void => {
    this.inFlight += 1;
    // The upstream's Date passes through; the proxy adds none of its own.
    res.sendDate = false;
    const exchange = new ProxiedExchange(req, this.nextSampled());
    res.on('close', () => this.clientClosed(exchange, res));
    if (!hasBody(req)) return this.admit(exchange, req, res, null);
    if (!exchange.sampled) return this.admit(exchange, req, res, req);
    readBodyUpTo(req, this.maxBody).then(
      (read) => {
        if (read.complete) {
          const raw = Buffer.concat(read.chunks, read.size);
          exchange.requestBody = { kind: 'captured', raw };
          this.admit(exchange, req, res, raw);
        } else {
          exchange.requestBody = { kind: 'omitted', reason: `body larger than ${this.maxBody} bytes`, cause: 'size' };
          this.admit(exchange, req, res, Readable.from(replay(read.chunks, req)));
        }
      },
      () => res.destroy(),
    );
  };

  /**
   * Enforce mode judges the request first and answers itself when it breaks the contract or
   * cannot be judged as the upstream would read it (admission.ts); report mode notes the same and
   * forwards the request as sent.
   */
  private admit(exchange: ProxiedExchange, req: IncomingMessage, res: ServerResponse, body: Buffer | Readable | null): void {
    if (exchange.sampled) exchange.admission = this.admissionOf(exchange, req);
    if (this.mode === 'enforce') {
      const verdict = this.requestVerdict(exchange);
      const findings = verdict.inApi || exchange.admission.length > 0 ? verdict.findings.concat(exchange.admission) : verdict.findings;
      const refusal = refusalOf(findings, readCredentials(exchange.headers, this.contract.legacyHeader).kind);
      if (refusal) {
        exchange.findings = findings;
        // An unread body is not drained: the connection closes after the answer.
        if (body instanceof Readable || exchange.requestBody.kind === 'omitted') res.shouldKeepAlive = false;
        else req.resume();
        this.answer(exchange, res, refusal, findings);
        return this.settle(exchange);
      }
    }
    let headers = forwardedRequestHeaders(req.rawHeaders);
    if (exchange.requestIdRefused) {
      headers = withoutHeader(headers, 'x-request-id');
      this.logger.warn({ requestId: exchange.requestId, method: exchange.method }, 'X-Request-Id replaced: longer than 200 characters, empty, repeated or outside the token set');
    }
    if (!exchange.requestIdGiven) headers.push('x-request-id', exchange.requestId);
    if (this.forwardedHeaders) addForwardedHeaders(headers, { address: req.socket.remoteAddress, host: req.headers.host, encrypted: 'encrypted' in req.socket });
    const options: Dispatcher.DispatchOptions = {
      path: this.upstreamPrefix + exchange.path,
      method: exchange.method as Dispatcher.HttpMethod,
      headers,
      body,
      headersTimeout: this.upstreamTimeout,
      bodyTimeout: this.upstreamTimeout,
    };
    exchange.forwardedAt = performance.now();
    const relay = new UpstreamRelay(this, exchange, res);
    if (body === null) relay.resend = { upstream: this.upstream, path: options.path, method: exchange.method, headers, timeout: this.upstreamTimeout, ca: this.upstreamCa };
    this.pool.dispatch(options, relay);
  }

  /** What the proxy could not judge as the upstream will read it (admission.ts), and HEAD judged as its GET. */
  private admissionOf(exchange: ProxiedExchange, req: IncomingMessage): Finding[] {
    const located = locate(this.contract, exchange.method, exchange.path);
    let findings = admissionFindings(this.contract, { method: exchange.method, path: exchange.path, rawHeaders: req.rawHeaders, operation: located.operation });
    // HEAD asks for what GET would answer: a HEAD the contract's GET rejects is judged as that GET.
    if (exchange.method === 'HEAD' && located.inApi && route(this.contract, 'GET', exchange.path)) {
      const asGet = judgeRequest(this.contract, 'GET', exchange.path, exchange.headers, NO_BODY, this.judgeOptions).findings.filter((f) => f.level === 'MUST' && f.location === 'request');
      findings = findings.concat(asGet);
    }
    return findings;
  }

  requestVerdict(exchange: ProxiedExchange): RequestVerdict {
    if (!exchange.verdict) {
      const started = performance.now();
      try {
        exchange.verdict = judgeRequest(this.contract, exchange.method, exchange.path, exchange.headers, exchange.requestBody, this.judgeOptions);
      } catch (error) {
        const { inApi, operation } = locate(this.contract, exchange.method, exchange.path);
        const request = { method: exchange.method, path: exchange.path, headers: exchange.headers };
        exchange.verdict = { inApi, operation, request, findings: [this.judgingFailed(exchange, 'request', error)] };
      }
      exchange.judgeSeconds += (performance.now() - started) / 1000;
    }
    return exchange.verdict;
  }

  /** Writes the upstream's status line and headers; false when they cannot be relayed. */
  startResponse(exchange: ProxiedExchange, res: ServerResponse, statusText: string, extra: Finding[] = []): boolean {
    if (res.destroyed) return false;
    const headers = exchange.responseHeaders;
    if (this.violationsHeader && exchange.sampled) {
      const value = violationsHeaderValue(this.requestVerdict(exchange).findings.concat(extra));
      if (value !== null) headers.push(VIOLATIONS_HEADER, value);
    }
    try {
      res.writeHead(exchange.status ?? 502, statusText, headers);
      return true;
    } catch (error) {
      // Node refuses a status line or header the upstream sent: answer 502 and drop the upstream.
      this.upstreamFailed(exchange, res, error as Error, 'invalid');
      exchange.abortUpstream?.(error as Error);
      return false;
    }
  }

  /** Enforce mode: the whole response is here; judge it, then relay it or refuse it with 502. */
  finishBuffered(exchange: ProxiedExchange, res: ServerResponse, statusText: string, body: Buffer): void {
    const responseFindings = this.responseFindings(exchange, body.length > 0 ? { kind: 'captured', raw: body } : NO_BODY);
    exchange.findings = this.requestVerdict(exchange).findings.concat(responseFindings);
    const breaking = responseFindings.filter(refused);
    if (breaking.length > 0) {
      this.answer(exchange, res, rejectedResponseAnswer(breaking), exchange.findings);
      return;
    }
    if (this.startResponse(exchange, res, statusText, responseFindings)) res.end(body);
  }

  upstreamFailed(exchange: ProxiedExchange, res: ServerResponse, error: Error, failure: UpstreamFailure = classifyUpstreamError(error)): void {
    if (exchange.clientGone || exchange.proxyStatus !== null) return;
    this.metrics.upstreamErrors.inc({ kind: failure });
    this.logger.warn({ requestId: exchange.requestId, method: exchange.method, path: maskCredentialQuery(exchange.path), failure, code: (error as NodeJS.ErrnoException).code }, 'upstream failed');
    if (!res.headersSent) {
      exchange.status = null;
      this.answer(exchange, res, upstreamErrorAnswer(failure, exchange.requestId), []);
    } else {
      // The status line is gone already: the only honest signal left is a cut connection.
      res.destroy();
    }
  }

  private answer(exchange: ProxiedExchange, res: ServerResponse, answer: ErrorAnswer, findings: Finding[]): void {
    exchange.proxyStatus = answer.status;
    if (res.destroyed) return;
    // The proxy's own answers name the exchange, so a client can quote it; relayed answers pass as the upstream sent them.
    const headers: Record<string, string | number> = { ...answer.headers, 'x-request-id': exchange.requestId };
    if (this.violationsHeader) {
      const value = violationsHeaderValue(findings);
      if (value !== null) headers[VIOLATIONS_HEADER] = value;
    }
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  }

  /** An exchange is over (answered, failed or cut): judge and log it off the response path. */
  settle(exchange: ProxiedExchange): void {
    if (exchange.completedAt !== 0) return;
    exchange.completedAt = Date.now();
    this.queue.push(exchange);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    this.drainScheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const exchange of batch) this.record(exchange);
  };

  /** Counts the exchange and judges it (here or on the judging thread), unless enforce mode already did. */
  private record(exchange: ProxiedExchange): void {
    // An exchange the client abandoned may hold half a request: it is counted, not judged.
    const judged = exchange.sampled && !exchange.clientGone;
    // The judging thread takes only exchanges nothing of which was judged yet (enforce mode and
    // the violations header judge the request before answering): a request is judged once.
    const onJudgeThread =
      judged &&
      exchange.verdict === null &&
      this.judgeThread !== null &&
      this.judgeThread.accepts(bodyBytes(exchange.requestBody) + (exchange.responseTap?.size ?? 0), contentCoded(exchange)) &&
      this.judgeThread.submit(this.evidence(exchange), (result) => this.publishJudged(exchange, result), contentCoded(exchange));
    if (judged && !onJudgeThread) exchange.findings ??= exchange.admission.concat(this.requestVerdict(exchange).findings, this.completedResponseFindings(exchange));
    exchange.location = exchange.verdict ?? locate(this.contract, exchange.method, exchange.path);
    const operation = operationLabel(exchange.location);
    this.metrics.exchanges.inc({ operation, status: exchange.clientGone ? 'aborted' : String(exchange.proxyStatus ?? exchange.status) });
    this.feed.recordExchange(operation);
    if (!judged || onJudgeThread) return;
    this.metrics.judgedExchanges.inc({ thread: 'forwarding' });
    this.publish(exchange, exchange.findings!, exchange.judgeSeconds);
  }

  private publishJudged(exchange: ProxiedExchange, judged: JudgedExchange): void {
    exchange.findings = exchange.admission.concat(judged.error === undefined ? judged.findings : [this.judgingFailed(exchange, 'exchange', new Error(judged.error))]);
    this.metrics.judgedExchanges.inc({ thread: 'worker' });
    this.publish(exchange, exchange.findings, judged.seconds);
  }

  /**
   * Judging is pure and total by design; should it throw, the proxy goes on: the failure is
   * counted, logged once per distinct error (a bounded set), and stands in the exchange's findings
   * as PROXY-NOT-JUDGED (which enforce mode refuses). What the client receives in report mode is
   * unchanged.
   */
  private judgingFailed(exchange: ProxiedExchange, location: Location, error: unknown): Finding {
    const message = String((error as Error)?.message ?? error).slice(0, 200);
    this.metrics.judgingFailures.inc();
    if (!this.failuresLogged.has(message) && this.failuresLogged.size < FAILURES_LOGGED) {
      this.failuresLogged.add(message);
      this.logger.error({ requestId: exchange.requestId, method: exchange.method, path: maskCredentialQuery(exchange.path).slice(0, 200), error: message }, 'judging an exchange failed (logged once per distinct error; las_proxy_judging_failures_total counts all)');
    }
    return this.contract.finding('PROXY-NOT-JUDGED', location, { message: `the proxy failed to judge this ${location}: ${message}` });
  }

  private judgeThreadFailed(error: Error, unjudged: number): void {
    this.logger.error({ err: error, unjudged }, 'judging thread failed: the exchanges it held go unjudged; judging on the forwarding thread from now on');
  }

  /** What judging the exchange reads, as plain data. */
  private evidence(exchange: ProxiedExchange): ExchangeEvidence {
    const response = exchange.status !== null && exchange.responseComplete ? { status: exchange.status, rawHeaders: exchange.responseHeaders, body: this.responseBody(exchange) } : null;
    return { method: exchange.method, path: exchange.path, requestHeaders: exchange.headers, requestBody: exchange.requestBody, response };
  }

  /** Findings of the response and the whole exchange, when the upstream's response completed. */
  private completedResponseFindings(exchange: ProxiedExchange): Finding[] {
    if (exchange.status === null || !exchange.responseComplete) return [];
    return this.responseFindings(exchange, this.responseBody(exchange));
  }

  private responseBody(exchange: ProxiedExchange): BodyEvidence {
    const tap = exchange.responseTap;
    return !tap || tap.size === 0 ? NO_BODY : tap.overflowed ? { kind: 'omitted', reason: `body larger than ${this.maxBody} bytes`, cause: 'size' } : { kind: 'captured', raw: tap.bytes() };
  }

  /** Judges the response against the request's verdict, adding the time it took to the exchange's. */
  private responseFindings(exchange: ProxiedExchange, body: BodyEvidence): Finding[] {
    const verdict = this.requestVerdict(exchange);
    const started = performance.now();
    let findings: Finding[];
    try {
      findings = judgeResponse(this.contract, verdict, exchange.status!, headersObject(exchange.responseHeaders), body, this.judgeOptions);
    } catch (error) {
      findings = [this.judgingFailed(exchange, 'response', error)];
    }
    exchange.judgeSeconds += (performance.now() - started) / 1000;
    return findings;
  }

  /**
   * Counts every finding of one judged exchange (metrics and dashboard); writes to the log, and
   * lists among the latest, the first of each kind per interval (repeats.ts), building its line
   * only then.
   */
  private publish(exchange: ProxiedExchange, findings: Finding[], seconds: number): void {
    this.metrics.validationSeconds.observe(seconds);
    if (findings.length === 0) return;
    const operationId = exchange.location?.operation?.operationId ?? null;
    let identity: ExchangeIdentity | null = null;
    const identityOf = (): ExchangeIdentity =>
      (identity ??= {
        time: new Date(exchange.completedAt).toISOString(),
        requestId: exchange.requestId,
        method: exchange.method,
        path: maskCredentialQuery(exchange.path),
        operationId,
        status: exchange.status ?? exchange.proxyStatus,
      });
    const written: ViolationRecord[] = [];
    // One exchange often breaks one rule many times: the counter is increased once per rule and direction.
    const counted = new Map<string, { finding: Finding; count: number }>();
    for (const finding of findings) {
      const count = occurrences(finding);
      const key = `${finding.requirement} ${finding.location}`;
      const seen = counted.get(key);
      if (seen) seen.count += count;
      else counted.set(key, { finding, count });
      if (NOT_VALIDATED_RULES.has(finding.requirement)) this.metrics.bodiesNotValidated.inc({ direction: finding.location });
      const record = this.repeats.sighted(repeatKind(this.contract, finding, { method: exchange.method, path: exchange.path, operationId }), count, () => violationRecord(identityOf(), finding));
      if (record) written.push(record);
    }
    for (const { finding, count } of counted.values()) this.metrics.findings.inc({ rule: finding.requirement, direction: finding.location, party: partyOf(finding.location), level: finding.level }, count);
    this.violations.append(written);
    this.feed.recordFindings(operationLabel(exchange.location!), findings, written);
  }

  /** Writes the summary lines of the interval that ended (kinds that repeated, with their counts). */
  private readonly endRepeatInterval = (): void => {
    this.violations.append(this.repeats.endInterval());
  };

  private clientClosed(exchange: ProxiedExchange, res: ServerResponse): void {
    if (!res.writableFinished) {
      exchange.clientGone = true;
      exchange.abortUpstream?.(new Error('client closed the connection'));
      this.settle(exchange);
    }
    this.inFlight -= 1;
    if (this.inFlight === 0 && this.idle) this.idle();
  }

  private nextSampled(): boolean {
    if (this.mode === 'enforce' || this.sample >= 1) return true;
    this.sampleCredit += this.sample;
    if (this.sampleCredit < 1) return false;
    this.sampleCredit -= 1;
    return true;
  }

}

/**
 * The undici handler of one exchange: relays the upstream's status, headers and bytes as they
 * come (report mode), or holds them until judged (enforce mode, up to --max-body).
 */
class UpstreamRelay implements Dispatcher.DispatchHandler {
  private holding: boolean;
  private held: Buffer[] = [];
  private heldSize = 0;
  private statusText = '';
  private resume: () => void = () => undefined;
  /** How to send a request without a body once more, should undici refuse the upstream's answer (resend.ts). */
  resend: Resend | null = null;

  constructor(private readonly proxy: ValidatingProxy, private readonly exchange: ProxiedExchange, private readonly res: ServerResponse) {
    this.holding = proxy.mode === 'enforce';
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.exchange.clientGone) abort(new Error('client closed the connection'));
    else this.exchange.abortUpstream = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void, reasonPhrase: string): boolean {
    if (status < 200) return true;
    // undici reads the reason phrase as UTF-8, Node writes it as latin1: back to the bytes sent.
    const statusText = Buffer.from(reasonPhrase, 'utf8').toString('latin1');
    this.proxy.metrics.upstreamSeconds.observe((performance.now() - this.exchange.forwardedAt) / 1000);
    this.exchange.status = status;
    this.exchange.responseHeaders = endToEndHeaders(rawHeaders);
    if (this.exchange.sampled) this.exchange.responseTap = new BodyTap(this.proxy.maxBody);
    this.statusText = statusText;
    this.resume = resume;
    if (this.holding) return true;
    return this.proxy.startResponse(this.exchange, this.res, statusText);
  }

  onData(chunk: Buffer): boolean {
    this.exchange.responseTap?.add(chunk);
    if (!this.holding) return this.write(chunk);
    this.held.push(chunk);
    this.heldSize += chunk.length;
    if (this.heldSize <= this.proxy.maxBody) return true;
    // Too large to judge before answering: relay what is held and stream the rest.
    this.holding = false;
    if (!this.proxy.startResponse(this.exchange, this.res, this.statusText)) return false;
    const held = this.held;
    this.held = [];
    for (const part of held.slice(0, -1)) this.res.write(part);
    return this.write(held[held.length - 1]);
  }

  onComplete(): void {
    this.exchange.responseComplete = true;
    if (this.holding) this.proxy.finishBuffered(this.exchange, this.res, this.statusText, Buffer.concat(this.held, this.heldSize));
    else this.res.end();
    this.proxy.settle(this.exchange);
  }

  onError(error: Error): void {
    const { exchange } = this;
    // A 204, a 304 or an answer to HEAD ends with its headers (RFC 9112 section 6.3): bytes after them are not its body.
    if (exchange.status !== null && (exchange.status === 204 || exchange.status === 304 || exchange.method === 'HEAD') && (error as NodeJS.ErrnoException).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return this.onComplete();
    if (exchange.status === null && this.resend && resendable(exchange.method, error)) {
      const resend = this.resend;
      this.resend = null;
      return resendThroughNodeClient(resend, this);
    }
    this.proxy.upstreamFailed(this.exchange, this.res, error);
    this.proxy.settle(this.exchange);
  }

  private write(chunk: Buffer): boolean {
    if (this.res.write(chunk)) return true;
    this.res.once('drain', this.resume);
    return false;
  }
}

/** Creates a proxy, unstarted: `listen()` starts the proxy and admin servers, `close()` stops both. */
export function createValidatingProxy(options: ValidatingProxyOptions): ValidatingProxy {
  return new ValidatingProxy(options);
}

export interface StartedProxy extends ProxyAddresses {
  proxy: ValidatingProxy;
  close(): Promise<void>;
}

/** Creates and starts a proxy (port 0 picks free ports). */
export async function startValidatingProxy(options: ValidatingProxyOptions & ListenOptions): Promise<StartedProxy> {
  const proxy = createValidatingProxy(options);
  const addresses = await proxy.listen(options);
  return { ...addresses, proxy, close: () => proxy.close() };
}

/** Upstream error codes (undici's and the system's) by the failure they mean; anything else is a reset. */
export const UPSTREAM_FAILURE_CODES: Record<string, UpstreamFailure> = {
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EAI_AGAIN: 'unreachable',
  UND_ERR_HEADERS_OVERFLOW: 'invalid',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'invalid',
  ERR_INVALID_CHAR: 'invalid',
  ERR_HTTP_INVALID_HEADER_VALUE: 'invalid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted',
  CERT_HAS_EXPIRED: 'untrusted',
  CERT_NOT_YET_VALID: 'untrusted',
  CERT_REVOKED: 'untrusted',
  CERT_UNTRUSTED: 'untrusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'untrusted',
};

export function classifyUpstreamError(error: Error): UpstreamFailure {
  const code = String((error as NodeJS.ErrnoException).code ?? '');
  // llhttp's parse errors carry an HPE_ code, or none at all when the reply is not HTTP/1.x.
  if (error.name === 'HTTPParserError' || code.startsWith('HPE_')) return 'invalid';
  return UPSTREAM_FAILURE_CODES[code] ?? 'reset';
}

const SEVERITY_ORDER = { MUST: 0, SHOULD: 1, INFO: 2 } as const;

/** `Las-Violations`: the rule ids, most severe first, cut to a bounded length with a count of the rest. */
export function violationsHeaderValue(findings: readonly Finding[]): string | null {
  const rules = [...new Set([...findings].sort((a, b) => SEVERITY_ORDER[a.level] - SEVERITY_ORDER[b.level]).map((f) => f.requirement))];
  if (rules.length === 0) return null;
  const shown: string[] = [];
  let length = 0;
  for (const rule of rules) {
    if (length + rule.length + 2 > VIOLATIONS_HEADER_MAX_LENGTH - 8) break;
    shown.push(rule);
    length += rule.length + 2;
  }
  const rest = rules.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, +${rest}` : shown.join(', ');
}

/** The path before the contract's root in the upstream URL: `http://h/api/v3` → `/api`. */
export function upstreamPathPrefix(upstream: URL, basePath: string): string {
  const path = upstream.pathname.replace(/\/+$/, '');
  return path.endsWith(basePath) ? path.slice(0, path.length - basePath.length) : path;
}

/** The upstream as it may be shown: never its user information. */
export function upstreamDisplay(upstream: URL): string {
  return `${upstream.origin}${upstream.pathname.replace(/\/+$/, '')}`;
}

function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const absolute = new URL(url);
    return absolute.pathname + absolute.search;
  } catch {
    return '/';
  }
}

/** Whether either body of the exchange came in a content coding (its decoded size is unknown until decoded). */
function contentCoded(exchange: ProxiedExchange): boolean {
  const coded = (value: string | undefined) => value !== undefined && value.trim() !== '' && value.trim().toLowerCase() !== 'identity';
  return (exchange.requestBody.kind === 'captured' && coded(headerValue(exchange.headers, 'content-encoding'))) || (exchange.responseTap !== null && coded(rawHeaderValue(exchange.responseHeaders, 'content-encoding')));
}

function bodyBytes(body: BodyEvidence): number {
  return body.kind === 'captured' ? body.raw.byteLength : 0;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

interface BodyRead {
  chunks: Buffer[];
  size: number;
  complete: boolean;
}

/** Reads a request body while it fits the limit; past it, stops and hands back what it read. */
function readBodyUpTo(req: IncomingMessage, limit: number): Promise<BodyRead> {
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
      resolve({ chunks, size, complete: false });
    };
    const onEnd = () => {
      cleanup();
      resolve({ chunks, size, complete: true });
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

function listenOn(server: Server | HttpsServer, port: number, host: string, scheme: 'http' | 'https' = 'http'): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`${scheme}://${shownHost}:${address.port}`);
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
