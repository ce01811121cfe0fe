// The violations log: one NDJSON line per finding, written as soon as its exchange is judged,
// in batches (one write per batch of judged exchanges) so operators can tail the file.
import type { Writable } from 'node:stream';
import type { Finding, Level, Location } from '../contract/index.ts';
import type { ShedRecord } from './sheds.ts';

/** One line of the violations log. Its keys, in this order, are the log's format. */
export interface ViolationRecord {
  time: string;
  requestId: string;
  method: string;
  /** Path and query, with credential-like query values masked. */
  path: string;
  operationId: string | null;
  direction: Location;
  /** Who broke the contract: the client (a request finding) or the service (a response or exchange finding). */
  party?: Party;
  /** The upstream's status, or the proxy's own when the upstream never answered. */
  status: number | null;
  rule: string;
  level: Level;
  pointer: string;
  message: string;
  /**
   * On an interval's summary line: how many more findings of this kind came and were not written one by one
   * (repeats.ts).
   */
  repeated?: number;
}

export type Party = 'client' | 'service';

/**
 * Direction says who broke the contract: a request finding is the client's, a response or exchange finding the
 * service's.
 */
export function partyOf(direction: Location): Party {
  return direction === 'request' ? 'client' : 'service';
}

export const VIOLATION_KEYS: readonly (keyof ViolationRecord)[] = [
  'time',
  'requestId',
  'method',
  'path',
  'operationId',
  'direction',
  'status',
  'rule',
  'level',
  'pointer',
  'message',
];

export interface ExchangeIdentity {
  time: string;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number | null;
}

export function violationRecords(exchange: ExchangeIdentity, findings: readonly Finding[]): ViolationRecord[] {
  return findings.map((finding) => violationRecord(exchange, finding));
}

/**
 * A finding as a log line: the one place where `requirement` is written `rule` and `location`
 * `direction`. Those are the log's names since its first release, and operators' queries and
 * alerts read them; the finding keeps the contract's names everywhere else.
 */
export function violationRecord(exchange: ExchangeIdentity, finding: Finding): ViolationRecord {
  return {
    time: exchange.time,
    requestId: exchange.requestId,
    method: exchange.method,
    path: exchange.path,
    operationId: exchange.operationId,
    direction: finding.location,
    party: partyOf(finding.location),
    status: exchange.status,
    rule: finding.requirement,
    level: finding.level,
    pointer: finding.pointer,
    message: finding.message,
  };
}

/**
 * Bytes the log leaves waiting in its destination (a stalled reader of stdout, a slow disk); past it, lines are dropped
 * and counted.
 */
export const VIOLATIONS_BUFFER_MAX = 4 * 1024 * 1024;

/**
 * Buffers the lines of one turn of the event loop and writes them in one write; a destination
 * of null keeps nothing (metrics and dashboard still see every finding). A destination that
 * fails (a full disk, /dev/full) is reported once through `onFailure`; the lines written to it
 * from then on are counted as lost until `replace` gives a new one (SIGHUP, after logrotate).
 * A destination that does not keep up holds at most VIOLATIONS_BUFFER_MAX bytes: past it, lines
 * are dropped and counted through `onDropped` until it drains, and `behind` says so meanwhile.
 */
export class ViolationsLog {
  private pending: string[] = [];
  private scheduled = false;
  private failure: Error | null = null;
  private dropping = false;

  constructor(
    private destination: Writable | null,
    private readonly events: {
      onFailure?: (error: Error) => void;
      onLost?: (lines: number) => void;
      onDropped?: (lines: number) => void;
    } = {},
    private readonly bufferMax = VIOLATIONS_BUFFER_MAX,
  ) {
    this.watch(destination);
  }

  /** Why writing fails, or null while it works. */
  get failed(): Error | null {
    return this.failure;
  }

  /** True while lines are dropped because the destination does not take them as fast as they come. */
  get behind(): boolean {
    return this.dropping;
  }

  append(records: readonly (ViolationRecord | ShedRecord)[]): void {
    if (this.destination === null || records.length === 0) return;
    for (const record of records) this.pending.push(JSON.stringify(record));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0 || this.destination === null) return;
    const lines = this.pending.length;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    if (this.failure !== null || this.destination.destroyed) return this.events.onLost?.(lines);
    if (this.destination.writableLength > this.bufferMax) {
      this.dropping = true;
      return this.events.onDropped?.(lines);
    }
    this.destination.write(text, (error) => {
      if (error) this.events.onLost?.(lines);
    });
  };

  /**
   * Writes what is pending to the old destination, then writes to `destination` from now on; resolves with the old one.
   */
  replace(destination: Writable): Writable | null {
    this.flush();
    const old = this.destination;
    old?.off('error', this.onDestinationError);
    old?.off('drain', this.onDrain);
    this.destination = destination;
    this.failure = null;
    this.dropping = false;
    this.watch(destination);
    return old;
  }

  private watch(destination: Writable | null): void {
    destination?.on('error', this.onDestinationError);
    destination?.on('drain', this.onDrain);
  }

  private readonly onDrain = (): void => {
    this.dropping = false;
  };

  private readonly onDestinationError = (error: Error): void => {
    if (this.failure !== null) return;
    this.failure = error;
    this.events.onFailure?.(error);
  };
}
