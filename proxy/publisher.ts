// What the proxy makes known of judged exchanges: every finding counted (metrics, dashboard),
// the first of each kind per interval written to the violations log (repeats.ts), and judging
// failures logged once per distinct error.
import type { Logger } from 'pino';
import {
  cutText,
  headerSecrets,
  maskedRequestTarget,
  maskedText,
  occurrences,
  ruleAndDirection,
  type Contract,
  type Finding,
  type Location,
} from '../contract/index.ts';
import type { ExchangeCapture } from './capture.ts';
import type { DashboardFeed } from './dashboard.ts';
import type { ProxiedExchange } from './exchange.ts';
import { NOT_VALIDATED_RULES, notJudgedFinding, operationLabel, repeatKind, type JudgingFailure } from './judge.ts';
import type { ProxyMetrics } from './metrics.ts';
import { REPEAT_INTERVAL_MS, RepeatFolder } from './repeats.ts';
import { ShedTally, type ShedReason } from './sheds.ts';
import {
  partyOf,
  violationRecord,
  type ExchangeIdentity,
  type ViolationRecord,
  type ViolationsLog,
} from './violations.ts';

/** Characters of a request's path and query written on a log line (a client may send 16 KB of query). */
export const LOGGED_PATH_MAX = 512;

/** Distinct judging errors logged in full; past it, failures are only counted. */
const FAILURES_LOGGED = 100;

export interface PublisherParts {
  contract: Contract;
  metrics: ProxyMetrics;
  feed: DashboardFeed;
  violations: ViolationsLog;
  logger: Logger;
  /**
   * How often (ms) the counts of findings not written one by one, and of exchanges shed, are written; 0 writes every
   * finding (sheds are still counted per REPEAT_INTERVAL_MS).
   */
  repeatInterval: number;
  /** --capture: exchanges with a MUST finding written as HAR entries. */
  capture?: ExchangeCapture | null;
}

export class Publisher {
  private readonly repeats: RepeatFolder;
  private readonly sheds = new ShedTally();
  private readonly intervalTimer: NodeJS.Timeout;
  /** Distinct judging errors logged so far (each once). */
  private readonly failuresLogged = new Set<string>();

  constructor(private readonly parts: PublisherParts) {
    this.repeats = new RepeatFolder(parts.repeatInterval > 0);
    this.intervalTimer = setInterval(
      this.endInterval,
      parts.repeatInterval > 0 ? parts.repeatInterval : REPEAT_INTERVAL_MS,
    ).unref();
  }

  /**
   * Counts every finding of one judged exchange (metrics and dashboard); writes to the log, and
   * lists among the latest, the first of each kind per interval, building its line only then.
   */
  publish(exchange: ProxiedExchange, findings: Finding[], seconds: number): void {
    const { metrics } = this.parts;
    metrics.validationSeconds.observe(seconds);
    if (findings.length === 0) return;
    this.parts.capture?.capture(exchange, findings);
    const operationId = exchange.location?.operation?.operationId ?? null;
    let identity: ExchangeIdentity | null = null;
    const identityOf = (): ExchangeIdentity =>
      (identity ??= {
        time: new Date(exchange.completedAt).toISOString(),
        requestId: exchange.requestId,
        method: exchange.method,
        path: cutText(
          maskedRequestTarget(exchange.path, exchange.headers, this.parts.contract.legacyHeader),
          LOGGED_PATH_MAX,
        ),
        operationId,
        status: exchange.status ?? exchange.proxyStatus,
      });
    let carried: ReadonlySet<string> | null = null;
    // A message may quote a value (--log-values): credentials in it are masked by name and by the tokens the exchange
    // carries.
    const recordOf = (finding: Finding): ViolationRecord => {
      const record = violationRecord(identityOf(), finding);
      carried ??= headerSecrets(exchange.headers, this.parts.contract.legacyHeader);
      return { ...record, message: maskedText(record.message, carried) };
    };
    const written: ViolationRecord[] = [];
    // One exchange often breaks one rule many times: the counter is increased once per rule and direction.
    const counted = new Map<string, { finding: Finding; count: number }>();
    for (const finding of findings) {
      const count = occurrences(finding);
      const key = ruleAndDirection(finding);
      const seen = counted.get(key);
      if (seen) seen.count += count;
      else counted.set(key, { finding, count });
      if (NOT_VALIDATED_RULES.has(finding.requirement)) metrics.bodiesNotValidated.inc({ direction: finding.location });
      const kind = {
        kind: repeatKind(finding, operationId),
        rule: finding.requirement,
        direction: finding.location,
        level: finding.level,
      };
      const record = this.repeats.sighted(kind, count, finding, recordOf);
      if (record) written.push(record);
    }
    for (const { finding, count } of counted.values())
      metrics.findings.inc(
        {
          rule: finding.requirement,
          direction: finding.location,
          party: partyOf(finding.location),
          level: finding.level,
        },
        count,
      );
    this.parts.violations.append(written);
    this.parts.feed.recordFindings(operationLabel(exchange.location!), findings, written);
  }

  /**
   * Judging is pure and total by design; should it throw, the proxy goes on: the failure is
   * counted, logged once per distinct error (a bounded set), and stands in the exchange's findings
   * as PROXY-NOT-JUDGED (which enforce mode refuses). What the client receives in report mode is
   * unchanged. The finding keeps the highest level a finding of its direction could have had
   * (MUST): what could not be judged is never written as a mere observation.
   */
  judgingFailed(exchange: ProxiedExchange, location: Location, error: unknown): Finding {
    const message = String((error as Error)?.message ?? error).slice(0, 200);
    this.parts.metrics.judgingFailures.inc();
    if (!this.failuresLogged.has(message) && this.failuresLogged.size < FAILURES_LOGGED) {
      this.failuresLogged.add(message);
      this.parts.logger.error(
        {
          requestId: exchange.requestId,
          method: exchange.method,
          path: cutText(maskedRequestTarget(exchange.path, exchange.headers, this.parts.contract.legacyHeader), 200),
          error: message,
        },
        'judging an exchange failed (logged once per distinct error; las_proxy_judging_failures_total counts all)',
      );
    }
    return notJudgedFinding(this.parts.contract, { location: location as JudgingFailure['location'], message });
  }

  /**
   * An exchange relayed unjudged: tallied, and written with the others of its client, operation and reason when the
   * interval ends (sheds.ts).
   */
  shed(exchange: ProxiedExchange, reason: ShedReason, bytes: number): void {
    this.sheds.note(exchange.client, exchange.location?.operation?.operationId ?? null, reason, bytes);
  }

  /** Ends the current interval (its summary lines written) and stops the interval timer. */
  close(): void {
    clearInterval(this.intervalTimer);
    this.endInterval();
    this.parts.violations.flush();
  }

  /**
   * Writes the summary lines of the interval that ended: kinds that repeated, with their counts, and the exchanges
   * shed.
   */
  private readonly endInterval = (): void => {
    const now = new Date();
    this.parts.violations.append(this.repeats.endInterval(now));
    this.parts.violations.append(this.sheds.endInterval(now));
  };
}
