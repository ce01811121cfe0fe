// The live state behind the dashboard page: counts by rule and by operation and the latest
// findings, pushed to every open page as server-sent events (at most a few times a second).
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { occurrences, type Contract, type Finding, type Level, type Location } from '../contract/index.ts';
import { clientKey } from './client-identity.ts';
import { partyOf, type Party, type ViolationRecord } from './violations.ts';

export const DASHBOARD_HTML = readFileSync(new URL('./dashboard.html', import.meta.url), 'utf8');

const LATEST_KEPT = 50;
const PUSH_INTERVAL_MS = 250;
/** Event clients served at once; past it, /events answers 503 unless a client holds more than a newcomer would. */
export const EVENT_CLIENTS_MAX = 16;
/**
 * Event clients served at once from one client (an address; an IPv6 /64): one reader cannot take
 * every place. A client at it that opens another stream gets it, in place of its own oldest: the
 * operator's page shares a client with whatever else reads from there (a tunnel, a NAT) and
 * always gets a page.
 */
export const EVENT_CLIENTS_PER_ADDRESS = 4;
/** How long a stream ended to make room waits before it reconnects (ms): two pages of one client do not take turns. */
export const EVENT_STREAM_DISPLACED_RETRY_MS = 60_000;
/**
 * How often every stream is sent a comment (ms). A stream that has still not taken what it was
 * sent by the next one is idle (its reader paused or gone) and ends, giving back its place long
 * before its lifetime is over.
 */
export const EVENT_HEARTBEAT_MS = 15_000;
/**
 * How long one event stream lasts (ms). A page's EventSource opens the next at once (the stream
 * says to retry after EVENT_STREAM_RETRY_MS), so an open dashboard stays live; a place taken by
 * a reader that holds its connection and reads nothing is free again after it.
 */
export const EVENT_STREAM_LIFETIME_MS = 5 * 60_000;
const EVENT_STREAM_RETRY_MS = 1000;
/** Bytes a client may leave unread; past it, it is dropped (a paused page must not grow memory). */
export const EVENT_CLIENT_BUFFER_MAX = 1024 * 1024;

/** One event stream: the client it counts for, the end of its lifetime, what it left unread at the last heartbeat. */
interface EventReader {
  client: string;
  lifetime: NodeJS.Timeout;
  unreadAtHeartbeat: number;
}

export interface RuleCount {
  rule: string;
  level: Level;
  section: string;
  text: string;
  count: number;
}

export interface OperationCount {
  operation: string;
  exchanges: number;
  findings: Record<Location, number>;
}

export interface DashboardSnapshot {
  upstream: string;
  mode: string;
  startedAt: string;
  exchanges: number;
  findingsByLevel: Record<Level, number>;
  /** Findings by who broke the contract: the client (request) or the service (response, exchange). */
  findingsByParty: Record<Party, Record<Level, number>>;
  rules: RuleCount[];
  operations: OperationCount[];
  latest: ViolationRecord[];
  /** Exchanges relayed unjudged (shed): any finding they held is in no count here. */
  shed: number;
}

