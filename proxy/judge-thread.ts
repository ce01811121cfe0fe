// Judging off the forwarding thread. Parsing a large body costs more than forwarding it, so in
// report mode exchanges with large bodies are judged on a worker thread and the forwarding
// thread goes on relaying bytes. Posting a message has a cost of its own, about that of judging
// a small exchange: small exchanges stay on the forwarding thread, and the rest are posted in
// batches (a full batch, or whatever gathered within a few milliseconds). Their bodies travel
// through a ring of shared memory (byte-ring.ts) rather than in buffers of their own. The
// backlog is bounded by exchanges and by the ring's size; past it, or once the worker has
// failed, submit() refuses and the caller judges the exchange itself, which slows forwarding
// down to the pace of judging. The worker and its ring are started by the first exchange that
// belongs there: a proxy that never sees a large or coded body never pays for a second thread
// (about half a CPU-second to start, and the ring's 32 MiB). Once nothing has been posted to it
// for JUDGE_THREAD_IDLE_MS, the worker is stopped and its ring let go: the heap a burst of large
// bodies grew goes back to the system, and the next exchange that belongs there starts a new one.
import { Worker } from 'node:worker_threads';
import type { Finding } from '../contract/index.ts';
import { ByteRing } from './byte-ring.ts';
import { collectFully } from './heap-bound.ts';
import { bodySize, type CapturedBody, type CapturedExchange, type JudgeOptions, type JudgingFailure } from './judge.ts';

export interface JudgedExchange {
  findings: Finding[];
  /** Time judging took on the worker, in seconds. */
  seconds: number;
  /** The parts whose judging threw (the findings hold the other part's). */
  failures?: JudgingFailure[];
}

/** A body as posted to the worker: a captured one is a stretch of the shared ring. */
export type PostedBody =
  Exclude<CapturedBody, { kind: 'captured' }> | { kind: 'shared'; offset: number; length: number };

/** The captured of one exchange as posted to the worker. */
export type PostedExchange = CapturedExchange<PostedBody>;

export interface JudgeBatch {
  captured: PostedExchange[];
}

/** What the worker is started with: the judging options and the ring the bodies lie in. */
export interface JudgeWorkerData {
  judge: JudgeOptions;
  bodies: SharedArrayBuffer;
}

type Settle = (judged: JudgedExchange) => void;

/** Exchanges with fewer body bytes are judged where they were forwarded (bench/proxy.bench.ts). */
export const JUDGE_THREAD_MIN_BYTES = 8 * 1024;
export const JUDGE_BATCH = { exchanges: 64, delayMs: 5 };
/** The most exchanges posted and unanswered, and the size of the ring their bodies lie in. */
export const JUDGE_BACKLOG_LIMITS = { exchanges: 1024, bytes: 32 * 1024 * 1024 };

export const JUDGE_WORKER_SCRIPT = new URL('./judge-worker.js', import.meta.url);

/**
 * How long the worker may go without an exchange before it is stopped. Long enough that steady
 * traffic never pays the start again; at worst a large body every so often restarts it, half a
 * CPU-second each time.
 */
export const JUDGE_THREAD_IDLE_MS = 15_000;

export interface JudgeThreadOptions {
  judge: JudgeOptions;
  /** The worker is gone; `unjudged` exchanges it held will never be answered. */
  onFailure(error: Error, unjudged: number): void;
  /** The worker's script; tests pass a failing one. */
  script?: URL;
  /** Size of the ring the bodies travel in (default JUDGE_BACKLOG_LIMITS.bytes); tests pass a small one. */
  ringBytes?: number;
  /** How long the worker may go without an exchange before it is stopped (default JUDGE_THREAD_IDLE_MS). */
  idleMs?: number;
}

/** The worker and the ring its bodies lie in, once started. */
interface StartedWorker {
  worker: Worker;
  ring: ByteRing;
}

export class JudgeThread {
  private started: StartedWorker | null = null;
  private batch: PostedExchange[] = [];
  private batchSettles: Settle[] = [];
  /** Ring bytes the batch being gathered holds. */
  private batchTaken = 0;
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The settle callbacks and ring bytes of each batch posted and not yet answered, oldest first. */
  private readonly posted: { settles: Settle[]; taken: number }[] = [];
  private failed = false;
  private idle: (() => void)[] = [];
  /** Exchanges submitted and not yet answered. */
  backlog = 0;

  constructor(private readonly options: JudgeThreadOptions) {}

  /** Whether the worker was started (by the first exchange that belongs there). */
  get running(): boolean {
    return this.started !== null;
  }

