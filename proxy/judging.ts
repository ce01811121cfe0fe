// Judging dispatch: once an exchange is over it is queued, counted, and judged off the response
// path, on the judging thread when that thread takes it (report mode, large bodies) or here;
// what it finds goes to the publisher. Enforce mode asks for the request's and the response's
// findings before answering, through the same methods, so nothing is judged twice.
import type { Logger } from 'pino';
import { performance } from 'node:perf_hooks';
import { locate, type Contract, type Finding } from '../contract/index.ts';
import type { DashboardFeed } from './dashboard.ts';
import type { ForwardingBudget } from './fairness.ts';
import { contentCoded, type ProxiedExchange } from './exchange.ts';
import { headersObject } from './headers.ts';
import {
  bodySize,
  judgeRequest,
  judgeResponse,
  NO_BODY,
  operationLabel,
  type CapturedBody,
  type CapturedExchange,
  type JudgeOptions,
  type JudgedRequest,
} from './judge.ts';
import { HEAP_SLACK_BODIES, HeapBound } from './heap-bound.ts';
import { JUDGE_BACKLOG_LIMITS, JUDGE_THREAD_MIN_BYTES, JudgeThread, type JudgedExchange } from './judge-thread.ts';
import type { ProxyMetrics } from './metrics.ts';
import type { Publisher } from './publisher.ts';
import type { ShedReason } from './sheds.ts';

export interface JudgingParts {
  contract: Contract;
  judgeOptions: JudgeOptions;
  metrics: ProxyMetrics;
  feed: DashboardFeed;
  publisher: Publisher;
  logger: Logger;
  /** Judge large report-mode exchanges on a worker thread. */
  onWorkerThread: boolean;
  /** The judging thread's script; tests pass one that never answers. */
  judgeThreadScript?: URL;
  /** Charged with what judging and publishing each client's exchanges takes on this thread (fairness.ts). */
  budget?: ForwardingBudget;
}

/** Why an exchange went unjudged (las_proxy_exchanges_shed_total's reason). */

/** Exchanges one client may have waiting for the judging thread: a quarter of its backlog. */
export const CLIENT_BACKLOG_SHARE = JUDGE_BACKLOG_LIMITS.exchanges / 4;
/** Body bytes one client may have waiting for the judging thread: a quarter of the ring they wait in. */
export const CLIENT_BACKLOG_BYTES = JUDGE_BACKLOG_LIMITS.bytes / 4;
/**
 * Judging time (s) one client may have waiting for the judging thread, as its exchanges judged
 * last took: a client whose bodies are small but slow to judge (a kilobyte of gzip inflating to
 * thousands of wrong items) cannot make everyone else's findings wait behind minutes of its own.
 */
export const CLIENT_BACKLOG_SECONDS = 2;
/** Clients whose judging time per exchange is remembered; past it, the oldest is forgotten. */
const CLIENT_COSTS_FOLLOWED = 10_000;

/** What one client has waiting for the judging thread. */
interface ClientBacklog {
  exchanges: number;
  bytes: number;
  seconds: number;
}

/** What one exchange waiting for the judging thread was charged to its client. */
interface BacklogCharge {
  bytes: number;
  seconds: number;
}

export class ExchangeJudging {
  private queue: ProxiedExchange[] = [];
  /** What each client has waiting for the judging thread. */
  private readonly backlogByClient = new Map<string, ClientBacklog>();
  /** The judging thread's time per exchange (s) of each client's exchanges, as last judged (a moving average). */
  private readonly secondsPerExchange = new Map<string, number>();
  private drainScheduled = false;
  private readonly judgeThread: JudgeThread | null;
  private readonly heap: HeapBound;

  constructor(private readonly parts: JudgingParts) {
    this.heap = new HeapBound(HEAP_SLACK_BODIES * parts.judgeOptions.maxBody);
    this.judgeThread = parts.onWorkerThread
      ? new JudgeThread({
          judge: parts.judgeOptions,
          script: parts.judgeThreadScript,
          onFailure: (error, unjudged) => this.judgeThreadFailed(error, unjudged),
        })
      : null;
  }

  /** Exchanges waiting on the judging thread, for the backlog gauge. */
  get backlog(): number {
    return this.judgeThread?.backlog ?? 0;
  }

