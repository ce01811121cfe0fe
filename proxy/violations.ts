// The violations log: one NDJSON line per finding, written as soon as its exchange is judged,
// in batches (one write per batch of judged exchanges) so operators can tail the file.
import type { Writable } from 'node:stream';
import type { Finding, Level, Location } from '../contract/index.ts';

/** One line of the violations log. Its keys, in this order, are the log's format. */
export interface ViolationRecord {
  time: string;
  requestId: string;
  method: string;
  /** Path and query, with credential-like query values masked. */
  path: string;
  operationId: string | null;
  direction: Location;
  /** The upstream's status, or the proxy's own when the upstream never answered. */
  status: number | null;
  rule: string;
  level: Level;
  pointer: string;
  message: string;
}

export const VIOLATION_KEYS: readonly (keyof ViolationRecord)[] = ['time', 'requestId', 'method', 'path', 'operationId', 'direction', 'status', 'rule', 'level', 'pointer', 'message'];

export interface ExchangeIdentity {
  time: string;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number | null;
}

export function violationRecords(exchange: ExchangeIdentity, findings: readonly Finding[]): ViolationRecord[] {
  return findings.map((finding) => ({
    time: exchange.time,
    requestId: exchange.requestId,
    method: exchange.method,
    path: exchange.path,
    operationId: exchange.operationId,
    direction: finding.location,
    status: exchange.status,
    rule: finding.requirement,
    level: finding.level,
    pointer: finding.pointer,
    message: finding.message,
  }));
}

/**
 * Buffers the lines of one turn of the event loop and writes them in one write; a destination
 * of null keeps nothing (metrics and dashboard still see every finding).
 */
export class ViolationsLog {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly destination: Writable | null) {}

  append(records: readonly ViolationRecord[]): void {
    if (this.destination === null || records.length === 0) return;
    for (const record of records) this.pending.push(JSON.stringify(record));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0 || this.destination === null || this.destination.destroyed) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.destination.write(text);
  };
}
