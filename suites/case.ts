// One conformance case at run time: it sends requests, has the contract judge every exchange
// (judgeExchange, the same path the proxy takes), adds the case's own expectations, and turns the
// findings into the case's outcome. A finding is recorded under its own requirement id whatever
// the case is about: the certification record is kept per requirement.
import type { TestInfo } from '@playwright/test';
import { judgeExchange, MEDIA_TYPE, parseJson, type Contract, type Finding, type Operation } from '../contract/index.ts';
import { blockingLevels, CASE_FINDINGS_ATTACHMENT, CASE_OUTCOME_ATTACHMENT, OBSERVATION_ANNOTATION, failureMessage, ownFindings, SIDE_FINDING_ANNOTATION, WARNING_ANNOTATION, type CaseFindings, type CaseOutcomeData, type CaseFinding, type CapturedExchange, type FailLevel, type NotRunDeclaration } from '../run-protocol/index.ts';
import type { Target } from '../targets/target.ts';
import type { OutgoingRequest, TargetClient } from './client.ts';
import { curlLine } from './curl.ts';
import { scrubValues, type Scrub } from '../run-protocol/secrets.ts';

export interface CaseRequest {
  operation: Operation;
  /** Query string without `?`, in the kit's encoding (JSON:API's, as the specification shows none), e.g. `filter[type]=portal`. */
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
  /** What was seen of the exchange, as people read it. */
  captured: CapturedExchange;
  /** No answer, and none sought: the operation went silent three times in a row (client.ts SILENCE_LIMIT). */
  silenced?: true;
}

/** The credential headers of a target, by scheme (section 5). */
export interface CredentialHeaders {
  session: Record<string, string>;
  pat: Record<string, string>;
  legacy: Record<string, string>;
  /** The forbidden session token in each scheme that carries a session token (section 5): `Bearer r:`, then the legacy header. */
  forbidden?: Record<string, string>;
  forbiddenLegacy?: Record<string, string>;
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
  /** False when the case-outcome reporter fails cases in the runner (see reports/case-outcome.ts). */
  outcomeInWorker: boolean;
  /** --read-only: requests that could create records are not sent; the case is skipped with READ_ONLY_REASON. */
  readOnly?: boolean;
  /** Ends the case as not run, with the reason (no forbidden credential configured, say). */
  skip: (reason: string) => never;
}

export const READ_ONLY_REASON = '--read-only: requests that could create records on the target were not sent';

export function credentialHeaders(target: Target): CredentialHeaders {
  const { sessionToken, pat, forbiddenToken } = target.credentials;
  return {
    session: { authorization: `Bearer r:${sessionToken}` },
    pat: { authorization: `Bearer p:${pat}` },
    legacy: { [target.legacyHeader]: sessionToken },
    ...(forbiddenToken ? { forbidden: { authorization: `Bearer r:${forbiddenToken}` }, forbiddenLegacy: { [target.legacyHeader]: forbiddenToken } } : {}),
    none: {},
  };
}

export class ConformanceCase {
  readonly credentials: CredentialHeaders;
  private readonly findings: CaseFinding[] = [];
  private readonly notRunDeclarations: NotRunDeclaration[] = [];

  constructor(private readonly context: CaseContext) {
    if (context.requirements.length === 0) throw new Error('a conformance case needs at least one requirement annotation');
    this.credentials = credentialHeaders(context.target);
  }

  get target(): Target {
    return this.context.target;
  }

  get contract(): Contract {
    return this.context.contract;
  }

  /** The case's requirements, its own first. */
  get requirements(): string[] {
    return this.context.requirements;
  }

  /** Ends the case here, reported as not run with `reason`. */
  skip(reason: string): never {
    return this.context.skip(reason);
  }

  /** The requirement the case's own expectations answer to. */
  get primary(): string {
    return this.context.requirements[0];
  }

  /** Sends a request and checks the exchange. When no answer comes, the finding is recorded and the answer has status 0. */
  async send(request: CaseRequest): Promise<Answer> {
    const { answer, findings } = await this.exchange(request);
    this.record(findings, answer);
    return answer;
  }

