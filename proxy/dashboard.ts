// The live state behind the dashboard page: counts by rule and by operation and the latest
// findings, pushed to every open page as server-sent events (at most a few times a second).
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Contract, Level, Location } from '../contract/index.ts';
import type { ViolationRecord } from './violations.ts';

export const DASHBOARD_HTML = readFileSync(new URL('./dashboard.html', import.meta.url), 'utf8');

const LATEST_KEPT = 50;
const PUSH_INTERVAL_MS = 250;

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
  rules: RuleCount[];
  operations: OperationCount[];
  latest: ViolationRecord[];
}

export class DashboardFeed {
  private readonly startedAt = new Date().toISOString();
  private exchanges = 0;
  private readonly findingsByLevel: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  private readonly rules = new Map<string, RuleCount>();
  private readonly operations = new Map<string, OperationCount>();
  private latest: ViolationRecord[] = [];
  private readonly clients = new Set<ServerResponse>();
  private pushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly contract: Contract, private readonly identity: { upstream: string; mode: string }) {}

  recordExchange(operation: string): void {
    this.exchanges += 1;
    this.operationCount(operation).exchanges += 1;
    this.schedulePush();
  }

  /** Counts every record; lists only `shown` among the latest findings (INFO ones are shown once). */
  recordFindings(operation: string, records: readonly ViolationRecord[], shown: readonly ViolationRecord[]): void {
    if (records.length === 0) return;
    const counts = this.operationCount(operation);
    for (const record of records) {
      this.findingsByLevel[record.level] += 1;
      counts.findings[record.direction] += 1;
      this.ruleCount(record).count += 1;
    }
    this.latest = [...shown.slice(-LATEST_KEPT).reverse(), ...this.latest].slice(0, LATEST_KEPT);
    this.schedulePush();
  }

  snapshot(): DashboardSnapshot {
    return {
      ...this.identity,
      startedAt: this.startedAt,
      exchanges: this.exchanges,
      findingsByLevel: { ...this.findingsByLevel },
      rules: [...this.rules.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
      operations: [...this.operations.values()].sort((a, b) => b.exchanges - a.exchanges),
      latest: this.latest,
    };
  }

  /** Serves `/events`: the current snapshot at once, then a fresh one whenever something changed. */
  subscribe(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    this.send(res);
  }

  close(): void {
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = null;
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private send(res: ServerResponse): void {
    res.write(`event: snapshot\ndata: ${JSON.stringify(this.snapshot())}\n\n`);
  }

  private schedulePush(): void {
    if (this.pushTimer || this.clients.size === 0) return;
    this.pushTimer = setTimeout(() => {
      this.pushTimer = null;
      for (const client of this.clients) this.send(client);
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

  private ruleCount(record: ViolationRecord): RuleCount {
    let counts = this.rules.get(record.rule);
    if (!counts) {
      const requirement = this.contract.requirements.find((r) => r.id === record.rule);
      counts = { rule: record.rule, level: record.level, section: requirement?.section ?? '', text: requirement?.text ?? '', count: 0 };
      this.rules.set(record.rule, counts);
    }
    return counts;
  }
}
