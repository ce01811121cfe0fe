// Replaying recorded exchanges against a target: each request is sent again with every recorded
// credential stripped and the run's own in the scheme and header the original used (an entry
// authenticated in a form the run cannot supply is not sent), the
// answer is judged through the same path as the proxy's, and each original MUST finding about the
// service is told apart: still reproduces, fixed, or changed (another MUST finding in its place).
// Requests that could write (anything but GET and HEAD, or one carrying a method override) are
// sent only when allowed. A method's name is case-sensitive (RFC 9110, 9.1): a recorded `Get` is
// not GET, a target may read it as any method, so it too is sent only when allowed, as recorded.
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import {
  credentialHeader,
  headerSecrets,
  MASK,
  maskCredentialQuery,
  maskedBody,
  maskedQueryPairs,
  maskedText,
  maskKnownValues,
  parseQueryPairs,
  relativePath,
  type Contract,
  type Finding,
  type MaskedBody,
} from '../contract/index.ts';
import { METHOD_OVERRIDE_HEADERS, METHOD_OVERRIDE_PARAMETERS, REWRITE_HEADERS } from '../proxy/admission.ts';
import type { HarHeader, RecordedFinding } from '../proxy/har.ts';
import { findingsOf, judgeCaptured, type JudgeOptions } from '../proxy/judge.ts';
import { partyOf } from '../proxy/violations.ts';
import type { CaseCredentials, RegressionCase } from '../targets/regression-cases.ts';
import { readCaFile, type Target } from '../targets/target.ts';
import { apiPath, judgeRecordedItem, secretsOfRecording } from './judge-recorded.ts';
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

/** Why a request whose method is not exactly GET or HEAD is not sent without --allow-writes. */
function writeRefusal(method: string): string {
  const canonical = method.toUpperCase();
  if (READ_ONLY_METHODS.has(canonical)) {
    const why = "a method's name is case-sensitive and a target may read it as another";
    return `${method} is not ${canonical}: ${why}; --allow-writes sends it as recorded`;
  }
  return `${method} could write to the target; --allow-writes sends it`;
}
/**
 * The recorded headers a replayed request (and a saved regression case) sends again: what the
 * contract reads of a request besides its credential. Nothing that names the client (User-Agent,
 * cookies, forwarded addresses) is kept. A method override or rewrite header is kept for
 * --allow-writes alone: without it such an entry is not sent.
 */
const RESENT_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'accept',
  ...METHOD_OVERRIDE_HEADERS,
  ...REWRITE_HEADERS,
]);

/** The original's MUST findings about the service: what a replay asks after. */
export function serviceMustFindings(
  findings: readonly Pick<RecordedFinding, 'rule' | 'level' | 'direction'>[],
): string[] {
  return [
    ...new Set(findings.filter((f) => f.level === 'MUST' && partyOf(f.direction) === 'service').map((f) => f.rule)),
  ];
}

/**
 * A recorded request as it is sent again: its recorded credentials stripped, the scheme to put the run's own in; or why
 * it cannot be.
 */
export interface ReplayedRequest {
  request: RegressionCase['request'];
  /** Why the entry is not sent whatever the flags: a credential the run cannot supply, a body that cannot be masked. */
  unsendable?: string;
  /** The method overrides and rewrites the request holds (sent with --allow-writes only). */
  overrides: string[];
  /** Every credential value the recording holds (headers, query, body): masked wherever else it turns up. */
  recordedSecrets: ReadonlySet<string>;
}

/**
 * The request as a regression case sends it: the credential by scheme (read from the recorded
 * headers, masked or not), the contract's headers, the query and body with every recorded
 * credential (and any of `runSecrets`, the run's own) masked. Null for an entry outside the API.
 */
