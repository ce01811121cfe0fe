// The forwarding thread is shared fairly between clients. Everything it does for a request is
// charged to the request's client, in windows of FAIRNESS_WINDOW_MS: reading it, decoding and
// judging it, answering it, relaying the upstream's answer and publishing its findings. A client
// that has taken more than its share of a window while other clients were served in it too is
// held back: its next request is not read (its connection is paused) until a window in which it
// is within its share. So a client whose requests are each cheap but come back at once gets no
// more of the thread than one whose requests are costly to judge (a kilobyte inflating to
// thousands of wrong items). A client alone is never held back: behind a balancer that names no
// client, all traffic is one. Nothing is refused or left unjudged.
import { performance } from 'node:perf_hooks';

/** The length of a window in which the forwarding thread's time is counted, in ms. */
export const FAIRNESS_WINDOW_MS = 100;
/** The share of a window one client's requests may take before it is held back, while other clients are served in the window too. */
export const CLIENT_SHARE = 0.25;
/** Clients followed per window; past it, new ones are not charged (the bound on memory). */
export const CLIENTS_FOLLOWED = 10_000;

export class ForwardingBudget {
  private spent = new Map<string, number>();
  private total = 0;
  private windowStart = 0;

  constructor(readonly now: () => number = () => performance.now(), private readonly windowMs = FAIRNESS_WINDOW_MS, private readonly share = CLIENT_SHARE) {}

  /** Adds `ms` of the forwarding thread's time to the client's account in the current window. */
  charge(client: string, ms: number): void {
    this.roll();
    const known = this.spent.get(client);
    if (known === undefined && this.spent.size >= CLIENTS_FOLLOWED) return;
    this.spent.set(client, (known ?? 0) + ms);
    this.total += ms;
  }

  /** Charges the client with the time since `started` (a reading of `now`): the work just done for it. */
  chargeSince(client: string, started: number): void {
    this.charge(client, this.now() - started);
  }

  /** How long (ms) the client is held back: until the next window once it has taken its share of this one; 0 otherwise. */
  delayFor(client: string): number {
    this.roll();
    const spent = this.spent.get(client) ?? 0;
    if (spent < this.share * this.windowMs || this.total - spent <= 0) return 0;
    return Math.max(1, Math.ceil(this.windowStart + this.windowMs - this.now()));
  }

  /** Clients charged in the current window. */
  get clients(): number {
    return this.spent.size;
  }

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart < this.windowMs) return;
    this.windowStart = now;
    this.spent = new Map();
    this.total = 0;
  }
}
