// A service that breaks the contract does so on every exchange: the log says so once per kind of
// finding and interval, in full, and then counts. At the end of the interval one line per kind
// carries the count of the repeats and the first occurrence as its example. Metrics and the
// dashboard's counts see every occurrence; the log stays readable and cheap.
//
// The kinds followed are kept apart by party: a client sending a new kind of finding on every
// request fills the client's share only, and can never push the service's findings out of the
// log. Past a party's share, findings are folded by rule, direction and level (a bounded set: the
// catalogue's rules), so a line always names the rule, level and party of what it counts.
import { partyOf, type Party, type ViolationRecord } from './violations.ts';

export const REPEAT_INTERVAL_MS = 10_000;
/** Kinds of finding followed per party and interval; past it, findings are folded by rule, direction and level. */
export const REPEAT_KINDS_MAX = 10_000;

interface Kind {
  example: ViolationRecord;
  repeats: number;
}

/** What a finding is folded by: its kind, and what it is folded by once its party's share of kinds is full. */
export interface FindingKind {
  kind: string;
  rule: string;
  direction: ViolationRecord['direction'];
  level: ViolationRecord['level'];
}

export class RepeatFolder {
  private kinds: Record<Party, Map<string, Kind>> = { client: new Map(), service: new Map() };
  /** Findings past a party's share of kinds, by rule, direction and level. */
  private overflow = new Map<string, Kind>();
  private since = Date.now();

  /** With `folding` false every finding is written in full (an interval of 0). */
  constructor(
    private readonly folding = true,
    private readonly kindsMax = REPEAT_KINDS_MAX,
  ) {}

  /**
   * Whether a finding of this kind is written in full (the first of its interval); otherwise its
   * `occurrences` are counted for the interval's summary line. Its line, `record(subject)`, is
   * built only when written (one function for all the findings of an exchange, not one each).
   */
  sighted<T>(
    finding: FindingKind,
    occurrences: number,
    subject: T,
    record: (subject: T) => ViolationRecord,
  ): ViolationRecord | null {
    if (!this.folding) return record(subject);
    const kinds = this.kinds[partyOf(finding.direction)];
    const known = kinds.get(finding.kind);
    if (known) {
      known.repeats += occurrences;
      return null;
    }
    if (kinds.size < this.kindsMax) return this.first(kinds, finding.kind, occurrences, record(subject));
    const folded = `${finding.rule} ${finding.direction} ${finding.level}`;
    const overflowing = this.overflow.get(folded);
    if (overflowing) {
      overflowing.repeats += occurrences;
      return null;
    }
    return this.first(this.overflow, folded, occurrences, record(subject));
  }

  /** The summary lines of the interval that ends now (kinds that repeated), and a fresh interval. */
  endInterval(now = new Date()): ViolationRecord[] {
    const summaries: ViolationRecord[] = [];
    const window = `between ${new Date(this.since).toISOString()} and ${now.toISOString()}`;
    const summarize = (kinds: Map<string, Kind>, what: (example: ViolationRecord) => string) => {
      for (const { example, repeats } of kinds.values()) {
        if (repeats === 0) continue;
        summaries.push({
          ...example,
          time: now.toISOString(),
          message: `${repeats} more ${what(example)} ${window}, not written one by one; the first: ${example.message}`,
          repeated: repeats,
        });
      }
    };
    summarize(this.kinds.service, () => 'like this');
    summarize(this.kinds.client, () => 'like this');
    summarize(
      this.overflow,
      (example) =>
        `${example.rule} findings (${example.level}, ${example.direction}) of kinds past the ${this.kindsMax} followed for the ${example.party}`,
    );
    this.kinds = { client: new Map(), service: new Map() };
    this.overflow = new Map();
    this.since = now.getTime();
    return summaries;
  }

  private first(kinds: Map<string, Kind>, key: string, occurrences: number, example: ViolationRecord): ViolationRecord {
    kinds.set(key, { example, repeats: occurrences - 1 });
    return example;
  }
}
