// The validating reverse proxy (docs/certification.md §6): building, listening, admitting
// requests and closing. Forwarding runs on undici (a keep-alive pool to the upstream, raw headers,
// back-pressure both ways); one exchange reads top to bottom as handleRequest → admit (enforce
// mode may refuse here, answers.ts) → UpstreamRelay (relay.ts) → ExchangeJudging.settle
// (judging.ts) → Publisher (publisher.ts). In report mode every response reaches the client as the
// upstream sent it and is judged after it completed; in enforce mode the proxy judges before it
// answers and refuses what breaks the contract.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Pool, type Dispatcher } from 'undici';
import { loadContract, readCredentials, route, type Contract, type Finding } from '../contract/index.ts';
import { createAdminServer } from './admin.ts';
import { ExchangeCapture } from './capture.ts';
import { ClientIdentity } from './client-identity.ts';
import { admissionFindings } from './admission.ts';
import { ClientAnswers } from './answers.ts';
import { DashboardFeed } from './dashboard.ts';
import { refusalOf } from './errors.ts';
import { ProxiedExchange } from './exchange.ts';
import { addForwardedHeaders, forwardedRequestHeaders, withoutHeader } from './headers.ts';
import { judgeRequest, locate, NO_BODY, type JudgeOptions } from './judge.ts';
import { ExchangeJudging } from './judging.ts';
import { ForwardingBudget } from './fairness.ts';
import { createProxyMetrics, type ProxyMetrics } from './metrics.ts';
import { Publisher } from './publisher.ts';
import { REPEAT_INTERVAL_MS } from './repeats.ts';
import { UpstreamRelay, type RelayParts } from './relay.ts';
import { hasBody, readBodyUpTo } from './request-body.ts';
import { ViolationsLog } from './violations.ts';
import {
  PROXY_DEFAULTS,
  type ListenOptions,
  type ProxyAddresses,
  type ProxyMode,
  type ValidatingProxyOptions,
} from './options.ts';