export function replayedRequest(
  contract: Contract,
  item: Extract<RecordedItem, { recorded: unknown }>,
  legacyHeader: string,
  runSecrets: ReadonlySet<string> = new Set(),
): ReplayedRequest | null {
  const path = apiPath(contract, item.recorded.url, undefined);
  if (path === null || relativePath(path, contract.basePath) === null) return null;
  // Under the base path, the query kept.
  const below = path.slice(contract.basePath.replace(/\/+$/, '').length);
  const relative = below.startsWith('/') ? below : `/${below}`;
  const recordedHeaders = ((item.raw as { request?: { headers?: HarHeader[] } }).request?.headers ?? []).filter(
    (h) => !h.name.startsWith(':'),
  );
  const headerObject: Record<string, string[]> = {};
  for (const { name, value } of recordedHeaders) (headerObject[name.toLowerCase()] ??= []).push(value);
  const body = item.recorded.exchange.requestBody;
  const bodyText = body.kind === 'captured' ? Buffer.from(body.raw).toString('utf8') : undefined;
  const contentType = headerObject['content-type']?.[0] ?? '';
  // The run's own tokens too: a recording may hold one where no credential name says so.
  const recordedSecrets = new Set([
    ...secretsOfRecording(item.recorded.exchange, legacyHeader),
    ...headerSecrets(headerObject, contract.legacyHeader),
    ...runSecrets,
  ]);
  const form = credentialForm(recordedHeaders, relative, [legacyHeader, contract.legacyHeader]);
  const headers: Record<string, string> = {};
  for (const { name, value } of recordedHeaders) {
    const lower = name.toLowerCase();
    if (!RESENT_HEADERS.has(lower)) continue;
    const masked = maskKnownValues(value, recordedSecrets);
    headers[lower] = lower in headers ? `${headers[lower]}, ${masked}` : masked;
  }
  const maskedBodyText = bodyText === undefined ? undefined : maskedBody(bodyText, contentType, recordedSecrets);
  const request: RegressionCase['request'] = {
    method: item.recorded.exchange.method,
    path: maskCredentialQuery(relative, recordedSecrets),
    credentials: 'credentials' in form ? form.credentials : 'none',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(maskedBodyText !== undefined && 'text' in maskedBodyText ? { body: maskedBodyText.text } : {}),
  };
  const unsendable = unsendableReason(form, maskedBodyText, legacyHeader);
  return {
    request,
    ...(unsendable ? { unsendable } : {}),
    overrides: methodOverrides(recordedHeaders, relative, bodyText, contentType),
    recordedSecrets,
  };
}

/** Why a request is never sent again, whatever the flags, or undefined. */
function unsendableReason(
  form: ReturnType<typeof credentialForm>,
  body: MaskedBody | undefined,
  legacyHeader: string,
): string | undefined {
  if ('unsuppliable' in form)
    return `the recording authenticates with ${form.unsuppliable}, which this run cannot supply (it sends only Bearer r:, Bearer p: or ${legacyHeader})`;
  if (body !== undefined && 'dropped' in body)
    return `its body cannot be sent without its credentials: ${body.dropped}`;
  return undefined;
}

/**
 * How the recorded request authenticated: a scheme the run supplies its own token in (Bearer r:,
 * Bearer p:, the legacy header), none, or a form it cannot supply (Basic, Digest, another Bearer,
 * a cookie, a key in a header or the query). Other credentials beside a supplied scheme are stripped.
 */
function credentialForm(
  headers: readonly HarHeader[],
  path: string,
  legacyHeaders: readonly string[],
): { credentials: CaseCredentials } | { unsuppliable: string } {
  const legacy = new Set(legacyHeaders.map((name) => name.toLowerCase()));
  let unsuppliable: string | null = null;
  for (const { name, value } of headers) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      const match = /^bearer\s+([rp]):/i.exec(value.trim());
      if (match) return { credentials: match[1] === 'r' ? 'session' : 'pat' };
      unsuppliable ??= /^bearer\s/i.test(value.trim())
        ? 'a Bearer token without the r: or p: prefix'
        : `Authorization ${/^\S+/.exec(value.trim())?.[0].slice(0, 20) ?? ''}`.trim();
    } else if (legacy.has(lower)) return { credentials: 'legacy' };
    else if (credentialHeader(lower, legacyHeaders[0])) unsuppliable ??= `the header ${lower.slice(0, 60)}`;
  }
  const queryCredential = maskedQueryPairs(path).find((pair) => pair.value === MASK);
  if (queryCredential) unsuppliable ??= `the query parameter ${queryCredential.name.slice(0, 60)}`;
  return unsuppliable === null ? { credentials: 'none' } : { unsuppliable };
}