  /** The worker and its ring, started on first use. */
  private get thread(): StartedWorker {
    if (this.started) return this.started;
    const ring = new ByteRing(this.options.ringBytes ?? JUDGE_BACKLOG_LIMITS.bytes);
    const worker = new Worker(this.options.script ?? JUDGE_WORKER_SCRIPT, {
      workerData: { judge: this.options.judge, bodies: ring.buffer } satisfies JudgeWorkerData,
    });
    worker.on('message', (results: JudgedExchange[]) => this.answered(results));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`judging thread exited with code ${code}`)));
    worker.unref();
    this.started = { worker, ring };
    return this.started;
  }

  /**
   * Whether an exchange carrying `bytes` of body goes to the worker; false: judge it here (small,
   * backlog full, or worker failed). A content-coded body goes whatever its size: a few hundred
   * bytes of gzip can inflate to a megabyte, and judging that would stall forwarding.
   */
  accepts(bytes: number, encoded = false): boolean {
    return this.wants(bytes, encoded) && this.hasRoom(bytes);
  }

  /**
   * Whether an exchange carrying `bytes` of body belongs on the worker (large or content-coded), while the worker
   * lives.
   */
  wants(bytes: number, encoded = false): boolean {
    return !this.failed && (bytes >= JUDGE_THREAD_MIN_BYTES || encoded);
  }

  /** Whether the backlog has room for one more exchange of `bytes`. */
  hasRoom(bytes: number): boolean {
    return this.backlog < JUDGE_BACKLOG_LIMITS.exchanges && this.thread.ring.fits(bytes);
  }

  /** Queues one exchange; false when accepts() refuses it: judge it here. */
  submit(captured: CapturedExchange, settle: Settle, encoded = false): boolean {
    const bytes = bodySize(captured.requestBody) + (captured.response ? bodySize(captured.response.body) : 0);
    if (!this.accepts(bytes, encoded)) return false;
    this.stopIdleTimer();
    const { ring } = this.thread;
    const piece = ring.reserve(bytes)!;
    this.batch.push(postedExchange(captured, ring.bytes, piece.offset));
    this.batchSettles.push(settle);
    this.batchTaken += piece.taken;
    this.backlog += 1;
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

  /**
   * Waits (at most `timeoutMs`) for the backlog to be judged, then stops the worker; resolves with how many went
   * unjudged.
   */
  async close(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.whenIdle(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const unjudged = this.backlog;
    this.failed = true;
    this.stopIdleTimer();
    if (this.started) {
      this.started.worker.removeAllListeners('exit');
      await this.started.worker.terminate();
    }
    return unjudged;
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Stops the worker once it has gone `idleMs` without an exchange; the next one that belongs there starts another. */
  private readonly stopWhenIdle = (): void => {
    this.idleTimer = null;
    const started = this.started;
    if (!started || this.failed || this.backlog > 0 || this.batch.length > 0) return;
    this.started = null;
    started.worker.removeAllListeners();
    // Errors of a worker being stopped say nothing about judging: nothing is left to it.
    started.worker.on('error', () => undefined);
    // The ring is memory outside the heap, freed only when a collection finds it unreachable: an
    // idle forwarding thread may not collect for a long while, so one collection follows the stop.
    started.worker
      .terminate()
      .then(collectFully)
      .catch(() => undefined);
  };

  /** Posts the exchanges gathered since the last post as one batch. */
  private readonly flush = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.batch.length === 0 || this.failed) return;
    this.posted.push({ settles: this.batchSettles, taken: this.batchTaken });
    this.thread.worker.postMessage({ captured: this.batch } satisfies JudgeBatch);
    this.batch = [];
    this.batchSettles = [];
    this.batchTaken = 0;
  };

  private answered(results: JudgedExchange[]): void {
    const batch = this.posted.shift();
    if (!batch) return;
    this.backlog -= batch.settles.length;
    this.thread.ring.release(batch.taken);
    batch.settles.forEach((settle, i) => settle(results[i]));
    if (this.backlog > 0) return;
    for (const resolve of this.idle.splice(0)) resolve();
    this.stopIdleTimer();
    this.idleTimer = setTimeout(this.stopWhenIdle, this.options.idleMs ?? JUDGE_THREAD_IDLE_MS);
    this.idleTimer.unref();
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopIdleTimer();
    const unjudged = this.backlog;
    this.posted.length = 0;
    this.batch = [];
    this.batchSettles = [];
    this.batchTaken = 0;
    this.backlog = 0;
    this.started?.ring.clear();
    this.options.onFailure(error, unjudged);
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** The captured with its captured bodies copied into the ring, one after the other from `offset`. */
function postedExchange(captured: CapturedExchange, ring: Uint8Array, offset: number): PostedExchange {
  let next = offset;
  const post = (body: CapturedBody): PostedBody => {
    if (body.kind !== 'captured') return body;
    ring.set(body.raw, next);
    const posted: PostedBody = { kind: 'shared', offset: next, length: body.raw.byteLength };
    next += body.raw.byteLength;
    return posted;
  };
  const requestBody = post(captured.requestBody);
  return {
    ...captured,
    requestBody,
    response: captured.response && { ...captured.response, body: post(captured.response.body) },
  };
}

/** In the worker: the captured as judging reads it, its bodies viewed (not copied) in the ring. */
export function capturedFromRing(posted: PostedExchange, bodies: SharedArrayBuffer): CapturedExchange {
  const view = (body: PostedBody): CapturedBody =>
    body.kind === 'shared' ? { kind: 'captured', raw: new Uint8Array(bodies, body.offset, body.length) } : body;
  return {
    ...posted,
    requestBody: view(posted.requestBody),
    response: posted.response && { ...posted.response, body: view(posted.response.body) },
  };
}
