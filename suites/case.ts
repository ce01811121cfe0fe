// One conformance case at run time: it sends requests, runs the contract's checks on every
// exchange (validateResponse, checkExchange), adds the case's own expectations, and turns the
// findings into the case's verdict. A finding is recorded under its own requirement id whatever
// the case is about: the certification record is kept per requirement.
import type { TestInfo } from '@playwright/test';
import { checkExchange, MEDIA_TYPE, parseJson, validateRequest, validateResponse, type Contract, type Finding, type Level, type Operation } from '../contract/index.ts';
import type { Target } from '../targets/target.ts';
import type { OutgoingRequest, TargetClient } from './client.ts';
import { curlLine, type Evidence, type ExchangeSummary } from './evidence.ts';
import { scrubDeep, type Scrub } from './secrets.ts';
import type { FailLevel } from './settings.ts';

/** The attachment every case leaves for the reporters: its findings with their evidence. */
export const CASE_REPORT_ATTACHMENT = 'conformance-findings';

/** Set (to 1) in the workers' environment when the case-verdict reporter decides verdicts in the runner. */
export const VERDICT_BY_REPORTER = 'LAS_VERDICT_BY_REPORTER';

/** The annotation type that names a requirement a case exercises (with `level` and `section` beside it). */
export const REQUIREMENT_ANNOTATION = 'requirement';

export interface CaseReport {
  /** The base URL the case ran against (not a secret). */
  target: string;
  findings: Evidence[];
}

export interface CaseRequest {
  operation: Operation;
  /** Query string without `?`, in the kit's encoding (docs/certification.md §4), e.g. `filter[type]=portal`. */
  query?: string;
  /** The headers that carry (or deliberately fail to carry) credentials. */
  credentials: Record<string, string>;
  /** A JSON document, sent serialized. */
  document?: unknown;
  /** A body sent exactly as given (malformed JSON, an empty body); wins over `document`. */
  bodyText?: string;
  /** Default application/vnd.api+json when there is a body. */
  contentType?: string;
}

/** The status of an Answer when no answer came (timeout, reset, too large). */
export const NO_ANSWER = 0;

export interface Answer {
  /** NO_ANSWER when none came; the finding saying why is already recorded. */
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
  summary: ExchangeSummary;
}

/** The credential headers of a target, by scheme (section 5). */
export interface CredentialHeaders {
  session: Record<string, string>;
  pat: Record<string, string>;
  legacy: Record<string, string>;
  forbidden?: Record<string, string>;
  none: Record<string, string>;
}

export interface CaseContext {
  contract: Contract;
  client: TargetClient;
  target: Target;
  failLevel: FailLevel;
  scrub: Scrub;
  /** The case's own requirement ids, first the one its expectations answer to. */
  requirements: string[];
  /** False when the case-verdict reporter fails cases in the runner (see reports/case-verdict.ts). */
  verdictInWorker: boolean;
}

export function credentialHeaders(target: Target): CredentialHeaders {
  const { sessionToken, pat, forbiddenToken } = target.credentials;
  return {
    session: { authorization: `Bearer r:${sessionToken}` },
    pat: { authorization: `Bearer p:${pat}` },
    legacy: { [target.legacyHeader]: sessionToken },
    ...(forbiddenToken ? { forbidden: { authorization: `Bearer r:${forbiddenToken}` } } : {}),
    none: {},
  };
}

export function blockingLevels(failLevel: FailLevel): Level[] {
  return failLevel === 'should' ? ['MUST', 'SHOULD'] : ['MUST'];
}

/** The error a failed case shows: one line per blocking finding. */
export function verdictMessage(blocking: Evidence[]): string {
  return blocking.map((f) => `${f.requirement} (${f.level}): ${f.message}${f.exchange ? ` [${f.exchange.method} ${f.exchange.path}]` : ''}`).join('\n');
}

export class ConformanceCase {
  readonly credentials: CredentialHeaders;
  private readonly findings: Evidence[] = [];

  constructor(private readonly context: CaseContext) {
    if (context.requirements.length === 0) throw new Error('a conformance case needs at least one requirement annotation');
    this.credentials = credentialHeaders(context.target);
  }

  get target(): Target {
    return this.context.target;
  }

  /** The requirement the case's own expectations answer to. */
  get primary(): string {
    return this.context.requirements[0];
  }