  /**
   * Sends a request and judges the exchange, recording nothing: the findings send() would record
   * (when no answer came, one saying why, under the case's own requirement).
   */
  async exchange(request: CaseRequest): Promise<{ answer: Answer; findings: Finding[] }> {
    const { answer, findings } = await this.exchangeOutgoing(outgoingOf(request));
    return { answer, findings: answer.status === NO_ANSWER ? findings : suiteFindings(this.context.contract, findings) };
  }

  /**
   * Sends a request given as data (a regression case's: any method and path under the base URL)
   * and checks the exchange as `send` does; also hands back every finding of the exchange, those
   * the suite does not report under their own ids included.
   */
  async sendOutgoing(outgoing: OutgoingRequest): Promise<{ answer: Answer; findings: Finding[] }> {
    const { answer, findings } = await this.exchangeOutgoing(outgoing);
    if (answer.status === NO_ANSWER) {
      this.record(findings, answer);
      return { answer, findings: [] };
    }
    this.record(suiteFindings(this.context.contract, findings), answer);
    return { answer, findings };
  }

  /** Records findings seen on one exchange (see exchange()). */
  record(findings: Finding[], answer: Answer): void {
    for (const finding of findings) this.addFinding(finding, answer.captured);
  }

  /** Sends and judges one request, recording nothing: every finding of the exchange, or the one saying no answer came. */
  private async exchangeOutgoing(outgoing: OutgoingRequest): Promise<{ answer: Answer; findings: Finding[] }> {
    const { contract, client, scrub } = this.context;
    const { method, path, headers, bodyText } = outgoing;
    if (this.context.readOnly && method !== 'GET' && method !== 'HEAD') this.skip(READ_ONLY_REASON);
    const captured: CapturedExchange = { method, path, curl: curlLine(outgoing, scrub) };

    const sent = await client.transmit(outgoing);
    if (!sent.ok) {
      const answer = { status: NO_ANSWER, headers: {}, bodyText: '', json: undefined, captured, ...(sent.silenced ? { silenced: true as const } : {}) };
      return { answer, findings: [contract.finding(this.primary, 'exchange', { message: `no answer: ${sent.failure}` })] };
    }
    const response = sent.response;
    captured.status = response.status;
    const httpRequest = { method, path: `${contract.basePath}${path}`, headers: this.asContractNamesIt(headers), bodyText };
    const findings = judgeExchange(contract, httpRequest, response);
    const parsed = parseJson(response.bodyText);
    return { answer: { status: response.status, headers: response.headers, bodyText: response.bodyText, json: parsed.ok ? parsed.value : undefined, captured }, findings };
  }

  /** The case's own status expectation; a requirement the exchange already failed is not reported twice. */
  expectStatus(answer: Answer, allowed: number[], requirement = this.primary, what = 'the request'): boolean {
    if (allowed.includes(answer.status)) return true;
    if (answer.status === NO_ANSWER) return false;
    if (!this.findings.some((f) => f.requirement === requirement && f.exchange === answer.captured)) {
      const expected = allowed.join(' or ');
      this.fail(requirement, answer, { message: `${what} was answered ${answer.status}; expected ${expected}`, expected, actual: String(answer.status) });
    }
    return false;
  }

  /** Whether a finding under `requirement` is recorded for this answer's exchange. */
  recorded(requirement: string, answer: Answer): boolean {
    return this.findings.some((f) => f.requirement === requirement && f.exchange === answer.captured);
  }

  fail(requirement: string, answer: Answer | undefined, fields: { pointer?: string; message: string; expected?: string; actual?: string }): void {
    this.addFinding(this.context.contract.finding(requirement, answer ? 'response' : 'exchange', fields), answer?.captured);
  }

  /** An observation under an INFO requirement. */
  observe(requirement: string, answer: Answer, message: string): void {
    this.fail(requirement, answer, { message, actual: String(answer.status) });
  }

  /** Requirements this case ran without being able to check (reported not run, unless another case checks them). */
  notRun(requirements: string[], reason: string): void {
    for (const id of requirements) this.context.contract.requirement(id);
    this.notRunDeclarations.push({ requirements, reason });
  }

  /** Requirements the target's own legal answer left nothing to check in (reported not run; they do not make the run incomplete). */
  notShown(requirements: string[], reason: string): void {
    for (const id of requirements) this.context.contract.requirement(id);
    this.notRunDeclarations.push({ requirements, reason, byTargetChoice: true });
  }