  /** An exchange is over (answered, failed or cut): judge and publish it off the response path. */
  settle(exchange: ProxiedExchange): void {
    if (exchange.completedAt !== 0) return;
    exchange.completedAt = Date.now();
    this.queue.push(exchange);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drain);
    }
  }

  /** Resolves once every exchange settled so far has been judged and published. */
  async settled(): Promise<void> {
    do {
      await new Promise((resolve) => setImmediate(resolve));
      await this.judgeThread?.whenIdle();
    } while (this.queue.length > 0 || this.drainScheduled);
  }

  /**
   * Judges what is queued, then lets the judging thread finish (bounded); resolves with how many exchanges went
   * unjudged.
   */
  async close(timeoutMs: number): Promise<number> {
    this.drain();
    return (await this.judgeThread?.close(timeoutMs)) ?? 0;
  }

  /**
   * The request's findings, judged once; a judging failure stands beside them as PROXY-NOT-JUDGED (in the exchange's
   * admission findings).
   */
  judgedRequest(exchange: ProxiedExchange): JudgedRequest {
    if (!exchange.judgedRequest) {
      const { contract, judgeOptions, publisher } = this.parts;
      const started = performance.now();
      try {
        exchange.judgedRequest = judgeRequest(
          contract,
          exchange.method,
          exchange.path,
          exchange.headers,
          exchange.requestBody,
          judgeOptions,
          exchange.location ?? undefined,
        );
      } catch (error) {
        const { inApi, operation } = locate(contract, exchange.method, exchange.path);
        const request = { method: exchange.method, path: exchange.path, headers: exchange.headers };
        // The failure stands beside the request's findings, not among them: the response is still judged in full.
        exchange.admission = exchange.admission.concat(publisher.judgingFailed(exchange, 'request', error));
        exchange.judgedRequest = { inApi, operation, request, findings: [] };
      }
      exchange.judgeSeconds += (performance.now() - started) / 1000;
      // Enforce mode judges each request as it comes: a burst of large ones would otherwise leave all their garbage
      // until the first is over.
      if (bodySize(exchange.requestBody) >= JUDGE_THREAD_MIN_BYTES) this.heap.afterLargeBody();
    }
    return exchange.judgedRequest;
  }

  /** Judges the response against the request's request, adding the time it took to the exchange's. */
  responseFindings(exchange: ProxiedExchange, body: CapturedBody): Finding[] {
    const request = this.judgedRequest(exchange);
    const started = performance.now();
    let findings: Finding[];
    try {
      findings = judgeResponse(
        this.parts.contract,
        request,
        exchange.status!,
        headersObject(exchange.responseHeaders),
        body,
        this.parts.judgeOptions,
      );
    } catch (error) {
      findings = [this.parts.publisher.judgingFailed(exchange, 'response', error)];
    }
    exchange.judgeSeconds += (performance.now() - started) / 1000;
    return findings;
  }

  private readonly drain = (): void => {
    this.drainScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const { budget } = this.parts;
    for (const exchange of batch) {
      const started = budget?.now() ?? 0;
      this.judge(exchange);
      budget?.chargeSince(exchange.client, started);
    }
  };

  /**
   * Where an exchange is judged: here, on the judging thread, or nowhere (shed). The judging
   * thread takes only exchanges nothing of which was judged yet (enforce mode and the violations
   * header judge the request before answering): a request is judged once. An exchange that
   * belongs on the judging thread is never judged here instead when the thread is behind: that
   * would stall forwarding for everyone. It is shed and counted, and so is one from a client that
   * already holds its share of the backlog (in exchanges, bytes or judging time), so that no
   * client can crowd the others out: a client sending large bodies is shed before one sending
   * small ones.
   */
  private placeOf(exchange: ProxiedExchange, bytes: number): 'here' | 'worker' | ShedReason {
    const thread = this.judgeThread;
    if (exchange.judgedRequest !== null || thread === null) return 'here';
    const coded = contentCoded(exchange);
    if (!thread.wants(bytes, coded)) return 'here';
    const charge = { bytes, seconds: this.secondsPerExchange.get(exchange.client) ?? 0 };
    const held = this.backlogByClient.get(exchange.client) ?? { exchanges: 0, bytes: 0, seconds: 0 };
    // A client's first exchange always has room in its share, however large: the share bounds what waits behind it.
    if (
      held.exchanges > 0 &&
      (held.exchanges >= CLIENT_BACKLOG_SHARE ||
        held.bytes + charge.bytes > CLIENT_BACKLOG_BYTES ||
        held.seconds + charge.seconds > CLIENT_BACKLOG_SECONDS)
    )
      return 'client-share';
    if (!thread.hasRoom(bytes)) return 'backlog';
    const submitted = thread.submit(
      this.captured(exchange),
      (result) => this.publishJudged(exchange, result, charge),
      coded,
    );
    if (!submitted) return 'backlog';
    this.backlogByClient.set(exchange.client, {
      exchanges: held.exchanges + 1,
      bytes: held.bytes + charge.bytes,
      seconds: held.seconds + charge.seconds,
    });
    return 'worker';
  }

  /** The body bytes that would travel to the judging thread: none of a body too large to keep. */
  private bodyBytes(exchange: ProxiedExchange): number {
    const tap = exchange.responseTap;
    return bodySize(exchange.requestBody) + (tap && !tap.overflowed ? tap.size : 0);
  }

  private leftBacklog(client: string, charge: BacklogCharge, seconds: number): void {
    const held = this.backlogByClient.get(client);
    if (held) {
      if (held.exchanges <= 1) this.backlogByClient.delete(client);
      else
        this.backlogByClient.set(client, {
          exchanges: held.exchanges - 1,
          bytes: held.bytes - charge.bytes,
          seconds: Math.max(0, held.seconds - charge.seconds),
        });
    }
    this.rememberCost(client, seconds);
  }

  /** Folds what judging one of the client's exchanges took into its time per exchange. */
  private rememberCost(client: string, seconds: number): void {
    const known = this.secondsPerExchange.get(client);
    this.secondsPerExchange.delete(client);
    if (this.secondsPerExchange.size >= CLIENT_COSTS_FOLLOWED)
      this.secondsPerExchange.delete(this.secondsPerExchange.keys().next().value!);
    this.secondsPerExchange.set(client, known === undefined ? seconds : 0.75 * known + 0.25 * seconds);
  }

  /** Counts the exchange and judges it (here or on the judging thread), unless enforce mode already did. */
  private judge(exchange: ProxiedExchange): void {
    const { contract, metrics, feed, publisher } = this.parts;
    // An exchange the client abandoned may hold half a request: it is counted, not judged.
    const bytes = this.bodyBytes(exchange);
    const place = exchange.sampled && !exchange.clientGone ? this.placeOf(exchange, bytes) : null;
    const judged = place === 'here';
    if (judged && exchange.findings === null) {
      // Judged before the admission findings are read: a judging failure is added to them.
      const requestFindings = this.judgedRequest(exchange).findings;
      const responseFindings = this.completedResponseFindings(exchange);
      exchange.findings = exchange.admission.concat(requestFindings, responseFindings);
    }
    exchange.location = exchange.judgedRequest ?? exchange.location ?? locate(contract, exchange.method, exchange.path);
    const operation = operationLabel(exchange.location);
    if (place === 'backlog' || place === 'client-share') {
      metrics.shedExchanges.inc({ reason: place });
      publisher.shed(exchange, place, bytes);
      feed.recordShed();
    }
    metrics.exchanges.inc({
      operation,
      status: exchange.clientGone ? 'aborted' : String(exchange.proxyStatus ?? exchange.status),
    });
    feed.recordExchange(operation);
    if (!judged) return;
    metrics.judgedExchanges.inc({ thread: 'forwarding' });
    publisher.publish(exchange, exchange.findings!, exchange.judgeSeconds);
    // Large bodies judged on this thread (enforce mode, --no-judge-thread): the judging thread looks after its own.
    if (bytes >= JUDGE_THREAD_MIN_BYTES || contentCoded(exchange)) this.heap.afterLargeBody();
  }

  private publishJudged(exchange: ProxiedExchange, judged: JudgedExchange, charge: BacklogCharge): void {
    const started = this.parts.budget?.now() ?? 0;
    this.leftBacklog(exchange.client, charge, judged.seconds);
    this.publishJudgedHere(exchange, judged);
    this.parts.budget?.chargeSince(exchange.client, started);
  }

  /** Publishes what the judging thread found (the publishing is this thread's work, charged to the client). */
  private publishJudgedHere(exchange: ProxiedExchange, judged: JudgedExchange): void {
    const { metrics, publisher } = this.parts;
    const failed = (judged.failures ?? []).map((failure) =>
      publisher.judgingFailed(exchange, failure.location, new Error(failure.message)),
    );
    exchange.findings = exchange.admission.concat(judged.findings, failed);
    metrics.judgedExchanges.inc({ thread: 'worker' });
    publisher.publish(exchange, exchange.findings, judged.seconds);
  }

  private judgeThreadFailed(error: Error, unjudged: number): void {
    this.parts.logger.error(
      { err: error, unjudged },
      'judging thread failed: the exchanges it held go unjudged; judging on the forwarding thread from now on',
    );
  }

  /** What judging the exchange reads, as plain data. */
  private captured(exchange: ProxiedExchange): CapturedExchange {
    const response =
      exchange.status !== null && exchange.responseComplete
        ? { status: exchange.status, rawHeaders: exchange.responseHeaders, body: this.responseBody(exchange) }
        : null;
    return {
      method: exchange.method,
      path: exchange.path,
      requestHeaders: exchange.headers,
      requestBody: exchange.requestBody,
      response,
    };
  }

  /** Findings of the response and the whole exchange, when the upstream's response completed. */
  private completedResponseFindings(exchange: ProxiedExchange): Finding[] {
    if (exchange.status === null || !exchange.responseComplete) return [];
    return this.responseFindings(exchange, this.responseBody(exchange));
  }

  private responseBody(exchange: ProxiedExchange): CapturedBody {
    const tap = exchange.responseTap;
    return !tap || tap.size === 0
      ? NO_BODY
      : tap.overflowed
        ? { kind: 'omitted', reason: tap.overflowReason, cause: 'size' }
        : { kind: 'captured', raw: tap.bytes() };
  }
}
