// A service that breaks the contract does so on every exchange: the log says so once per kind of
// finding and interval, in full, and then counts. At the end of the interval one line per kind
// carries the count of the repeats and the first occurrence as its example. Metrics and the
// dashboard's counts see every occurrence; the log stays readable and cheap.
import type { ViolationRecord } from './violations.ts';

export const REPEAT_INTERVAL_MS = 10_000;
/** Kinds of finding followed per interval; past it, findings of a new kind are counted in one overflow line. */
export const REPEAT_KINDS_MAX = 10_000;

interface Kind {
  example: ViolationRecord;
  repeats: number;
}

export class RepeatFolder {
  private kinds = new Map<string, Kind>();
  private overflow = 0;
  private since = Date.now();

  /** With `folding` false every finding is written in full (an interval of 0). */
  constructor(private readonly folding = true, private readonly kindsMax = REPEAT_KINDS_MAX) {}

  /**
   * Whether a finding of this kind is written in full (the first of its interval); otherwise its
   * `occurrences` are counted for the interval's summary line. `record` is built only when written.
   */
  sighted(kind: string, occurrences: number, record: () => ViolationRecord): ViolationRecord | null {
    if (!this.folding) return record();
    const known = this.kinds.get(kind);
    if (known) {
      known.repeats += occurrences;
      return null;
    }
    if (this.kinds.size >= this.kindsMax) {
      this.overflow += occurrences;
      return null;
    }
    const example = record();
    this.kinds.set(kind, { example, repeats: occurrences - 1 });
    return example;
  }

  /** The summary lines of the interval that ends now (kinds that repeated), and a fresh interval. */
  endInterval(now = new Date()): ViolationRecord[] {
    const summaries: ViolationRecord[] = [];
    const window = `between ${new Date(this.since).toISOString()} and ${now.toISOString()}`;
    for (const { example, repeats } of this.kinds.values()) {
      if (repeats === 0) continue;
      summaries.push({ ...example, time: now.toISOString(), message: `${repeats} more like this ${window}, not written one by one; the first: ${example.message}`, repeated: repeats });
    }
    if (this.overflow > 0) {
      const [first] = this.kinds.values();
      if (first) summaries.push({ ...first.example, time: now.toISOString(), message: `${this.overflow} findings of more than ${this.kindsMax} kinds ${window}, not written one by one`, repeated: this.overflow });
    }
    this.kinds = new Map();
    this.overflow = 0;
    this.since = now.getTime();
    return summaries;
  }
}
