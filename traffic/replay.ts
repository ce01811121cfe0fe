// Replaying recorded exchanges against a target: each request is sent again with the run's own
// credentials where the recording masked them (in the scheme and header the original used), the
// answer is judged through the same path as the proxy's, and each original MUST finding about the
// service is told apart: still reproduces, fixed, or changed (another MUST finding in its place).
// Requests that could write (anything but GET and HEAD) are sent only when allowed.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { MASK, relativePath, type Contract, type Finding } from '../contract/index.ts';
import type { HarHeader, RecordedFinding } from '../proxy/har.ts';
import { findingsOf, judgeExchange, type JudgeOptions } from '../proxy/judge.ts';
import { partyOf } from '../proxy/violations.ts';
import type { CaseCredentials, RegressionCase } from '../targets/regression-cases.ts';
import type { Target } from '../targets/target.ts';
import { apiPath, judgeRecordedItem } from './judge-recorded.ts';
import { entryName, type RecordedItem } from './recorded-files.ts';

export type ReplayVerdict = 'reproduces' | 'fixed' | 'changed' | 'not-sent' | 'no-answer' | 'nothing-to-check';

export interface ReplayOutcome {
  /** `FILE entry #N`. */
  entry: string;
  method: string;
  /** Under the base path, query included (as recorded, credential-like values masked). */
  path: string;
  verdict: ReplayVerdict;
  /** The original MUST findings about the service, by rule. */
  original: RecordedFinding[];
  /** Original rules the answer still breaks. */
  reproduced: string[];
  /** MUST findings about the service the answer draws that the original did not. */
  appeared: Finding[];
  /** When the original exchange was recorded (the entry's startedDateTime). */
  recordedAt: string;
  /** The target's status, when it answered. */
  status?: number;
  /** Why the entry was not sent, or no answer came. */
  reason?: string;
  /** What the case would send again: the request as data, credentials by scheme. */
  request?: RegressionCase['request'];
}

export interface Replay {
  contract: Contract;
  target: Target;
  judge: JudgeOptions;
  allowWrites: boolean;
}

const READ_ONLY_METHODS = new Set(['GET', 'HEAD']);
/** Headers never sent again: the connection's own, those the client sets, and what only a recording holds. */
const NOT_RESENT = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'proxy-authorization', 'expect', 'accept-encoding', 'x-request-id', 'cookie', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);

/** The original's MUST findings about the service: what a replay asks after. */
export function serviceMustFindings(findings: readonly Pick<RecordedFinding, 'rule' | 'level' | 'direction'>[]): string[] {
  return [...new Set(findings.filter((f) => f.level === 'MUST' && partyOf(f.direction) === 'service').map((f) => f.rule))];
}

/**
 * The request as a regression case sends it: the credential by scheme (read from the recorded
 * headers, masked or not), the other headers worth sending again, the body. Null for an entry
 * outside the API.
 */
export function replayedRequest(contract: Contract, item: Extract<RecordedItem, { recorded: unknown }>, legacyHeader: string): RegressionCase['request'] | null {
  const path = apiPath(contract, item.recorded.url, undefined);
  if (path === null || relativePath(path, contract.basePath) === null) return null;
  // Under the base path, the query kept.
  const below = path.slice(contract.basePath.replace(/\/+$/, '').length);
  const relative = below.startsWith('/') ? below : `/${below}`;
  const recordedHeaders = ((item.raw as { request?: { headers?: HarHeader[] } }).request?.headers ?? []).filter((h) => !h.name.startsWith(':'));
  let credentials: CaseCredentials = 'none';
  const headers: Record<string, string> = {};
  for (const { name, value } of recordedHeaders) {
    const lower = name.toLowerCase();
    const scheme = credentialScheme(lower, value, legacyHeader, contract.legacyHeader);
    if (scheme !== null) {
      credentials = scheme;
      continue;
    }
    if (NOT_RESENT.has(lower) || lower.startsWith('sec-') || value === MASK || value.endsWith(` ${MASK}`)) continue;
    headers[lower] = lower in headers ? `${headers[lower]}, ${value}` : value;
  }
  const body = item.recorded.exchange.requestBody;
  return {
    method: item.recorded.exchange.method,
    path: relative,
    credentials,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(body.kind === 'captured' ? { body: Buffer.from(body.raw).toString('utf8') } : {}),
  };
}

/** The scheme a recorded credential header used, or null for any other header (a malformed one stays as recorded). */
function credentialScheme(lower: string, value: string, legacyHeader: string, contractLegacyHeader: string): CaseCredentials | null {
  if (lower === 'authorization') {
    const match = /^bearer\s+([rp]):/i.exec(value.trim());
    return match ? (match[1] === 'r' ? 'session' : 'pat') : null;
  }
  if (lower === legacyHeader.toLowerCase() || lower === contractLegacyHeader.toLowerCase()) return 'legacy';
  return null;
}

/** The headers that carry the target's own token in a scheme. */
export function credentialHeaders(target: Target, scheme: CaseCredentials): Record<string, string> {
  const { sessionToken, pat } = target.credentials;
  if (scheme === 'session') return { authorization: `Bearer r:${sessionToken}` };
  if (scheme === 'pat') return { authorization: `Bearer p:${pat}` };
  if (scheme === 'legacy') return { [target.legacyHeader]: sessionToken };
  return {};
}

export class Replayer {
  private readonly dispatcher: Agent;

