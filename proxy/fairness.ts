// The forwarding thread is shared fairly between clients. Everything it does for a request is charged to the request's
// client, in windows of FAIRNESS_WINDOW_MS: reading it, decoding and judging it, answering it, relaying the upstream's
// answer and publishing its findings. A client that has taken more than its share of a window (a quarter, or its equal
// part while fewer than four clients are served: half of it for one of two), and more than the average of the clients
// served in it, is held back: its next request is not read (its connection is paused) until a window in which it is
// within its share. Only the heaviest are held: two clients that both pass the share do not hold each other back. So a
// client whose requests are each cheap but come back at once gets no more of the thread than one whose requests are
// costly to judge (a kilobyte inflating to thousands of wrong items). What no section can time (Node parsing a request,
// the socket's reads and writes, the events around them) is charged per request: the thread's busy time in a window
// that no section accounted for, divided by the requests of that window (the median of the last few windows, so that a
// pause of the whole process is not charged to whoever came next). A client alone is never held back: behind a balancer
// that names no client, all traffic is one. Nor is anyone held back while the thread has time to spare (busy for less
// than CONTENDED_BUSY of the window so far): then nothing of another client's waits for it, and holding a busy
// conforming client back would only add a window to its latency. Nothing is refused or left unjudged.
import { performance } from 'node:perf_hooks';

/**
 * The length of a window in which the forwarding thread's time is counted, in ms. Short, because a
 * held-back request waits for the next window: a busy client held back now and then (the clock
 * charges it a preemption now and then) pays at most this in its latency. With 100 ms windows a
 * conforming client beside an attacker had its p99 go from a few ms to tens of ms.
 */
export const FAIRNESS_WINDOW_MS = 10;
/**
 * The share of a window one client's requests may take before it is held back, while other clients are served in the
 * window too (more while fewer than 1 / CLIENT_SHARE clients are: each its equal part).
 */
export const CLIENT_SHARE = 0.25;
/**
 * The part of the window so far the thread must have been busy (the event loop's active time)
 * before anyone is held back. Below it requests do not queue behind one another, and holding a
 * client back only adds to its latency: with 1,000 conforming GETs a second beside four clients
 * sending 125 attacking requests a second each, the conforming client (the heaviest one there) was
 * held back 25-90 times a second, each hold waiting out the rest of the window.
 */
export const CONTENDED_BUSY = 0.75;
/** Windows whose untimed work per request is remembered; their median is what a request is charged. */
const UNTIMED_SAMPLES = 5;
/** Requests a window needs for its untimed work per request to count as a sample. */
const UNTIMED_SAMPLE_REQUESTS = 10;
/** Clients followed per window; past it, new ones are not charged (the bound on memory). */
export const CLIENTS_FOLLOWED = 10_000;

/** The forwarding thread's busy time so far (ms): the event loop's active time. */
function eventLoopBusy(): number {
  return performance.eventLoopUtilization().active;
}

export class ForwardingBudget {
  private spent = new Map<string, number>();
  private total = 0;
  private windowStart = 0;
  /** Time charged by timed sections, and requests counted, in the current window. */
  private timed = 0;
  private requests = 0;
  private busyAtWindowStart = 0;
  /** The thread's untimed work per request in the last windows (ms), and their median. */
  private readonly untimedSamples: number[] = [];
  private untimedPerRequest = 0;

  /** `busy`: the thread's busy time so far in ms (tests pass a clock of their own). */
  constructor(
    readonly now: () => number = () => performance.now(),
    private readonly windowMs = FAIRNESS_WINDOW_MS,
    private readonly share = CLIENT_SHARE,
    private readonly busy: () => number = eventLoopBusy,
  ) {}

  /**
   * Adds `ms` of the forwarding thread's time, timed around work done for the client, to its account in the current
   * window.
   */
  charge(client: string, ms: number): void {
    this.chargeAt(this.now(), client, ms);
  }

  /** Counts one request of the client, and charges it the thread's untimed work per request (see above). */
  request(client: string): void {
    this.roll();
    this.requests += 1;
    if (this.untimedPerRequest > 0) this.add(client, this.untimedPerRequest);
  }

  /** The thread's untimed work per request (ms), as last measured. */
  get untimedPerRequestMs(): number {
    return this.untimedPerRequest;
  }

  /** Charges the client with the time since `started` (a reading of `now`): the work just done for it. */
  chargeSince(client: string, started: number): void {
    // One reading of the clock for both the time taken and the window it is charged to: every step of every exchange
    // comes here.
    const now = this.now();
    this.chargeAt(now, client, now - started);
  }

  private chargeAt(now: number, client: string, ms: number): void {
    this.roll(now);
    this.timed += ms;
    this.add(client, ms);
  }

  /**
   * How long (ms) the client is held back: until the next window once it has taken its share of
   * this one and more than the average client while the thread had no time to spare; 0 otherwise.
   */
  delayFor(client: string): number {
    const now = this.now();
    this.roll(now);
    const spent = this.spent.get(client) ?? 0;
    // A client alone is its own average: never held back. Two busy clients hold back only the one past half.
    const clients = this.spent.size;
    if (spent < Math.max(this.share, 1 / clients) * this.windowMs || spent * clients <= this.total) return 0;
    if (this.busy() - this.busyAtWindowStart < CONTENDED_BUSY * (now - this.windowStart)) return 0;
    return Math.max(1, Math.ceil(this.windowStart + this.windowMs - now));
  }

  /** Clients charged in the current window. */
  get clients(): number {
    return this.spent.size;
  }

  private sampleUntimed(perRequest: number): void {
    this.untimedSamples.push(perRequest);
    if (this.untimedSamples.length > UNTIMED_SAMPLES) this.untimedSamples.shift();
    const sorted = [...this.untimedSamples].sort((a, b) => a - b);
    this.untimedPerRequest = sorted[Math.floor(sorted.length / 2)];
  }

  private add(client: string, ms: number): void {
    const known = this.spent.get(client);
    if (known === undefined && this.spent.size >= CLIENTS_FOLLOWED) return;
    this.spent.set(client, (known ?? 0) + ms);
    this.total += ms;
  }

  private roll(now = this.now()): void {
    if (now - this.windowStart < this.windowMs) return;
    const busy = this.busy();
    // Measured over a window that just ended, not over a quiet spell since the last request.
    if (
      this.requests >= UNTIMED_SAMPLE_REQUESTS &&
      this.windowStart > 0 &&
      now - this.windowStart < 2 * this.windowMs
    ) {
      this.sampleUntimed(Math.max(0, busy - this.busyAtWindowStart - this.timed) / this.requests);
    }
    this.busyAtWindowStart = busy;
    this.windowStart = now;
    this.spent = new Map();
    this.total = 0;
    this.timed = 0;
    this.requests = 0;
  }
}
