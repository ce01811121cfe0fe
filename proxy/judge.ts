// The proxy's side of judging one exchange: it turns what it kept of the bodies into text, notes
// what only a proxy sees (a body it did not keep, a member name written twice), and hands the
// exchange to the contract's one judging path (contract/judge.ts); the findings it returns are
// bounded (boundFindings). Pure: no I/O, no clocks, no state beyond what the caller passes in.
import {
  boundFindings,
  cutFinding,
  FINDING_LIMITS,
  headerValue,
  judgeRequest as judgeContractRequest,
  judgeResponse as judgeContractResponse,
  locate,
  memberNameReading,
  UNSPECIFIED_OPERATION,
} from '../contract/index.ts';
import type {
  Contract,
  Finding,
  Headers,
  HttpRequest,
  HttpResponse,
  JudgedRequest,
  Level,
  Located,
  Utf8Reading,
  ValidateOptions,
} from '../contract/index.ts';

export type { JudgedRequest };
import { decodeBody, type OmissionCause } from './body.ts';
import { headersObject } from './headers.ts';

export { locate, UNSPECIFIED_OPERATION };

/** What the proxy kept of a body: nothing (there was none), its bytes, or why it kept none. */
export type CapturedBody =
  { kind: 'none' } | { kind: 'captured'; raw: Uint8Array } | { kind: 'omitted'; reason: string; cause: OmissionCause };

export const NO_BODY: CapturedBody = { kind: 'none' };

/** The bytes kept of a body (none unless captured). */
export function bodySize(body: CapturedBody): number {
  return body.kind === 'captured' ? body.raw.byteLength : 0;
}

export interface JudgeOptions {
  /** Body values in messages (`--log-values`); off by default for production traffic. */
  includeValues: boolean;
  /** The largest body judged, raw or decoded. */
  maxBody: number;
}

export function operationLabel(request: Pick<JudgedRequest, 'inApi' | 'operation'>): string {
  if (!request.inApi) return 'outside-api';
  return request.operation?.operationId ?? 'unspecified';
}

/**
 * The kind of a finding, for writing each kind once per interval (repeats.ts): an INFO
 * observation by rule, operation and direction (traffic to unspecified operations included: a
 * client choosing a new path per request gets one line, not one per path); anything else also by
 * its pointer, array indices folded (the same rule broken by every item of a list is one kind).
 */
export function repeatKind(
  finding: Pick<Finding, 'requirement' | 'level' | 'location' | 'pointer'>,
  operationId: string | null,
): string {
  const base = `${finding.requirement} ${operationId ?? 'unspecified'} ${finding.location}`;
  return finding.level === 'INFO' ? base : `${base} ${finding.pointer.replace(/\/\d+(?=\/|$)/g, '/*')}`;
}

/** `located`: where the request belongs, when the caller located it already. */
export function judgeRequest(
  contract: Contract,
  method: string,
  path: string,
  headers: Headers,
  body: CapturedBody,
  options: JudgeOptions,
  located?: Located,
): JudgedRequest {
  const text = bodyText(body, headers, options.maxBody);
  const request: HttpRequest = { method, path, headers, bodyText: text.bodyText };
  const judged = judgeContractRequest(contract, request, validateOptions(options, text.omitted), located);
  if (!judged.inApi) return judged;
  const findings = omittedFindings(contract, 'request', text.omitted);
  if (text.bodyText !== undefined) {
    const names = memberNameReading(text.bodyText);
    if (names.duplicate !== null)
      findings.push(
        contract.finding('PROXY-DUPLICATE-MEMBER', 'request', {
          message: `the member name ${JSON.stringify(names.duplicate.slice(0, 40))} appears twice in one object: parsers keep the first or the last`,
        }),
      );
    if (names.caseVariant !== null)
      findings.push(
        contract.finding('PROXY-MEMBER-CASE-VARIANT', 'request', {
          message: `the member name ${JSON.stringify(names.caseVariant.slice(0, 40))} differs only by case from another of its object: case-insensitive binders read them as one`,
        }),
      );
    if (names.prototypeKey !== null)
      findings.push(
        contract.finding('PROXY-PROTOTYPE-KEY', 'request', {
          message: `the member name ${JSON.stringify(names.prototypeKey)} names a prototype member, which JavaScript servers may merge into every object`,
        }),
      );
  }
  return { ...judged, findings: listed(findings.concat(judged.findings)) };
}

/** Findings of the response and of the whole exchange, given the judged request (bounded, see boundFindings). */
export function judgeResponse(
  contract: Contract,
  request: JudgedRequest,
  status: number,
  headers: Headers,
  body: CapturedBody,
  options: JudgeOptions,
): Finding[] {
  if (!request.inApi) return [];
  const text = bodyText(body, headers, options.maxBody);
  const response: HttpResponse = {
    status,
    headers,
    bodyText: text.bodyText,
    ...(text.utf8 === undefined ? {} : { utf8: text.utf8 }),
  };
  return listed(
    omittedFindings(contract, 'response', text.omitted).concat(
      judgeContractResponse(contract, request, response, validateOptions(options, text.omitted)),
    ),
  );
}

/** The findings the proxy lists (bounded in number, see boundFindings), each of their texts cut to a fixed size. */
function listed(findings: Finding[]): Finding[] {
  return boundFindings(findings, PROXY_FINDING_LIMITS).map(cutFinding);
}