export class DashboardFeed {
  private readonly startedAt = new Date().toISOString();
  private exchanges = 0;
  private shed = 0;
  private readonly findingsByLevel: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  private readonly findingsByParty: Record<Party, Record<Level, number>> = {
    service: { MUST: 0, SHOULD: 0, INFO: 0 },
    client: { MUST: 0, SHOULD: 0, INFO: 0 },
  };
  private readonly rules = new Map<string, RuleCount>();
  private readonly operations = new Map<string, OperationCount>();
  private latest: ViolationRecord[] = [];
  /** Event clients, oldest first: the client each is counted for, and the end of its stream's lifetime. */
  private readonly clients = new Map<ServerResponse, EventReader>();
  private readonly clientsByAddress = new Map<string, number>();
  private pushTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly contract: Contract,
    private readonly identity: { upstream: string; mode: string },
  ) {}

  recordExchange(operation: string): void {
    this.exchanges += 1;
    this.operationCount(operation).exchanges += 1;
    this.schedulePush();
  }

  /** Counts an exchange relayed unjudged. */
  recordShed(): void {
    this.shed += 1;
    this.schedulePush();
  }

  /**
   * Counts every finding (a summary finding for all it stands for); lists only `shown` (the lines written) among the
   * latest.
   */
  recordFindings(operation: string, findings: readonly Finding[], shown: readonly ViolationRecord[]): void {
    if (findings.length === 0) return;
    const counts = this.operationCount(operation);
    for (const finding of findings) {
      const n = occurrences(finding);
      this.findingsByLevel[finding.level] += n;
      this.findingsByParty[partyOf(finding.location)][finding.level] += n;
      counts.findings[finding.location] += n;
      this.ruleCount(finding).count += n;
    }
    if (shown.length > 0) this.latest = shown.slice(-LATEST_KEPT).reverse().concat(this.latest).slice(0, LATEST_KEPT);
    this.schedulePush();
  }

  snapshot(): DashboardSnapshot {
    return {
      ...this.identity,
      startedAt: this.startedAt,
      exchanges: this.exchanges,
      findingsByLevel: { ...this.findingsByLevel },
      findingsByParty: { service: { ...this.findingsByParty.service }, client: { ...this.findingsByParty.client } },
      rules: [...this.rules.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
      operations: [...this.operations.values()].sort((a, b) => b.exchanges - a.exchanges),
      latest: this.latest,
      shed: this.shed,
    };
  }

  /**
   * Serves `/events`: the current snapshot at once, then a fresh one whenever something changed,
   * for EVENT_STREAM_LIFETIME_MS or until it is idle; false when no place is left. A client at
   * EVENT_CLIENTS_PER_ADDRESS gets the place of its own oldest stream. Once every place is taken, a
   * newcomer holding fewer streams than the client holding the most takes the oldest of that
   * client's: readers from a few addresses cannot keep the operator's page out.
   */
  subscribe(res: ServerResponse): boolean {
    const client = clientKey(res.req?.socket.remoteAddress ?? '');
    if ((this.clientsByAddress.get(client) ?? 0) >= EVENT_CLIENTS_PER_ADDRESS) this.displaceOldestOf(client);
    const held = this.clientsByAddress.get(client) ?? 0;
    if (this.clients.size >= EVENT_CLIENTS_MAX && !this.makeRoomFor(held)) return false;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const lifetime = setTimeout(() => res.end(), EVENT_STREAM_LIFETIME_MS).unref();
    this.clients.set(res, { client, lifetime, unreadAtHeartbeat: 0 });
    this.clientsByAddress.set(client, held + 1);
    res.on('close', () => this.forget(res));
    this.send(res, `retry: ${EVENT_STREAM_RETRY_MS}\n${this.event()}`);
    this.heartbeatTimer ??= setInterval(() => this.heartbeat(), EVENT_HEARTBEAT_MS).unref();
    return true;
  }

  /** Ends a client's oldest stream, telling its page to wait before it reconnects. */
  private displaceOldestOf(client: string): void {
    for (const [reader, held] of this.clients) {
      if (held.client !== client) continue;
      this.forget(reader);
      reader.end(`retry: ${EVENT_STREAM_DISPLACED_RETRY_MS}\n\n`);
      return;
    }
  }

  /** A comment to every stream; a stream that still holds unread bytes from the last one is idle and ends. */
  private heartbeat(): void {
    for (const [res, reader] of [...this.clients]) {
      if (reader.unreadAtHeartbeat > 0 && res.writableLength > 0) {
        this.drop(res);
        continue;
      }
      this.send(res, ': heartbeat\n\n');
      reader.unreadAtHeartbeat = res.writableLength;
    }
    if (this.clients.size === 0) this.stopHeartbeat();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  /**
   * Ends the oldest stream of the client holding the most, when it holds more than a newcomer holding `held` would;
   * whether a place is free.
   */
  private makeRoomFor(held: number): boolean {
    let most: string | null = null;
    for (const [client, count] of this.clientsByAddress)
      if (most === null || count > this.clientsByAddress.get(most)!) most = client;
    if (most === null || this.clientsByAddress.get(most)! <= held + 1) return false;
    for (const [reader, { client }] of this.clients) {
      if (client !== most) continue;
      this.drop(reader);
      return true;
    }
    return false;
  }

  /** Ends a stream and frees its place now. */
  private drop(res: ServerResponse): void {
    this.forget(res);
    res.destroy();
  }

  private forget(res: ServerResponse): void {
    const reader = this.clients.get(res);
    if (!reader) return;
    clearTimeout(reader.lifetime);
    this.clients.delete(res);
    const left = (this.clientsByAddress.get(reader.client) ?? 1) - 1;
    if (left <= 0) this.clientsByAddress.delete(reader.client);
    else this.clientsByAddress.set(reader.client, left);
  }

  /** Event clients connected now. */
  get clientCount(): number {
    return this.clients.size;
  }

  close(): void {
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = null;
    this.stopHeartbeat();
    for (const [client, { lifetime }] of this.clients) {
      clearTimeout(lifetime);
      client.end();
    }
    this.clients.clear();
    this.clientsByAddress.clear();
  }

  private send(res: ServerResponse, text = this.event()): void {
    // A client that does not read keeps its pushes in memory: past the bound it is dropped.
    if (res.writableLength > EVENT_CLIENT_BUFFER_MAX) return this.drop(res);
    res.write(text);
  }

  private event(): string {
    return `event: snapshot\ndata: ${JSON.stringify(this.snapshot())}\n\n`;
  }

  private schedulePush(): void {
    if (this.pushTimer || this.clients.size === 0) return;
    this.pushTimer = setTimeout(() => {
      this.pushTimer = null;
      const text = this.event();
      for (const client of [...this.clients.keys()]) this.send(client, text);
    }, PUSH_INTERVAL_MS);
    this.pushTimer.unref();
  }

  private operationCount(operation: string): OperationCount {
    let counts = this.operations.get(operation);
    if (!counts) {
      counts = { operation, exchanges: 0, findings: { request: 0, response: 0, exchange: 0 } };
      this.operations.set(operation, counts);
    }
    return counts;
  }

  private ruleCount(finding: Finding): RuleCount {
    let counts = this.rules.get(finding.requirement);
    if (!counts) {
      const requirement = this.contract.requirements.find((r) => r.id === finding.requirement);
      counts = {
        rule: finding.requirement,
        level: finding.level,
        section: requirement?.section ?? '',
        text: requirement?.text ?? '',
        count: 0,
      };
      this.rules.set(finding.requirement, counts);
    }
    return counts;
  }
}