  constructor(private readonly replay: Replay) {
    const ca = replay.target.caFile ? readFileSync(replay.target.caFile, 'utf8') : undefined;
    this.dispatcher = new Agent({ connect: { timeout: replay.target.limits.requestTimeoutMs, ...(ca ? { ca: [...rootCertificates, ca] } : {}) } });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Replays one entry and says what became of its original MUST findings about the service. */
  async replayEntry(item: Extract<RecordedItem, { recorded: unknown }>): Promise<ReplayOutcome | null> {
    const { contract, target, judge } = this.replay;
    const requestCase = replayedRequest(contract, item, target.legacyHeader);
    if (requestCase === null) return null;
    const original = this.originalFindings(item);
    const base = { entry: entryName(item), recordedAt: item.recorded.startedDateTime, method: requestCase.method, path: requestCase.path, original, reproduced: [], appeared: [], request: requestCase };
    const originalRules = serviceMustFindings(original);
    if (originalRules.length === 0) return { ...base, verdict: 'nothing-to-check', reason: 'no MUST finding about the service was recorded for it' };
    if (!READ_ONLY_METHODS.has(requestCase.method.toUpperCase()) && !this.replay.allowWrites) return { ...base, verdict: 'not-sent', reason: `${requestCase.method} could write to the target; --allow-writes sends it` };
    const sent = await this.send(requestCase);
    if (!sent.ok) return { ...base, verdict: 'no-answer', reason: sent.failure };
    const requestHeaders = { ...renamedLegacy(sent.headers, target.legacyHeader, contract.legacyHeader) };
    const findings = findingsOf(contract, judgeExchange(contract, {
      method: requestCase.method,
      path: `${contract.basePath}${requestCase.path}`,
      requestHeaders,
      requestBody: requestCase.body === undefined ? { kind: 'none' } : { kind: 'captured', raw: Buffer.from(requestCase.body) },
      response: { status: sent.status, rawHeaders: sent.rawHeaders, body: sent.body.length === 0 ? { kind: 'none' } : { kind: 'captured', raw: sent.body } },
    }, judge));
    const now = findings.filter((f) => f.level === 'MUST' && partyOf(f.location) === 'service');
    const nowRules = new Set(now.map((f) => f.requirement));
    const reproduced = originalRules.filter((rule) => nowRules.has(rule));
    const appeared = now.filter((f, i) => !originalRules.includes(f.requirement) && now.findIndex((g) => g.requirement === f.requirement) === i);
    const verdict: ReplayVerdict = reproduced.length > 0 ? 'reproduces' : appeared.length > 0 ? 'changed' : 'fixed';
    return { ...base, verdict, reproduced, appeared, status: sent.status };
  }

  /** The recorded findings (a capture holds them); for a HAR from elsewhere, what judging the recorded exchange finds. */
  private originalFindings(item: Extract<RecordedItem, { recorded: unknown }>): RecordedFinding[] {
    if (item.recorded.note) return item.recorded.note.findings;
    const judged = judgeRecordedItem({ contract: this.replay.contract, judge: this.replay.judge }, item);
    return judged.inApi ? judged.records.map((r) => ({ rule: r.rule, level: r.level, direction: r.direction, pointer: r.pointer, message: r.message })) : [];
  }

  private async send(requestCase: RegressionCase['request']): Promise<{ ok: true; status: number; rawHeaders: string[]; headers: Record<string, string>; body: Buffer } | { ok: false; failure: string }> {
    const { target } = this.replay;
    const headers: Record<string, string> = { ...(requestCase.headers ?? {}), ...(target.extraHeaders ?? {}), ...credentialHeaders(target, requestCase.credentials) };
    const url = `${target.baseUrl}${requestCase.path}`;
    try {
      const response = await request(url, {
        method: requestCase.method as 'GET',
        headers,
        body: requestCase.body,
        dispatcher: this.dispatcher,
        headersTimeout: target.limits.requestTimeoutMs,
        bodyTimeout: target.limits.requestTimeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > target.limits.maxBodyBytes) {
          response.body.destroy();
          return { ok: false, failure: `the answer is larger than ${target.limits.maxBodyBytes} bytes, the most read (--max-body-mib)` };
        }
        chunks.push(chunk);
      }
      const rawHeaders: string[] = [];
      for (const [name, value] of Object.entries(response.headers)) for (const v of Array.isArray(value) ? value : [value ?? '']) rawHeaders.push(name, v);
      return { ok: true, status: response.statusCode, rawHeaders, headers, body: Buffer.concat(chunks, size) };
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      return { ok: false, failure: `no answer from ${new URL(target.baseUrl).origin}: ${code ?? message.split('\n')[0]}` };
    }
  }
}

/** Headers as the contract reads them: the target's legacy header under the contract's name. */
function renamedLegacy(headers: Record<string, string>, targetLegacy: string, contractLegacy: string): Record<string, string> {
  const renamed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) renamed[name.toLowerCase() === targetLegacy.toLowerCase() ? contractLegacy.toLowerCase() : name.toLowerCase()] = value;
  return renamed;
}

/** The regression cases of the outcomes whose MUST findings still reproduce: one per reproduced requirement. */
export function regressionCasesOf(outcomes: readonly ReplayOutcome[], seenAt: string): RegressionCase[] {
  return outcomes.flatMap((outcome) =>
    outcome.verdict !== 'reproduces' || !outcome.request
      ? []
      : outcome.reproduced.map((rule) => {
          const finding = outcome.original.find((f) => f.rule === rule);
          const message = finding?.message ? `: ${finding.message}` : '';
          return {
            name: `${outcome.method} ${outcome.path.split('?')[0]} ${rule}`.slice(0, 120),
            requirement: rule,
            // The capture file by name only: where it lay on one machine means nothing in a repository.
            why: `recorded ${outcome.recordedAt || 'at an unknown time'} (${outcome.entry.replace(/^.*[\\/]/, '')}), still reproduced against ${seenAt}${message}`.slice(0, 500),
            request: outcome.request!,
          };
        }),
  );
}