/**
 * Findings the proxy lists per rule and direction of one exchange: the first; the rest are counted
 * into one "and N more". Its log writes one finding of a kind per interval and counts the others,
 * so listing more would cost time on every exchange of a service that breaks a rule per item, and
 * show nothing more.
 */
export const PROXY_FINDING_LIMITS = { perRule: 1, total: FINDING_LIMITS.total };

function validateOptions(options: JudgeOptions, omitted: Omission | undefined): ValidateOptions {
  return {
    includeValues: options.includeValues,
    bodyOmitted: omitted !== undefined,
    listedPerShape: PROXY_FINDING_LIMITS.perRule,
  };
}

/**
 * Everything judging one exchange reads, as plain data: it can be judged on another thread.
 * `Body` is how the bodies travel (judge-thread.ts posts them as places in a shared ring).
 */
export interface CapturedExchange<Body = CapturedBody> {
  method: string;
  path: string;
  requestHeaders: Headers;
  requestBody: Body;
  /** The upstream's completed response; null when there is none to judge. */
  response: { status: number; rawHeaders: string[]; body: Body } | null;
}

/** A part of an exchange whose judging threw: its direction and the error's message. */
export interface JudgingFailure {
  location: 'request' | 'exchange';
  message: string;
}

/**
 * Findings of the request, and of the response and whole exchange when there is one. The two
 * parts are judged apart: should judging one of them throw, the other still stands, and the
 * failure is returned under the party whose part it was (a client cannot make its request's
 * failure stand for the service, nor hide the service's findings behind it).
 */
export function judgeCaptured(
  contract: Contract,
  captured: CapturedExchange,
  options: JudgeOptions,
): { findings: Finding[]; failures: JudgingFailure[] } {
  const failures: JudgingFailure[] = [];
  let request: JudgedRequest;
  try {
    request = judgeRequest(
      contract,
      captured.method,
      captured.path,
      captured.requestHeaders,
      captured.requestBody,
      options,
    );
  } catch (error) {
    failures.push({ location: 'request', message: errorMessage(error) });
    request = {
      ...locate(contract, captured.method, captured.path),
      request: { method: captured.method, path: captured.path, headers: captured.requestHeaders },
      findings: [],
    };
  }
  if (!captured.response) return { findings: request.findings, failures };
  const { status, rawHeaders, body } = captured.response;
  try {
    return {
      findings: request.findings.concat(
        judgeResponse(contract, request, status, headersObject(rawHeaders), body, options),
      ),
      failures,
    };
  } catch (error) {
    failures.push({ location: 'exchange', message: errorMessage(error) });
    return { findings: request.findings, failures };
  }
}

/**
 * The level of PROXY-NOT-JUDGED as written: the highest a finding of its direction could have had
 * (MUST), so what could not be judged is never written as a mere observation.
 */
export const NOT_JUDGED_LEVEL: Level = 'MUST';

/** A part whose judging threw, as the finding that stands in the exchange's findings. */
export function notJudgedFinding(contract: Contract, failure: JudgingFailure): Finding {
  return {
    ...contract.finding('PROXY-NOT-JUDGED', failure.location, {
      message: `the proxy failed to judge this ${failure.location}: ${failure.message}`,
    }),
    level: NOT_JUDGED_LEVEL,
  };
}

/** Every finding of a judged exchange, its failures standing as PROXY-NOT-JUDGED. */
export function findingsOf(contract: Contract, judged: { findings: Finding[]; failures: JudgingFailure[] }): Finding[] {
  return judged.failures.length === 0
    ? judged.findings
    : judged.findings.concat(judged.failures.map((failure) => notJudgedFinding(contract, failure)));
}

function errorMessage(error: unknown): string {
  return String((error as Error)?.message ?? error);
}

interface Omission {
  reason: string;
  cause: OmissionCause;
}

function bodyText(
  body: CapturedBody,
  headers: Headers,
  maxBody: number,
): { bodyText?: string; utf8?: Utf8Reading; omitted?: Omission } {
  if (body.kind === 'none') return {};
  if (body.kind === 'omitted') return { omitted: body };
  const raw = Buffer.isBuffer(body.raw)
    ? body.raw
    : Buffer.from(body.raw.buffer, body.raw.byteOffset, body.raw.byteLength);
  const decoded = decodeBody(raw, headerValue(headers, 'content-encoding'), maxBody);
  return decoded.ok ? { bodyText: decoded.text, utf8: decoded.utf8 } : { omitted: decoded };
}

/**
 * The finding for a body not validated: a request's names why (enforce mode refuses it, 413 or 415); a response's is an
 * observation.
 */
const omissionRules: Record<'request' | 'response', Record<OmissionCause, string>> = {
  request: { size: 'PROXY-BODY-TOO-LARGE', coding: 'PROXY-CONTENT-CODING' },
  response: { size: 'PROXY-BODY-NOT-VALIDATED', coding: 'PROXY-BODY-NOT-VALIDATED' },
};

/** The rules under which a body goes unvalidated (las_proxy_bodies_not_validated_total counts them). */
export const NOT_VALIDATED_RULES = new Set(Object.values(omissionRules).flatMap((byCause) => Object.values(byCause)));

function omittedFindings(
  contract: Contract,
  location: 'request' | 'response',
  omitted: Omission | undefined,
): Finding[] {
  if (omitted === undefined) return [];
  return [
    contract.finding(omissionRules[location][omitted.cause], location, {
      message: `${location} body not validated: ${omitted.reason}`,
    }),
  ];
}