  /** Sends a request and checks the exchange. When no answer comes, the finding is recorded and the answer has status 0. */
  async send(request: CaseRequest): Promise<Answer> {
    const { contract, client, scrub } = this.context;
    const operation = request.operation;
    const path = operation.pathTemplate + (request.query === undefined ? '' : `?${request.query}`);
    const bodyText = request.bodyText ?? (request.document === undefined ? undefined : JSON.stringify(request.document));
    const headers = { ...request.credentials, ...(bodyText === undefined ? {} : { 'content-type': request.contentType ?? MEDIA_TYPE }) };
    const outgoing: OutgoingRequest = { method: operation.method, path, headers, bodyText };
    const summary: ExchangeSummary = { method: operation.method, path, curl: curlLine(outgoing, scrub) };

    const sent = await client.transmit(outgoing);
    if (!sent.ok) {
      this.record(contract.finding(this.primary, 'exchange', { message: `no answer: ${sent.failure}` }), summary);
      return { status: NO_ANSWER, headers: {}, bodyText: '', json: undefined, summary };
    }
    const response = sent.response;
    summary.status = response.status;
    const httpRequest = { method: operation.method, path: `${contract.basePath}${path}`, headers: this.asContractNamesIt(headers), bodyText };
    const requestFindings = validateRequest(contract, operation, httpRequest);
    const findings = [...validateResponse(contract, operation, response), ...checkExchange(contract, { operation, request: httpRequest, response, requestFindings })];
    if (response.status >= 500 && !findings.some((f) => f.requirement === 'ERR-NO-5XX')) {
      findings.push(contract.finding('ERR-NO-5XX', 'response', { message: `answered ${response.status}; no request may be answered with a 5xx status`, expected: 'a status below 500', actual: String(response.status) }));
    }
    // Request findings describe what the case sent on purpose; only the target's side is judged.
    for (const finding of findings) if (finding.location !== 'request' && this.judgedBySuite(finding.requirement)) this.record(finding, summary);
    const parsed = parseJson(response.bodyText);
    return { status: response.status, headers: response.headers, bodyText: response.bodyText, json: parsed.ok ? parsed.value : undefined, summary };
  }

  /** The case's own status expectation; a requirement the exchange already failed is not reported twice. */
  expectStatus(answer: Answer, allowed: number[], requirement = this.primary, what = 'the request'): boolean {
    if (allowed.includes(answer.status)) return true;
    if (answer.status === NO_ANSWER) return false;
    if (!this.findings.some((f) => f.requirement === requirement && f.exchange === answer.summary)) {
      const expected = allowed.join(' or ');
      this.fail(requirement, answer, { message: `${what} was answered ${answer.status}; expected ${expected}`, expected, actual: String(answer.status) });
    }
    return false;
  }

  fail(requirement: string, answer: Answer | undefined, fields: { pointer?: string; message: string; expected?: string; actual?: string }): void {
    this.record(this.context.contract.finding(requirement, answer ? 'response' : 'exchange', fields), answer?.summary);
  }

  /** An observation under an INFO requirement. */
  observe(requirement: string, answer: Answer, message: string): void {
    this.fail(requirement, answer, { message, actual: String(answer.status) });
  }

  report(): CaseReport {
    return { target: this.context.target.baseUrl, findings: this.findings };
  }

  blocking(): Evidence[] {
    const levels = blockingLevels(this.context.failLevel);
    return this.findings.filter((f) => levels.includes(f.level));
  }

  /** Leaves the findings on the test (attachment, annotations) and, deciding in the worker, fails it when one blocks. */
  finish(testInfo: TestInfo): void {
    // Pushed rather than attach()ed: no step and no file per case, the body travels to the reporters as is.
    testInfo.attachments.push({ name: CASE_REPORT_ATTACHMENT, body: Buffer.from(JSON.stringify(this.report())), contentType: 'application/json' });
    const blocking = this.blocking();
    const notes = new Set(this.findings.filter((f) => !blocking.includes(f)).map((f) => `${f.level === 'INFO' ? 'observation' : 'warning'}\u0000${f.requirement}: ${f.message}`));
    for (const note of notes) {
      const [type, description] = note.split('\u0000');
      testInfo.annotations.push({ type, description });
    }
    // A case that already failed (an error in its own code, a timeout) keeps that one error.
    if (!this.context.verdictInWorker || blocking.length === 0 || testInfo.status !== testInfo.expectedStatus) return;
    throw new Error(verdictMessage(blocking));
  }

  private record(finding: Finding, exchange: ExchangeSummary | undefined): void {
    const scrubbed = scrubDeep(finding, this.context.scrub);
    const duplicate = this.findings.some((f) => f.exchange === exchange && f.requirement === scrubbed.requirement && f.pointer === scrubbed.pointer && f.message === scrubbed.message);
    if (!duplicate) this.findings.push(exchange ? { ...scrubbed, exchange } : scrubbed);
  }

  /**
   * The headers as the contract's checks read them: the target may name the legacy session header
   * differently (the specification's "Svc" stands for the service's name, section 5).
   */
  private asContractNamesIt(headers: Record<string, string>): Record<string, string> {
    const { contract, target } = this.context;
    const renamed: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) renamed[name.toLowerCase() === target.legacyHeader.toLowerCase() ? contract.legacyHeader : name] = value;
    return renamed;
  }

  private judgedBySuite(requirementId: string): boolean {
    const checkedBy = this.context.contract.requirement(requirementId).checkedBy;
    return checkedBy === undefined || checkedBy.includes('suite');
  }
}

