// What the client receives: the upstream's status line and headers (with the Las-Violations
// header when asked for), a held response once judged (enforce mode), or the proxy's own answer
// when it refuses an exchange or the upstream failed.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { maskedRequestTarget, type Finding } from '../contract/index.ts';
import {
  classifyUpstreamError,
  refused,
  rejectedResponseAnswer,
  upstreamErrorAnswer,
  type ErrorAnswer,
  type UpstreamFailure,
} from './errors.ts';
import type { ProxiedExchange } from './exchange.ts';
import type { ExchangeJudging } from './judging.ts';
import { NO_BODY } from './judge.ts';
import type { ProxyMetrics } from './metrics.ts';

export const VIOLATIONS_HEADER = 'Las-Violations';
export const VIOLATIONS_HEADER_MAX_LENGTH = 512;

const SEVERITY_ORDER = { MUST: 0, SHOULD: 1, INFO: 2 } as const;

/** `Las-Violations`: the rule ids, most severe first, cut to a bounded length with a count of the rest. */
export function violationsHeaderValue(findings: readonly Finding[]): string | null {
  const rules = [
    ...new Set(
      [...findings].sort((a, b) => SEVERITY_ORDER[a.level] - SEVERITY_ORDER[b.level]).map((f) => f.requirement),
    ),
  ];
  if (rules.length === 0) return null;
  const shown: string[] = [];
  let length = 0;
  for (const rule of rules) {
    if (length + rule.length + 2 > VIOLATIONS_HEADER_MAX_LENGTH - 8) break;
    shown.push(rule);
    length += rule.length + 2;
  }
  const rest = rules.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, +${rest}` : shown.join(', ');
}

export interface AnswerParts {
  judging: ExchangeJudging;
  metrics: ProxyMetrics;
  logger: Logger;
  /** Adds `Las-Violations` (the rule ids known before the response starts) to answers. */
  violationsHeader: boolean;
  /** True once the proxy is draining (SIGTERM): every answer from then on closes its connection. */
  draining: () => boolean;
  /** The contract's legacy credential header, masked like Authorization when repeated in the query. */
  legacyHeader: string;
}

export class ClientAnswers {
  constructor(private readonly parts: AnswerParts) {}

  /** Writes the upstream's status line and headers; false when they cannot be relayed. */
  startResponse(exchange: ProxiedExchange, res: ServerResponse, statusText: string, extra: Finding[] = []): boolean {
    if (res.destroyed) return false;
    const headers = exchange.responseHeaders;
    if (this.parts.violationsHeader && exchange.sampled) {
      const value = violationsHeaderValue(this.parts.judging.judgedRequest(exchange).findings.concat(extra));
      if (value !== null) headers.push(VIOLATIONS_HEADER, value);
    }
    this.closeWhenDraining(res);
    try {
      res.writeHead(exchange.status ?? 502, statusText, headers);
      return true;
    } catch (error) {
      // Node refuses a status line or header the upstream sent: answer 502 and drop the upstream.
      this.upstreamFailed(exchange, res, error as Error, 'invalid');
      exchange.abortUpstream?.(error as Error);
      return false;
    }
  }

  /** Enforce mode: the whole response is here; judge it, then relay it or refuse it with 502. */
  finishHeld(exchange: ProxiedExchange, res: ServerResponse, statusText: string, body: Buffer): void {
    const { judging } = this.parts;
    const responseFindings = judging.responseFindings(
      exchange,
      body.length > 0 ? { kind: 'captured', raw: body } : NO_BODY,
    );
    exchange.findings = judging.judgedRequest(exchange).findings.concat(responseFindings);
    const breaking = responseFindings.filter(refused);
    if (breaking.length > 0) {
      this.refuse(exchange, res, rejectedResponseAnswer(breaking), exchange.findings);
      return;
    }
    if (this.startResponse(exchange, res, statusText, responseFindings)) res.end(body);
  }

  upstreamFailed(
    exchange: ProxiedExchange,
    res: ServerResponse,
    error: Error,
    failure: UpstreamFailure = classifyUpstreamError(error),
  ): void {
    if (exchange.clientGone || exchange.proxyStatus !== null) return;
    this.parts.metrics.upstreamErrors.inc({ kind: failure });
    this.parts.logger.warn(
      {
        requestId: exchange.requestId,
        method: exchange.method,
        path: maskedRequestTarget(exchange.path, exchange.headers, this.parts.legacyHeader),
        failure,
        code: (error as NodeJS.ErrnoException).code,
      },
      'upstream failed',
    );
    if (!res.headersSent) {
      exchange.status = null;
      this.refuse(exchange, res, upstreamErrorAnswer(failure, exchange.requestId), []);
    } else {
      // The status line is gone already: the only honest signal left is a cut connection.
      res.destroy();
    }
  }

  /** The proxy answers itself: a refusal or an upstream failure, naming the exchange so a client can quote it. */
  refuse(exchange: ProxiedExchange, res: ServerResponse, answer: ErrorAnswer, findings: Finding[]): void {
    exchange.proxyStatus = answer.status;
    if (res.destroyed) return;
    // Relayed answers pass as the upstream sent them; only the proxy's own carry its request id.
    const headers: Record<string, string | number> = { ...answer.headers, 'x-request-id': exchange.requestId };
    if (this.parts.violationsHeader) {
      const value = violationsHeaderValue(findings);
      if (value !== null) headers[VIOLATIONS_HEADER] = value;
    }
    this.closeWhenDraining(res);
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  }

  /**
   * While draining, an answer carries `Connection: close` and its connection takes no further request (what load
   * balancers expect).
   */
  private closeWhenDraining(res: ServerResponse): void {
    if (this.parts.draining()) res.shouldKeepAlive = false;
  }
}