  /** The findings for people: every string value scrubbed (the curl line was built scrubbed). */
  findingsForPeople(): CaseFindings {
    return { target: this.context.target.baseUrl, findings: this.findings.map((f) => this.forPeople(f)) };
  }

  private forPeople({ exchange, ...finding }: CaseFinding): CaseFinding {
    const scrubbed = scrubValues(finding, this.context.scrub);
    return exchange ? { ...scrubbed, exchange } : scrubbed;
  }

  /** The findings the case's outcome is decided from, as found: never scrubbed. */
  outcomeData(): CaseOutcomeData {
    return { findings: this.findings.map(({ requirement, level, location }) => ({ requirement, level, location })), notRun: this.notRunDeclarations };
  }

  /** Findings at a blocking level, its own and side findings alike (only its own fail the case). */
  blocking(): CaseFinding[] {
    const levels = blockingLevels(this.context.failLevel);
    return this.findings.filter((f) => levels.includes(f.level));
  }

  /** Leaves the findings on the test (attachment, annotations) and, deciding in the worker, fails it when one blocks. */
  finish(testInfo: TestInfo): void {
    // Pushed rather than attach()ed: no step and no file per case, the body travels to the reporters as is.
    testInfo.attachments.push({ name: CASE_FINDINGS_ATTACHMENT, body: Buffer.from(JSON.stringify(this.findingsForPeople())), contentType: 'application/json' });
    testInfo.attachments.push({ name: CASE_OUTCOME_ATTACHMENT, body: Buffer.from(JSON.stringify(this.outcomeData())), contentType: 'application/json' });
    const blocking = this.blocking();
    const annotate = (type: string, findings: CaseFinding[]) => {
      for (const description of new Set(findings.map((f) => `${f.requirement}: ${this.context.scrub(f.message)}`))) testInfo.annotations.push({ type, description });
    };
    const notBlocking = this.findings.filter((f) => !blocking.includes(f));
    annotate(OBSERVATION_ANNOTATION, notBlocking.filter((f) => f.level === 'INFO'));
    annotate(WARNING_ANNOTATION, notBlocking.filter((f) => f.level !== 'INFO'));
    // Deciding in the runner, the case-outcome reporter notes side findings and fails the case.
    if (!this.context.outcomeInWorker) return;
    const own = ownFindings(blocking, this.context.requirements);
    annotate(SIDE_FINDING_ANNOTATION, blocking.filter((f) => !own.includes(f)));
    // A case that already failed (an error in its own code, a timeout) keeps that one error.
    if (own.length === 0 || testInfo.status !== testInfo.expectedStatus) return;
    throw new Error(failureMessage(own.map((f) => this.forPeople(f))));
  }

  /** Kept as found: the outcome is decided from these; findingsForPeople() scrubs them. */
  private addFinding(finding: Finding, exchange: CapturedExchange | undefined): void {
    const duplicate = this.findings.some((f) => f.exchange === exchange && f.requirement === finding.requirement && f.pointer === finding.pointer && f.message === finding.message);
    if (!duplicate) this.findings.push(exchange ? { ...finding, exchange } : finding);
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
}

/** A case's request as the client sends it: the operation's path and query, its credentials, its body and that body's type. */
function outgoingOf(request: CaseRequest): OutgoingRequest {
  const path = request.operation.pathTemplate + (request.query === undefined ? '' : `?${request.query}`);
  const bodyText = request.bodyText ?? (request.document === undefined ? undefined : JSON.stringify(request.document));
  const headers = { ...request.credentials, ...(bodyText === undefined ? {} : { 'content-type': request.contentType ?? MEDIA_TYPE }) };
  return { method: request.operation.method, path, headers, bodyText };
}

/**
 * The findings of a judged exchange the suite reports: the target's side only (request findings
 * describe what a case sent on purpose), and only requirements the suite judges.
 */
export function suiteFindings(contract: Contract, findings: Finding[]): Finding[] {
  return findings.filter((f) => f.location !== 'request' && judgedBySuite(contract, f.requirement));
}

function judgedBySuite(contract: Contract, requirementId: string): boolean {
  const checkedBy = contract.requirement(requirementId).checkedBy;
  return checkedBy === undefined || checkedBy.includes('suite');
}
