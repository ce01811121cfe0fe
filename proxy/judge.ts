// The proxy's side of judging one exchange: it turns what it kept of the bodies into text and
// hands the exchange to the contract's one judging path (contract/judge.ts). Pure: no I/O, no
// clocks, no state beyond what the caller passes in.
import { headerValue, judgeRequest as judgeContractRequest, judgeResponse as judgeContractResponse, locate, unspecifiedOperationKey, UNSPECIFIED_OPERATION } from '../contract/index.ts';
import type { Contract, Finding, Headers, HttpRequest, HttpResponse, JudgedRequest, Location, ValidateOptions } from '../contract/index.ts';
import { decodeBody } from './body.ts';
import { headersObject } from './headers.ts';
import type { ViolationRecord } from './violations.ts';

export { locate, unspecifiedOperationKey, UNSPECIFIED_OPERATION };

/** What the proxy kept of a body: nothing (there was none), its bytes, or why it kept none. */
export type BodyEvidence = { kind: 'none' } | { kind: 'captured'; raw: Uint8Array } | { kind: 'omitted'; reason: string };

export const NO_BODY: BodyEvidence = { kind: 'none' };

export interface JudgeOptions {
  /** Body values in messages (`--log-values`); off by default for production traffic. */
  includeValues: boolean;
  /** The largest body judged, raw or decoded. */
  maxBody: number;
}

/** The request's side of an exchange: outside the `/v3` root (`inApi` false) it is forwarded, never judged. */
export type RequestVerdict = JudgedRequest;

export function operationLabel(verdict: Pick<RequestVerdict, 'inApi' | 'operation'>): string {
  if (!verdict.inApi) return 'outside-api';
  return verdict.operation?.operationId ?? 'unspecified';
}

/**
 * The key under which a finding is logged and shown once only, or null when every occurrence is:
 * traffic to an unspecified operation once per method and first path segment, any other INFO
 * observation once per rule, operation and direction. MUST and SHOULD findings have no key.
 */
export function onceOnlyKey(contract: Contract, record: Pick<ViolationRecord, 'rule' | 'level' | 'operationId' | 'direction' | 'method' | 'path'>): string | null {
  if (record.rule === UNSPECIFIED_OPERATION) return `${record.rule} ${unspecifiedOperationKey(contract, record.method, record.path)}`;
  if (record.level !== 'INFO') return null;
  return `${record.rule} ${record.operationId ?? 'unspecified'} ${record.direction}`;
}

export function judgeRequest(contract: Contract, method: string, path: string, headers: Headers, body: BodyEvidence, options: JudgeOptions): RequestVerdict {
  const text = bodyText(body, headers, options.maxBody);
  const request: HttpRequest = { method, path, headers, bodyText: text.bodyText };
  const judged = judgeContractRequest(contract, request, validateOptions(options, text.omitted));
  if (!judged.inApi) return judged;
  return { ...judged, findings: [...omittedFindings(contract, 'request', text.omitted), ...judged.findings] };
}

/** Findings of the response and of the whole exchange, given the request's verdict. */
export function judgeResponse(contract: Contract, verdict: RequestVerdict, status: number, headers: Headers, body: BodyEvidence, options: JudgeOptions): Finding[] {
  if (!verdict.inApi) return [];
  const text = bodyText(body, headers, options.maxBody);
  const response: HttpResponse = { status, headers, bodyText: text.bodyText };
  return [...omittedFindings(contract, 'response', text.omitted), ...judgeContractResponse(contract, verdict, response, validateOptions(options, text.omitted))];
}

function validateOptions(options: JudgeOptions, omitted: string | undefined): ValidateOptions {
  return { includeValues: options.includeValues, bodyOmitted: omitted !== undefined };
}

/**
 * Everything judging one exchange reads, as plain data: it can be judged on another thread.
 * `Body` is how the bodies travel (judge-thread.ts posts them as places in a shared ring).
 */
export interface ExchangeEvidence<Body = BodyEvidence> {
  method: string;
  path: string;
  requestHeaders: Headers;
  requestBody: Body;
  /** The upstream's completed response; null when there is none to judge. */
  response: { status: number; rawHeaders: string[]; body: Body } | null;
}

/** Findings of the request, and of the response and whole exchange when there is one. */
export function judgeExchange(contract: Contract, evidence: ExchangeEvidence, options: JudgeOptions): Finding[] {
  const verdict = judgeRequest(contract, evidence.method, evidence.path, evidence.requestHeaders, evidence.requestBody, options);
  if (!evidence.response) return verdict.findings;
  const { status, rawHeaders, body } = evidence.response;
  return [...verdict.findings, ...judgeResponse(contract, verdict, status, headersObject(rawHeaders), body, options)];
}

function bodyText(body: BodyEvidence, headers: Headers, maxBody: number): { bodyText?: string; omitted?: string } {
  if (body.kind === 'none') return {};
  if (body.kind === 'omitted') return { omitted: body.reason };
  const raw = Buffer.from(body.raw.buffer, body.raw.byteOffset, body.raw.byteLength);
  const decoded = decodeBody(raw, headerValue(headers, 'content-encoding'), maxBody);
  return decoded.ok ? { bodyText: decoded.text } : { omitted: decoded.reason };
}

function omittedFindings(contract: Contract, location: Location, reason: string | undefined): Finding[] {
  if (reason === undefined) return [];
  return [contract.finding('PROXY-BODY-NOT-VALIDATED', location, { message: `${location} body not validated: ${reason}` })];
}
