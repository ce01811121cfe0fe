// Exchanges relayed unjudged (shed: judging was behind, or their client held its share of the
// backlog) are not lost in silence: each is tallied by client, operation and reason, and when the
// interval ends one line per tally says how many there were and how many body bytes they carried.
// The log so names every exchange whose findings it cannot hold. The tallies of an interval are
// bounded: past SHED_TALLIES_MAX, clients are folded into one line per operation and reason.

/** Why an exchange was relayed unjudged: the backlog was full, or its client held its share of it. */
export type ShedReason = 'backlog' | 'client-share';

/** A line of the violations log standing for exchanges that went unjudged. Its keys, in this order, are its format. */
export interface ShedRecord {
  time: string;
  /** Exchanges relayed unjudged in the interval. */
  shed: number;
  /** Body bytes (request and response) they carried. */
  bytes: number;
  reason: ShedReason;
  /** The client they came from (client-identity.ts), or OTHER_CLIENTS past the tallies followed. */
  client: string;
  operationId: string | null;
  message: string;
}

export const SHED_RECORD_KEYS: readonly (keyof ShedRecord)[] = [
  'time',
  'shed',
  'bytes',
  'reason',
  'client',
  'operationId',
  'message',
];

/** Distinct client, operation and reason tallied per interval; past it, clients are folded. */
export const SHED_TALLIES_MAX = 100;
/** The client a folded tally names. */
export const OTHER_CLIENTS = '(other clients)';

const REASONS: Record<ShedReason, string> = {
  backlog: 'the judging backlog was full',
  'client-share': 'their client already held its share of the judging backlog',
};

interface Tally {
  client: string;
  operationId: string | null;
  reason: ShedReason;
  shed: number;
  bytes: number;
}

export class ShedTally {
  private tallies = new Map<string, Tally>();
  private since = Date.now();

  /** One exchange relayed unjudged. */
  note(client: string, operationId: string | null, reason: ShedReason, bytes: number): void {
    let key = `${reason} ${operationId} ${client}`;
    if (!this.tallies.has(key) && this.tallies.size >= SHED_TALLIES_MAX) {
      client = OTHER_CLIENTS;
      key = `${reason} ${operationId} ${client}`;
    }
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { client, operationId, reason, shed: 0, bytes: 0 };
      this.tallies.set(key, tally);
    }
    tally.shed += 1;
    tally.bytes += bytes;
  }

  /** The lines of the interval that ends now, and a fresh interval. */
  endInterval(now = new Date()): ShedRecord[] {
    const window = `between ${new Date(this.since).toISOString()} and ${now.toISOString()}`;
    const records = [...this.tallies.values()].map((t): ShedRecord => ({
      time: now.toISOString(),
      shed: t.shed,
      bytes: t.bytes,
      reason: t.reason,
      client: t.client,
      operationId: t.operationId,
      message: `${t.shed} exchange${t.shed === 1 ? '' : 's'} (${t.bytes} body bytes) from ${t.client} to ${t.operationId ?? 'a path outside the contract'} relayed unjudged ${window}: ${REASONS[t.reason]}; any finding they held is in no line of this log`,
    }));
    this.tallies = new Map();
    this.since = now.getTime();
    return records;
  }
}
