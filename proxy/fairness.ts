// Judging on the forwarding thread is shared fairly between clients. Every exchange judged there
// charges its client the time it took, in windows of FAIRNESS_WINDOW_MS; a client that has spent
// more than its share of a window while other clients were judged in it too waits for the next
// window before its next request is read (a client alone is never held back: behind a balancer
// that names no client, all traffic is one). Nothing is refused or left unjudged: a client that sends what is costly to
// judge (a kilobyte inflating to thousands of wrong items) is slowed down to its share, and the
// others' requests are read in the meantime.

/** The length of a window in which judging time is counted, in ms. */
export const FAIRNESS_WINDOW_MS = 100;
/** The share of a window one client's judging may take before it waits, while other clients are judged in the window too. */
export const CLIENT_JUDGING_SHARE = 0.25;
/** Clients followed per window; past it, new ones are not charged (the bound on memory). */
const CLIENTS_FOLLOWED = 10_000;

export class JudgingBudget {
  private spent = new Map<string, number>();
  private total = 0;
  private windowStart = 0;

  constructor(private readonly now: () => number = () => performance.now(), private readonly windowMs = FAIRNESS_WINDOW_MS, private readonly share = CLIENT_JUDGING_SHARE) {}

  /** Adds `seconds` of judging to the client's account in the current window. */
  charge(client: string, seconds: number): void {
    this.roll();
    const known = this.spent.get(client);
    if (known === undefined && this.spent.size >= CLIENTS_FOLLOWED) return;
    this.spent.set(client, (known ?? 0) + seconds * 1000);
    this.total += seconds * 1000;
  }

  /** How long (ms) the client's next request waits: until the next window once it has spent its share of this one; 0 otherwise. */
  delayFor(client: string): number {
    this.roll();
    const spent = this.spent.get(client) ?? 0;
    if (spent < this.share * this.windowMs || this.total - spent <= 0) return 0;
    return Math.max(1, Math.ceil(this.windowStart + this.windowMs - this.now()));
  }

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart < this.windowMs) return;
    this.windowStart = now;
    this.spent = new Map();
    this.total = 0;
  }
}
