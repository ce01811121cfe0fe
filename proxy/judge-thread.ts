// Judging off the forwarding thread. Parsing a large body costs more than forwarding it, so in
// report mode exchanges with large bodies are judged on a worker thread and the forwarding
// thread goes on relaying bytes. Posting a message has a cost of its own, about that of judging
// a small exchange: small exchanges stay on the forwarding thread, and the rest are posted in
// batches (a full batch, or whatever gathered within a few milliseconds). The backlog is
// bounded; past it, or once the worker has failed, submit() refuses and the caller judges the
// exchange itself, which slows forwarding down to the pace of judging.
import { Worker } from 'node:worker_threads';
import type { Finding } from '../contract/index.ts';
import type { BodyEvidence, ExchangeEvidence, JudgeOptions } from './judge.ts';

export interface JudgedExchange {
  findings: Finding[];
  /** Time judging took on the worker, in seconds. */
  seconds: number;
  /** Set when judging threw: the exchange has no findings then. */
  error?: string;
}

export interface JudgeBatch {
  evidence: ExchangeEvidence[];
}

type Settle = (judged: JudgedExchange) => void;

/** Exchanges with fewer body bytes are judged where they were forwarded (bench/proxy.bench.ts). */
export const JUDGE_THREAD_MIN_BYTES = 8 * 1024;
export const JUDGE_BATCH = { exchanges: 64, delayMs: 5 };
export const JUDGE_BACKLOG_LIMITS = { exchanges: 1024, bytes: 64 * 1024 * 1024 };

export const JUDGE_WORKER_SCRIPT = new URL('./judge-worker.js', import.meta.url);

export interface JudgeThreadOptions {
  judge: JudgeOptions;
  /** The worker is gone; `unjudged` exchanges it held will never be answered. */
  onFailure(error: Error, unjudged: number): void;
  /** The worker's script; tests pass a failing one. */
  script?: URL;
}

export class JudgeThread {
  private readonly worker: Worker;
  private batch: ExchangeEvidence[] = [];
  private transfer: ArrayBuffer[] = [];
  private batchSettles: Settle[] = [];
  private batchBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The settle callbacks of each batch posted and not yet answered, oldest first. */
  private readonly posted: { settles: Settle[]; bytes: number }[] = [];
  private backlogBytes = 0;
  private failed = false;
  private idle: (() => void)[] = [];
  /** Exchanges submitted and not yet answered. */
  backlog = 0;

  constructor(private readonly options: JudgeThreadOptions) {
    this.worker = new Worker(options.script ?? JUDGE_WORKER_SCRIPT, { workerData: options.judge });
    this.worker.on('message', (results: JudgedExchange[]) => this.answered(results));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`judging thread exited with code ${code}`)));
    this.worker.unref();
  }

  /** Whether an exchange carrying `bytes` of body goes to the worker; false: judge it here (small, backlog full, or worker failed). */
  accepts(bytes: number): boolean {
    if (this.failed || bytes < JUDGE_THREAD_MIN_BYTES) return false;
    return this.backlog < JUDGE_BACKLOG_LIMITS.exchanges && this.backlogBytes + bytes <= JUDGE_BACKLOG_LIMITS.bytes;
  }

  /** Queues one exchange; false when accepts() refuses it: judge it here. */
  submit(evidence: ExchangeEvidence, settle: Settle): boolean {
    const bytes = bodySize(evidence.requestBody) + (evidence.response ? bodySize(evidence.response.body) : 0);
    if (!this.accepts(bytes)) return false;
    this.batch.push(withOwnBuffers(evidence, this.transfer));
    this.batchSettles.push(settle);
    this.batchBytes += bytes;
    this.backlog += 1;
    this.backlogBytes += bytes;
    if (this.batch.length >= JUDGE_BATCH.exchanges) this.flush();
    else this.timer ??= setTimeout(this.flush, JUDGE_BATCH.delayMs);
    return true;
  }

  /** Resolves once every exchange submitted so far has been answered (or the worker failed). */
  whenIdle(): Promise<void> {
    this.flush();
    if (this.backlog === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Waits (at most `timeoutMs`) for the backlog to be judged, then stops the worker; resolves with how many went unjudged. */
  async close(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.whenIdle(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const unjudged = this.backlog;
    this.failed = true;
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
    return unjudged;
  }

  /** Posts the exchanges gathered since the last post as one batch. */
  private readonly flush = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.batch.length === 0 || this.failed) return;
    this.posted.push({ settles: this.batchSettles, bytes: this.batchBytes });
    this.worker.postMessage({ evidence: this.batch } satisfies JudgeBatch, this.transfer);
    this.batch = [];
    this.transfer = [];
    this.batchSettles = [];
    this.batchBytes = 0;
  };

  private answered(results: JudgedExchange[]): void {
    const batch = this.posted.shift();
    if (!batch) return;
    this.backlog -= batch.settles.length;
    this.backlogBytes -= batch.bytes;
    batch.settles.forEach((settle, i) => settle(results[i]));
    if (this.backlog === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    if (this.timer) clearTimeout(this.timer);
    const unjudged = this.backlog;
    this.posted.length = 0;
    this.batch = [];
    this.batchSettles = [];
    this.transfer = [];
    this.backlog = 0;
    this.backlogBytes = 0;
    this.options.onFailure(error, unjudged);
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

function bodySize(body: BodyEvidence): number {
  return body.kind === 'captured' ? body.raw.byteLength : 0;
}

/**
 * The evidence with each body copied into a buffer of its own, listed for transfer. The bytes
 * the proxy captured may still sit in a socket's write queue, so they are never transferred
 * themselves (that would empty them); posting the captured view would copy its whole slab.
 */
function withOwnBuffers(evidence: ExchangeEvidence, transfer: ArrayBuffer[]): ExchangeEvidence {
  const own = (body: BodyEvidence): BodyEvidence => {
    if (body.kind !== 'captured') return body;
    const raw = new Uint8Array(body.raw);
    transfer.push(raw.buffer);
    return { kind: 'captured', raw };
  };
  return { ...evidence, requestBody: own(evidence.requestBody), response: evidence.response && { ...evidence.response, body: own(evidence.response.body) } };
}