export { PROXY_DEFAULTS, type ListenOptions, type ProxyAddresses, type ProxyMode, type ValidatingProxyOptions };

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
  private readonly forwardedHeaders: boolean;
  private readonly identity: ClientIdentity;
  private readonly drainTimeout: number;
  private readonly judgeOptions: JudgeOptions;
  private readonly pool: Pool;
  private readonly violations: ViolationsLog;
  private readonly logger: Logger;
  private readonly publisher: Publisher;
  private readonly capture: ExchangeCapture | null;
  private readonly judging: ExchangeJudging;
  private readonly answers: ClientAnswers;
  private readonly relayParts: RelayParts;
  /** Each client's share of the forwarding thread (fairness.ts). */
  readonly budget = new ForwardingBudget();
  private sampleCredit = 0;
  private inFlight = 0;
  private closing = false;
  private idle: (() => void) | null = null;
  private closed: Promise<void> | null = null;

  constructor(options: ValidatingProxyOptions) {
    this.upstream = new URL(options.upstream);
    if (this.upstream.protocol !== 'http:' && this.upstream.protocol !== 'https:')
      throw new Error(`upstream must be an http or https URL, got ${this.upstream.protocol}`);
    this.contract = options.contract ?? loadContract();
    this.upstreamPrefix = upstreamPathPrefix(this.upstream, this.contract.basePath);
    this.mode = options.mode ?? PROXY_DEFAULTS.mode;
    this.maxBody = options.maxBody ?? PROXY_DEFAULTS.maxBody;
    this.upstreamTimeout = options.upstreamTimeout ?? PROXY_DEFAULTS.upstreamTimeout;
    this.upstreamCa = options.upstreamCa;
    this.sample = options.sample ?? PROXY_DEFAULTS.sample;
    this.forwardedHeaders = options.forwardedHeaders ?? false;
    if (!this.forwardedHeaders && (options.trustedProxies?.length ?? 0) > 0)
      throw new Error(
        '--trusted-proxies names the proxies whose forwarding headers are read, which only --forwarded-headers does: add --forwarded-headers, or leave --trusted-proxies out',
      );
    this.identity = new ClientIdentity({
      forwardedHeaders: this.forwardedHeaders,
      trustedProxies: options.trustedProxies ?? [],
    });
    this.drainTimeout = options.drainTimeout ?? PROXY_DEFAULTS.drainTimeout;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.judgeOptions = { includeValues: options.logValues ?? false, maxBody: this.maxBody };
    this.violations = new ViolationsLog(options.violations ?? null, {
      onFailure: (error) =>
        this.logger.error(
          { error: error.message, code: (error as NodeJS.ErrnoException).code },
          'writing the violations log failed: findings are still counted on /metrics (las_proxy_violations_lines_lost_total counts the lines lost), /readyz says so, SIGHUP reopens the file',
        ),
      onLost: (lines) => this.metrics.violationsLinesLost.inc(lines),
      onDropped: (lines) => this.metrics.violationsLinesDropped.inc(lines),
    });
    this.metrics = createProxyMetrics({ judgeBacklog: () => this.judging.backlog });
    this.feed = new DashboardFeed(this.contract, { upstream: upstreamDisplay(this.upstream), mode: this.mode });
    this.pool = new Pool(this.upstream.origin, {
      connections: options.upstreamConnections ?? PROXY_DEFAULTS.upstreamConnections,
      pipelining: 1,
      connect: { timeout: this.upstreamTimeout, ...(this.upstreamCa === undefined ? {} : { ca: this.upstreamCa }) },
    });
    this.capture = options.capture
      ? new ExchangeCapture(options.capture, {
          legacyHeader: this.contract.legacyHeader,
          maxBody: this.maxBody,
          metrics: this.metrics,
          logger: this.logger,
        })
      : null;
    this.publisher = new Publisher({
      contract: this.contract,
      metrics: this.metrics,
      feed: this.feed,
      violations: this.violations,
      logger: this.logger,
      repeatInterval: options.repeatInterval ?? REPEAT_INTERVAL_MS,
      capture: this.capture,
    });
    // Enforce mode judges before answering, on the forwarding thread; with --sample 0 nothing is judged.
    const onWorkerThread =
      (options.judgeThread ?? PROXY_DEFAULTS.judgeThread) && this.mode === 'report' && this.sample > 0;
    this.judging = new ExchangeJudging({
      contract: this.contract,
      judgeOptions: this.judgeOptions,
      metrics: this.metrics,
      feed: this.feed,
      publisher: this.publisher,
      logger: this.logger,
      onWorkerThread,
      judgeThreadScript: options.judgeThreadScript,
      budget: this.budget,
    });
    this.answers = new ClientAnswers({
      judging: this.judging,
      metrics: this.metrics,
      logger: this.logger,
      violationsHeader: options.violationsHeader ?? false,
      draining: () => this.closing,
      legacyHeader: this.contract.legacyHeader,
    });
    this.relayParts = {
      holdResponses: this.mode === 'enforce',
      maxBody: this.maxBody,
      metrics: this.metrics,
      answers: this.answers,
      judging: this.judging,
      budget: this.budget,
      upstream: { url: this.upstream, timeout: this.upstreamTimeout, ca: this.upstreamCa },
    };
    this.server = options.tls
      ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, this.handleRequest)
      : createServer(this.handleRequest);
    this.adminServer = createAdminServer({
      metrics: this.metrics,
      feed: this.feed,
      upstream: this.upstream,
      accepting: () => !this.closing,
      token: options.adminToken,
      trouble: () => this.violationsTrouble(),
    });
  }

  async listen(options: ListenOptions = {}): Promise<ProxyAddresses> {
    const host = options.host ?? '127.0.0.1';
    const proxyUrl = await listenOn(
      this.server,
      options.port ?? 0,
      host,
      this.server instanceof HttpsServer ? 'https' : 'http',
    );
    let adminUrl: string;
    try {
      adminUrl = await listenOn(this.adminServer, options.adminPort ?? 0, options.adminHost ?? '127.0.0.1');
    } catch (error) {
      this.server.close();
      throw error;
    }
    const addresses = { proxyUrl, baseUrl: `${proxyUrl}${this.contract.basePath}`, adminUrl };
    this.logger.info(
      { ...addresses, upstream: upstreamDisplay(this.upstream), mode: this.mode },
      'validating proxy listening',
    );
    return addresses;
  }

  /** Why the violations log does not take every line, or null while it does (/readyz). */
  private violationsTrouble(): string | null {
    const { failed } = this.violations;
    if (failed) return `violations log failing (${(failed as NodeJS.ErrnoException).code ?? failed.message})`;
    if (this.violations.behind)
      return 'violations log not keeping up: lines dropped (las_proxy_violations_lines_dropped_total)';
    return null;
  }

  /**
   * Writes the violations to `destination` from now on (SIGHUP after logrotate); returns the old destination, to be
   * closed.
   */
  replaceViolations(destination: Writable): Writable | null {
    return this.violations.replace(destination);
  }

  /** Resolves once every exchange completed so far has been judged and its findings written. */
  async settled(): Promise<void> {
    await this.judging.settled();
    this.violations.flush();
    await this.capture?.flushed();
  }

  /**
   * Drains as load balancers expect: stops accepting connections, closes idle ones, answers every
   * request in flight or arriving on an open connection with `Connection: close` (so no
   * connection takes another), waits for those answers to be whole (up to the drain timeout),
   * then judges and logs what is left.
   */
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
    const unjudged = await this.judging.close(this.drainTimeout);
    if (unjudged > 0)
      this.logger.warn({ unjudged }, 'closed before the judging thread caught up: some exchanges go unjudged');
    this.publisher.close();
    await this.capture?.flushed();
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
    const started = this.budget.now();
    this.inFlight += 1;
    // The upstream's Date passes through; the proxy adds none of its own.
    res.sendDate = false;
    const exchange = new ProxiedExchange(
      req,
      this.nextSampled(),
      this.identity.clientOf({
        peer: req.socket.remoteAddress,
        forwardedFor: req.headers['x-forwarded-for'],
        forwarded: req.headers.forwarded,
      }),
    );
    res.on('close', () => this.clientClosed(exchange, res));
    this.budget.request(exchange.client);
    // A client past its share of the forwarding thread is held back (fairness.ts): its body stays unread meanwhile.
    if (!this.heldBack(exchange, req, res, () => this.read(exchange, req, res))) this.read(exchange, req, res);
    this.budget.chargeSince(exchange.client, started);
  };

  /**
   * Whether the client has taken its share of the forwarding thread while others were served
   * too (fairness.ts): then its connection is paused (nothing more of it is read) and `next`
   * runs, charged to it, once it is within its share of a window again.
   */
  private heldBack(exchange: ProxiedExchange, req: IncomingMessage, res: ServerResponse, next: () => void): boolean {
    const wait = this.closing ? 0 : this.budget.delayFor(exchange.client);
    if (wait === 0) return false;
    if (!exchange.heldBack) {
      exchange.heldBack = true;
      this.metrics.deferredRequests.inc();
    }
    // A socket Node paused itself (a client pipelining faster than it reads answers) stays Node's to resume.
    const pausedHere = !req.socket.isPaused();
    if (pausedHere) req.socket.pause();
    const retry = () => {
      if (res.destroyed) return;
      const again = this.closing ? 0 : this.budget.delayFor(exchange.client);
      if (again > 0) return void setTimeout(retry, again);
      const started = this.budget.now();
      if (pausedHere) req.socket.resume();
      next();
      this.budget.chargeSince(exchange.client, started);
    };
    setTimeout(retry, wait);
    return true;
  }

  /**
   * Reads the request's body when it has one to judge, then admits it (once its client is within its share again,
   * should reading it have taken more).
   */
  private read(exchange: ProxiedExchange, req: IncomingMessage, res: ServerResponse): void {
    if (res.destroyed) return;
    if (!hasBody(req)) return this.admit(exchange, req, res, null);
    if (!exchange.sampled) return this.admit(exchange, req, res, req);
    readBodyUpTo(req, this.maxBody).then(
      (read) => {
        const started = this.budget.now();
        exchange.requestBody = read.complete
          ? { kind: 'captured', raw: read.raw }
          : { kind: 'omitted', reason: read.reason, cause: 'size' };
        exchange.forwardedBody = read.complete ? read.raw : read.stream;
        if (!this.heldBack(exchange, req, res, () => this.admitRead(exchange, req, res)))
          this.admitRead(exchange, req, res);
        this.budget.chargeSince(exchange.client, started);
      },
      () => res.destroy(),
    );
  }

  /** Admits a request whose body was read (what read it kept is forwarded). */
  private admitRead(exchange: ProxiedExchange, req: IncomingMessage, res: ServerResponse): void {
    this.admit(exchange, req, res, exchange.forwardedBody);
  }

  /**
   * Enforce mode judges the request first and answers itself when it breaks the contract or
   * cannot be judged as the upstream would read it (admission.ts); report mode notes the same and
   * forwards the request as sent.
   */
  private admit(
    exchange: ProxiedExchange,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | Readable | null,
  ): void {
    if (exchange.sampled) exchange.admission = this.admissionOf(exchange, req);
    if (this.mode === 'enforce') {
      const request = this.judging.judgedRequest(exchange);
      const findings =
        request.inApi || exchange.admission.length > 0 ? request.findings.concat(exchange.admission) : request.findings;
      const refusal = refusalOf(
        this.contract,
        findings,
        readCredentials(exchange.headers, this.contract.legacyHeader).kind,
      );
      if (refusal) {
        exchange.findings = findings;
        // An unread body is not drained: the connection closes after the answer.
        if ((body !== null && !Buffer.isBuffer(body)) || exchange.requestBody.kind === 'omitted')
          res.shouldKeepAlive = false;
        else req.resume();
        this.answers.refuse(exchange, res, refusal, findings);
        return this.judging.settle(exchange);
      }
    }
    let headers = forwardedRequestHeaders(req.rawHeaders);
    if (exchange.requestIdRefused) {
      headers = withoutHeader(headers, 'x-request-id');
      this.logger.warn(
        { requestId: exchange.requestId, method: exchange.method },
        'X-Request-Id replaced: longer than 200 characters, empty, repeated or outside the token set',
      );
    }
    if (!exchange.requestIdGiven) headers.push('x-request-id', exchange.requestId);
    if (this.forwardedHeaders)
      addForwardedHeaders(
        headers,
        { address: req.socket.remoteAddress, host: req.headers.host, encrypted: 'encrypted' in req.socket },
        this.identity.trusts(req.socket.remoteAddress),
      );
    const options: Dispatcher.DispatchOptions = {
      path: this.upstreamPrefix + exchange.path,
      method: exchange.method,
      headers,
      body,
      headersTimeout: this.upstreamTimeout,
      bodyTimeout: this.upstreamTimeout,
    };
    exchange.forwardedAt = performance.now();
    const relay = new UpstreamRelay(this.relayParts, exchange, res, options);
    this.pool.dispatch(options, relay);
  }

  /** What the proxy could not judge as the upstream will read it (admission.ts), and HEAD judged as its GET. */
  private admissionOf(exchange: ProxiedExchange, req: IncomingMessage): Finding[] {
    const located = locate(this.contract, exchange.method, exchange.path);
    // Judging reads where the request belongs from here rather than locating it again.
    exchange.location = located;
    let findings = admissionFindings(this.contract, {
      method: exchange.method,
      path: exchange.path,
      rawHeaders: req.rawHeaders,
      operation: located.operation,
      forwardedHeaders: this.forwardedHeaders && !this.identity.trusts(req.socket.remoteAddress),
    });
    // HEAD asks for what GET would answer: a HEAD the contract's GET rejects is judged as that GET.
    if (exchange.method === 'HEAD' && located.inApi && route(this.contract, 'GET', exchange.path)) {
      const asGet = judgeRequest(
        this.contract,
        'GET',
        exchange.path,
        exchange.headers,
        NO_BODY,
        this.judgeOptions,
      ).findings.filter((f) => f.level === 'MUST' && f.location === 'request');
      findings = findings.concat(asGet);
    }
    return findings;
  }

  private clientClosed(exchange: ProxiedExchange, res: ServerResponse): void {
    if (!res.writableFinished) {
      exchange.clientGone = true;
      exchange.abortUpstream?.(new Error('client closed the connection'));
      this.judging.settle(exchange);
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

/** The path before the contract's root in the upstream URL: `http://h/api/v3` → `/api`. */
export function upstreamPathPrefix(upstream: URL, basePath: string): string {
  const path = upstream.pathname.replace(/\/+$/, '');
  return path.endsWith(basePath) ? path.slice(0, path.length - basePath.length) : path;
}

/** The upstream as it may be shown: never its user information. */
export function upstreamDisplay(upstream: URL): string {
  return `${upstream.origin}${upstream.pathname.replace(/\/+$/, '')}`;
}

/** Starts a server and says where it listens; once() rejects with the error should the port be taken. */
async function listenOn(
  server: Server | HttpsServer,
  port: number,
  host: string,
  scheme: 'http' | 'https' = 'http',
): Promise<string> {
  await once(server.listen(port, host), 'listening');
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${shownHost}:${address.port}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