/**
 * The method overrides and rewrites a request holds, in every form enforce mode refuses (proxy/admission.ts), and
 * `_method` in a body.
 */
function methodOverrides(
  headers: readonly HarHeader[],
  path: string,
  bodyText: string | undefined,
  contentType: string,
): string[] {
  const found: string[] = [];
  for (const { name } of headers)
    if (METHOD_OVERRIDE_HEADERS.has(name.toLowerCase()) || REWRITE_HEADERS.has(name.toLowerCase()))
      found.push(name.toLowerCase());
  const question = path.indexOf('?');
  const overriding = (names: Iterable<string>) =>
    [...names].filter((name) => METHOD_OVERRIDE_PARAMETERS.has(name.toLowerCase()));
  if (question >= 0)
    found.push(
      ...overriding(parseQueryPairs(path.slice(question + 1)).map((pair) => pair.name)).map(
        (name) => `the query parameter ${name}`,
      ),
    );
  if (bodyText !== undefined)
    found.push(...overriding(bodyMemberNames(bodyText, contentType)).map((name) => `the body member ${name}`));
  return [...new Set(found)];
}

/** The top-level names of a JSON object body, or the field names of a form (or of a body that reads as one). */
function bodyMemberNames(text: string, contentType: string): string[] {
  if (!/json/i.test(contentType) || !text.trim().startsWith('{'))
    return parseQueryPairs(text.trim()).map((pair) => pair.name);
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  } catch {
    return [...text.matchAll(/"([^"\\]{1,40})"\s*:/g)].map((match) => match[1]);
  }
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

  /** The run's own tokens and header values: sent where the scheme asks, never kept in a case. */
  private readonly runSecrets: ReadonlySet<string>;

  constructor(private readonly replay: Replay) {
    const { sessionToken, pat, forbiddenToken } = replay.target.credentials;
    this.runSecrets = new Set(
      [sessionToken, pat, forbiddenToken ?? '', ...Object.values(replay.target.extraHeaders ?? {})].filter(
        (value) => value !== '',
      ),
    );
    const ca = replay.target.caFile ? readCaFile(replay.target.caFile) : undefined;
    this.dispatcher = new Agent({
      connect: { timeout: replay.target.limits.requestTimeoutMs, ...(ca ? { ca: [...rootCertificates, ca] } : {}) },
    });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Replays one entry and says what became of its original MUST findings about the service. */
  async replayEntry(item: Extract<RecordedItem, { recorded: unknown }>): Promise<ReplayOutcome | null> {
    const { contract, target, judge } = this.replay;
    const replayed = replayedRequest(contract, item, target.legacyHeader, this.runSecrets);
    if (replayed === null) return null;
    const { request: requestCase, recordedSecrets } = replayed;
    const original = this.originalFindings(item).map((f) => ({
      ...f,
      message: maskedText(f.message, recordedSecrets),
    }));
    const base = {
      entry: entryName(item),
      recordedAt: item.recorded.startedDateTime,
      method: requestCase.method,
      path: requestCase.path,
      original,
      reproduced: [],
      appeared: [],
      request: requestCase,
    };
    const originalRules = serviceMustFindings(original);
    if (originalRules.length === 0)
      return { ...base, verdict: 'nothing-to-check', reason: 'no MUST finding about the service was recorded for it' };
    if (replayed.unsendable) return { ...base, verdict: 'not-sent', reason: replayed.unsendable };
    if (!this.replay.allowWrites && !READ_ONLY_METHODS.has(requestCase.method)) {
      return { ...base, verdict: 'not-sent', reason: writeRefusal(requestCase.method) };
    }
    if (!this.replay.allowWrites && replayed.overrides.length > 0)
      return {
        ...base,
        verdict: 'not-sent',
        reason: `${replayed.overrides.join(', ')} could make the target read this ${requestCase.method} as another method or path; --allow-writes sends it`,
      };
    const sent = await this.send(requestCase);
    if (!sent.ok) return { ...base, verdict: 'no-answer', reason: sent.failure };
    const requestHeaders = { ...renamedLegacy(sent.headers, target.legacyHeader, contract.legacyHeader) };
    const findings = findingsOf(
      contract,
      judgeCaptured(
        contract,
        {
          method: requestCase.method,
          path: `${contract.basePath}${requestCase.path}`,
          requestHeaders,
          requestBody:
            requestCase.body === undefined
              ? { kind: 'none' }
              : { kind: 'captured', raw: Buffer.from(requestCase.body) },
          response: {
            status: sent.status,
            rawHeaders: sent.rawHeaders,
            body: sent.body.length === 0 ? { kind: 'none' } : { kind: 'captured', raw: sent.body },
          },
        },
        judge,
      ),
    );
    const now = findings.filter((f) => f.level === 'MUST' && partyOf(f.location) === 'service');
    const nowRules = new Set(now.map((f) => f.requirement));
    const reproduced = originalRules.filter((rule) => nowRules.has(rule));
    const appeared = now.filter(
      (f, i) => !originalRules.includes(f.requirement) && now.findIndex((g) => g.requirement === f.requirement) === i,
    );
    const verdict: ReplayVerdict = reproduced.length > 0 ? 'reproduces' : appeared.length > 0 ? 'changed' : 'fixed';
    return { ...base, verdict, reproduced, appeared, status: sent.status };
  }

  /**
   * The recorded findings (a capture holds them); for a HAR from elsewhere, what judging the recorded exchange finds.
   */
  private originalFindings(item: Extract<RecordedItem, { recorded: unknown }>): RecordedFinding[] {
    if (item.recorded.note) return item.recorded.note.findings;
    const judged = judgeRecordedItem({ contract: this.replay.contract, judge: this.replay.judge }, item);
    return judged.inApi
      ? judged.records.map((r) => ({
          rule: r.rule,
          level: r.level,
          direction: r.direction,
          pointer: r.pointer,
          message: r.message,
        }))
      : [];
  }

  private async send(
    requestCase: RegressionCase['request'],
  ): Promise<
    | { ok: true; status: number; rawHeaders: string[]; headers: Record<string, string>; body: Buffer }
    | { ok: false; failure: string }
  > {
    const { target } = this.replay;
    const headers: Record<string, string> = {
      ...(requestCase.headers ?? {}),
      ...(target.extraHeaders ?? {}),
      ...credentialHeaders(target, requestCase.credentials),
    };
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
          return {
            ok: false,
            failure: `the answer is larger than ${target.limits.maxBodyBytes} bytes, the most read (--max-body-mib)`,
          };
        }
        chunks.push(chunk);
      }
      const rawHeaders: string[] = [];
      for (const [name, value] of Object.entries(response.headers))
        for (const v of Array.isArray(value) ? value : [value ?? '']) rawHeaders.push(name, v);
      return { ok: true, status: response.statusCode, rawHeaders, headers, body: Buffer.concat(chunks, size) };
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      return {
        ok: false,
        failure: `no answer from ${new URL(target.baseUrl).origin}: ${code ?? message.split('\n')[0]}`,
      };
    }
  }
}

/** Headers as the contract reads them: the target's legacy header under the contract's name. */
function renamedLegacy(
  headers: Record<string, string>,
  targetLegacy: string,
  contractLegacy: string,
): Record<string, string> {
  const renamed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    renamed[name.toLowerCase() === targetLegacy.toLowerCase() ? contractLegacy.toLowerCase() : name.toLowerCase()] =
      value;
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
            why: `recorded ${outcome.recordedAt || 'at an unknown time'} (${outcome.entry.replace(/^.*[\\/]/, '')}), still reproduced against ${seenAt}${message}`.slice(
              0,
              500,
            ),
            request: outcome.request!,
          };
        }),
  );
}
