// The undici handler of one exchange: relays the upstream's status, headers and bytes as they
// come (report mode), or holds them until judged (enforce mode, up to --max-body).
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { ClientAnswers } from './answers.ts';
import { BodyTap, ByteCollector, CHUNKS_KEPT_MAX } from './body.ts';
import type { ProxiedExchange } from './exchange.ts';
import { endToEndHeaders } from './headers.ts';
import type { ExchangeJudging } from './judging.ts';
import type { ForwardingBudget } from './fairness.ts';
import type { ProxyMetrics } from './metrics.ts';
import { resendable, resendThroughNodeClient } from './resend.ts';

const NON_ASCII = /[^\x00-\x7f]/;
const EMPTY = Buffer.alloc(0);
/** What resumes the upstream's body before its headers came: nothing (one function for every relay, not one each). */
const NOTHING_TO_RESUME = (): void => undefined;

export interface RelayParts {
  /** Enforce mode holds the response until it is judged. */
  holdResponses: boolean;
  maxBody: number;
  metrics: ProxyMetrics;
  answers: ClientAnswers;
  judging: ExchangeJudging;
  /**
   * Charged with what relaying (and in enforce mode judging) the answer takes, for the exchange's client (fairness.ts).
   */
  budget: ForwardingBudget;
  /** Where a request is sent once more through Node's client (resend.ts). */
  upstream: { url: URL; timeout: number; ca?: string | Buffer };
}

export class UpstreamRelay implements Dispatcher.DispatchHandler {
  private holding: boolean;
  /** What enforce mode holds of the response until it is judged (report mode holds nothing). */
  private held: ByteCollector | null = null;
  private statusText = '';
  private resume: () => void = NOTHING_TO_RESUME;

  private resent = false;

  /**
   * `forwarded`: the request as dispatched, sent once more should undici refuse the upstream's answer to it
   * (resend.ts).
   */
  constructor(
    private readonly parts: RelayParts,
    private readonly exchange: ProxiedExchange,
    private readonly res: ServerResponse,
    private readonly forwarded: Dispatcher.DispatchOptions,
  ) {
    this.holding = parts.holdResponses;
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.exchange.clientGone) abort(new Error('client closed the connection'));
    else this.exchange.abortUpstream = abort;
  }

  // What each step takes on the forwarding thread is charged to the exchange's client (fairness.ts).
  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void, reasonPhrase: string): boolean {
    const started = this.parts.budget.now();
    const more = this.relayHeaders(status, rawHeaders, resume, reasonPhrase);
    this.parts.budget.chargeSince(this.exchange.client, started);
    return more;
  }

  onData(chunk: Buffer): boolean {
    const started = this.parts.budget.now();
    const more = this.relayData(chunk);
    this.parts.budget.chargeSince(this.exchange.client, started);
    return more;
  }

  onComplete(): void {
    const started = this.parts.budget.now();
    this.complete();
    this.parts.budget.chargeSince(this.exchange.client, started);
  }

  private relayHeaders(status: number, rawHeaders: Buffer[], resume: () => void, reasonPhrase: string): boolean {
    if (status < 200) return true;
    // undici reads the reason phrase as UTF-8, Node writes it as latin1: back to the bytes sent.
    const statusText = NON_ASCII.test(reasonPhrase)
      ? Buffer.from(reasonPhrase, 'utf8').toString('latin1')
      : reasonPhrase;
    this.parts.metrics.upstreamSeconds.observe((performance.now() - this.exchange.forwardedAt) / 1000);
    this.exchange.status = status;
    this.exchange.responseHeaders = endToEndHeaders(rawHeaders);
    if (this.exchange.sampled) this.exchange.responseTap = new BodyTap(this.parts.maxBody);
    this.statusText = statusText;
    this.resume = resume;
    if (this.holding) return true;
    return this.parts.answers.startResponse(this.exchange, this.res, statusText);
  }

  private relayData(chunk: Buffer): boolean {
    this.exchange.responseTap?.add(chunk);
    if (!this.holding) return this.write(chunk);
    const held = (this.held ??= new ByteCollector());
    held.append(chunk);
    if (held.size <= this.parts.maxBody && held.chunks <= CHUNKS_KEPT_MAX) return true;
    // Too large to judge before answering: relay what is held and stream the rest.
    this.holding = false;
    this.held = null;
    if (!this.parts.answers.startResponse(this.exchange, this.res, this.statusText)) return false;
    return this.write(held.bytes());
  }

  private complete(): void {
    this.exchange.responseComplete = true;
    if (this.holding)
      this.parts.answers.finishHeld(this.exchange, this.res, this.statusText, this.held?.bytes() ?? EMPTY);
    else this.res.end();
    this.parts.judging.settle(this.exchange);
  }

  onError(error: Error): void {
    const { exchange } = this;
    // A 204, a 304 or an answer to HEAD ends with its headers (RFC 9112 section 6.3): bytes after them are not its
    // body.
    if (
      exchange.status !== null &&
      (exchange.status === 204 || exchange.status === 304 || exchange.method === 'HEAD') &&
      (error as NodeJS.ErrnoException).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
    )
      return this.onComplete();
    // Only a request without a body can be sent again: its body stream, if any, is spent.
    if (exchange.status === null && !this.resent && this.forwarded.body == null && resendable(exchange.method, error)) {
      this.resent = true;
      const { url, timeout, ca } = this.parts.upstream;
      return resendThroughNodeClient(
        {
          upstream: url,
          path: this.forwarded.path,
          method: exchange.method,
          headers: this.forwarded.headers as string[],
          timeout,
          ca,
        },
        this,
      );
    }
    this.parts.answers.upstreamFailed(exchange, this.res, error);
    this.parts.judging.settle(exchange);
  }

  private write(chunk: Buffer): boolean {
    if (this.res.write(chunk)) return true;
    this.res.once('drain', this.resume);
    return false;
  }
}
