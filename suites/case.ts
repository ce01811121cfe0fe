// One conformance case at run time: it sends requests, has the contract judge every exchange
// (assessExchange: judgeExchange's findings, the same path the proxy takes, and what was judged),
// adds the case's own expectations, and turns the findings into the case's outcome. A finding is
// recorded under its own requirement id whatever the case is about: the certification record is
// kept per requirement. So is what was judged: a requirement is passed only when a judge that can
// break it judged one of the run's exchanges and it held.
import type { TestInfo } from '@playwright/test';
import {
  assessExchange,
  CASE_JUDGE,
  MEDIA_TYPE,
  parseJson,
  type Assessment,
  type Contract,
  type Finding,
  type Judged,
  type Operation,
} from '../contract/index.ts';
import {
  blockingLevels,
  CASE_FINDINGS_ATTACHMENT,
  CASE_OUTCOME_ATTACHMENT,
  OBSERVATION_ANNOTATION,
  caseFailureMessage,
  judgeCase,
  judgementNotes,
  WARNING_ANNOTATION,
  type CaseFindings,
  type CaseOutcomeData,
  type CaseFinding,
  type ExchangeEvidence,
  type ExercisedRequirement,
  type FailLevel,
  type NotRunDeclaration,
} from '../run-protocol/index.ts';
import type { Target } from '../targets/target.ts';
import type { OutgoingRequest, TargetClient } from './client.ts';
import { curlLine } from './curl.ts';
import { scrubValues, type Scrub } from '../run-protocol/secrets.ts';

export interface CaseRequest {
  operation: Operation;
  /**
   * Query string without `?`, in the kit's encoding (JSON:API's, as the specification shows none), e.g.
   * `filter[type]=portal`.
   */
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
  captured: ExchangeEvidence;
  /** No answer, and none sought: the operation went silent three times in a row (client.ts SILENCE_LIMIT). */
  silenced?: true;
}

/** The credential headers of a target, by scheme (section 5). */
export interface CredentialHeaders {
  session: Record<string, string>;
  pat: Record<string, string>;
  legacy: Record<string, string>;
  /**
   * The forbidden session token in each scheme that carries a session token (section 5): `Bearer r:`, then the legacy
   * header.
   */
  forbidden?: Record<string, string>;
  forbiddenLegacy?: Record<string, string>;
  none: Record<string, string>;
}

const NONE_ACCEPTED: ReadonlyMap<string, string> = new Map();

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
  /**
   * The requirements whose failures the gate accepts (an active waiver, a --baseline failure), each with why; absent:
   * none.
   */
  accepted?: ReadonlyMap<string, string>;
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
    ...(forbiddenToken
      ? {
          forbidden: { authorization: `Bearer r:${forbiddenToken}` },
          forbiddenLegacy: { [target.legacyHeader]: forbiddenToken },
        }
      : {}),
    none: {},
  };
}

/** One exchange sent and judged, nothing of it recorded yet. */
interface JudgedOutgoing extends Assessment {
  answer: Answer;
}

/** What a judgement over the case as a whole (not one exchange) is counted under. */
const WHOLE_CASE: ExchangeEvidence = { method: '', path: '', curl: '' };

export class ConformanceCase {
  readonly credentials: CredentialHeaders;
  private readonly findings: CaseFinding[] = [];
  private readonly notRunDeclarations: NotRunDeclaration[] = [];
  /** Per requirement, the exchanges a judge judged it on (WHOLE_CASE for the case's own judgement over several). */
  private readonly judgedOn = new Map<string, Set<ExchangeEvidence>>();
  /** Per requirement, the first reason a judge gave for not judging it (the case's own first, if it gave one). */
  private readonly unjudged = new Map<string, string>();
  private readonly ownReasons = new Set<string>();

  constructor(private readonly context: CaseContext) {
    if (context.requirements.length === 0)
      throw new Error('a conformance case needs at least one requirement annotation');
    this.credentials = credentialHeaders(context.target);
  }

  get target(): Target {
    return this.context.target;
  }

  get contract(): Contract {
    return this.context.contract;
  }

  get failLevel(): FailLevel {
    return this.context.failLevel;
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

  /**
   * Sends a request and checks the exchange. When no answer comes, the finding is recorded and the answer has status 0.
   */
  async send(request: CaseRequest): Promise<Answer> {
    const exchanged = await this.judgeOutgoing(outgoingOf(request));
    this.record(this.reported(exchanged), exchanged.answer);
    this.recordJudgements(exchanged);
    return exchanged.answer;
  }

  /**
   * Sends a request and judges the exchange, recording nothing: the findings send() would record
   * (when no answer came, one saying why, under the case's own requirement), and the requirements
   * the exchange's judges judged, as send() counts them.
   */
  async exchange(request: CaseRequest): Promise<{ answer: Answer; findings: Finding[]; judged: string[] }> {
    const exchanged = await this.judgeOutgoing(outgoingOf(request));
    return {
      answer: exchanged.answer,
      findings: this.reported(exchanged),
      judged: [...new Set(suiteJudged(this.context.contract, exchanged.judged).map((j) => j.requirement))],
    };
  }

  /** Counts `requirements` as judged on an exchange exchange() sent: its caller decided they held there. */
  countJudged(requirements: Iterable<string>, answer: Answer): void {
    if (answer.status === NO_ANSWER) return;
    for (const requirement of requirements) this.judged(requirement, answer.captured);
  }

  /**
   * Sends a request given as data (a regression case's: any method and path under the base URL)
   * and checks the exchange as `send` does; also hands back every finding of the exchange, those
   * the suite does not report under their own ids included.
   */
  async sendOutgoing(outgoing: OutgoingRequest): Promise<{ answer: Answer; findings: Finding[] }> {
    const exchanged = await this.judgeOutgoing(outgoing);
    this.record(this.reported(exchanged), exchanged.answer);
    this.recordJudgements(exchanged);
    return { answer: exchanged.answer, findings: exchanged.answer.status === NO_ANSWER ? [] : exchanged.findings };
  }

  /** Records findings seen on one exchange (see exchange()). */
  record(findings: Finding[], answer: Answer): void {
    for (const finding of findings) this.addFinding(finding, answer.captured);
  }

  /** The findings of an exchange the suite reports: the one saying no answer came, or suiteFindings. */
  private reported({ answer, findings }: JudgedOutgoing): Finding[] {
    return answer.status === NO_ANSWER ? findings : suiteFindings(this.context.contract, findings);
  }

  /**
   * Counts what the exchange's judges judged, and what they could not judge and why, as the suite counts them
   * (suiteJudged).
   */
  private recordJudgements({ answer, judged, unjudged }: JudgedOutgoing): void {
    const { contract } = this.context;
    for (const { requirement } of suiteJudged(contract, judged)) this.judged(requirement, answer.captured);
    for (const { requirement, reason } of suiteJudged(contract, unjudged))
      if (!this.unjudged.has(requirement)) this.unjudged.set(requirement, reason);
  }

  /**
   * Sends and judges one request, recording nothing: every finding of the exchange and what was
   * judged, or the one finding saying no answer came. That finding is under the case's own
   * requirement, whatever judges it: no answer leaves nothing to judge, and it breaks the case.
   */
  private async judgeOutgoing(outgoing: OutgoingRequest): Promise<JudgedOutgoing> {
    const { contract, client, scrub } = this.context;
    const { method, path, headers, bodyText } = outgoing;
    if (this.context.readOnly && method !== 'GET' && method !== 'HEAD') this.skip(READ_ONLY_REASON);
    const captured: ExchangeEvidence = { method, path, curl: curlLine(outgoing, scrub) };

    const sent = await client.transmit(outgoing);
    if (!sent.ok) {
      const answer = {
        status: NO_ANSWER,
        headers: {},
        bodyText: '',
        json: undefined,
        captured,
        ...(sent.silenced ? { silenced: true as const } : {}),
      };
      return {
        answer,
        findings: [contract.finding(this.primary, 'exchange', { message: `no answer: ${sent.failure}` })],
        judged: [],
        unjudged: [],
      };
    }
    const response = sent.response;
    captured.status = response.status;
    const httpRequest = {
      method,
      path: `${contract.basePath}${path}`,
      headers: this.asContractNamesIt(headers),
      bodyText,
    };
    const { findings, judged, unjudged } = assessExchange(contract, httpRequest, response);
    const parsed = parseJson(response.bodyText);
    return {
      answer: {
        status: response.status,
        headers: response.headers,
        bodyText: response.bodyText,
        json: parsed.ok ? parsed.value : undefined,
        captured,
      },
      findings,
      judged,
      unjudged,
    };
  }

  /**
   * The case's own status expectation; a requirement the exchange already failed is not reported
   * twice. A generic status the case did not expect (a condition the specification leaves open,
   * such as a rate limit) judges nothing: the requirement is left unjudged, with why.
   */
  expectStatus(answer: Answer, allowed: number[], requirement = this.primary, what = 'the request'): boolean {
    if (answer.status === NO_ANSWER) return false;
    if (!allowed.includes(answer.status) && this.context.contract.genericStatuses.has(answer.status)) {
      this.cannotJudge(requirement, genericStatusReason(what, answer.status, allowed));
      return false;
    }
    this.judged(this.ownJudgement(requirement), answer.captured);
    if (allowed.includes(answer.status)) return true;
    if (!this.findings.some((f) => f.requirement === requirement && f.exchange === answer.captured)) {
      const expected = allowed.join(' or ');
      this.fail(requirement, answer, {
        message: `${what} was answered ${answer.status}; expected ${expected}`,
        expected,
        actual: String(answer.status),
      });
    }
    return false;
  }

  /** Whether a finding under `requirement` is recorded for this answer's exchange. */
  recorded(requirement: string, answer: Answer): boolean {
    return this.findings.some((f) => f.requirement === requirement && f.exchange === answer.captured);
  }

  fail(
    requirement: string,
    answer: Answer | undefined,
    fields: { pointer?: string; message: string; expected?: string; actual?: string },
  ): void {
    this.addFinding(
      this.context.contract.finding(this.ownJudgement(requirement), answer ? 'response' : 'exchange', fields),
      answer?.captured,
    );
  }

  /** The case's own judgement of `requirement` held: on `answer`, or over the case as a whole (a page walk). */
  held(requirement: string, answer?: Answer): void {
    if (answer?.status === NO_ANSWER) return;
    this.judged(this.ownJudgement(requirement), answer?.captured ?? WHOLE_CASE);
  }

  /** An observation under an INFO requirement. */
  observe(requirement: string, answer: Answer, message: string): void {
    this.fail(requirement, answer, { message, actual: String(answer.status) });
  }

  /**
   * The case met `requirement` but a value it cannot reason about kept it from judging it; reported
   * when nothing else judged it. The case's first reason stands over a check's: it knows what it sent.
   */
  cannotJudge(requirement: string, reason: string): void {
    const id = this.ownJudgement(requirement);
    if (this.ownReasons.has(id)) return;
    this.ownReasons.add(id);
    this.unjudged.set(id, reason);
  }

  /** Requirements this case ran without being able to check (reported not run, unless another case checks them). */
  notRun(requirements: string[], reason: string): void {
    for (const id of requirements) this.context.contract.requirement(id);
    this.notRunDeclarations.push({ requirements, reason });
  }

  /**
   * Requirements the target's own legal answer left nothing to check in (reported not run; they do not make the run
   * incomplete).
   */
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
    const unexercised = [...this.unjudged]
      .filter(([requirement]) => !this.judgedOn.has(requirement))
      .map(([requirement, reason]) => ({ requirement, reason }));
    return {
      findings: this.findings.map(({ requirement, level, location }) => ({ requirement, level, location })),
      notRun: this.notRunDeclarations,
      exercised: this.exercised(),
      unexercised,
    };
  }

  /** Per requirement judged in this case: on how many exchanges, and on how many it broke. */
  exercised(): ExercisedRequirement[] {
    return [...this.judgedOn].map(([requirement, exchanges]) => {
      const broken = new Set(
        this.findings.filter((f) => f.requirement === requirement).map((f) => f.exchange ?? WHOLE_CASE),
      );
      return { requirement, judged: exchanges.size, broken: broken.size };
    });
  }

  /** Findings at a blocking level, its own and side findings alike (only its own fail the case). */
  blocking(): CaseFinding[] {
    const levels = blockingLevels(this.context.failLevel);
    return this.findings.filter((f) => levels.includes(f.level));
  }

  /**
   * Leaves the findings on the test (attachment, annotations) and, deciding in the worker, fails it when one blocks.
   */
  finish(testInfo: TestInfo): void {
    // Pushed rather than attach()ed: no step and no file per case, the body travels to the reporters as is.
    testInfo.attachments.push({
      name: CASE_FINDINGS_ATTACHMENT,
      body: Buffer.from(JSON.stringify(this.findingsForPeople())),
      contentType: 'application/json',
    });
    testInfo.attachments.push({
      name: CASE_OUTCOME_ATTACHMENT,
      body: Buffer.from(JSON.stringify(this.outcomeData())),
      contentType: 'application/json',
    });
    const blocking = this.blocking();
    const annotate = (type: string, findings: CaseFinding[]) => {
      for (const description of new Set(findings.map((f) => `${f.requirement}: ${this.context.scrub(f.message)}`)))
        testInfo.annotations.push({ type, description });
    };
    const notBlocking = this.findings.filter((f) => !blocking.includes(f));
    annotate(
      OBSERVATION_ANNOTATION,
      notBlocking.filter((f) => f.level === 'INFO'),
    );
    annotate(
      WARNING_ANNOTATION,
      notBlocking.filter((f) => f.level !== 'INFO'),
    );
    // Deciding in the runner, the case-outcome reporter notes side findings and fails the case.
    if (!this.context.outcomeInWorker) return;
    // The same rule as the reporter's (judgeCase), waivers and baseline included.
    const judged = judgeCase(
      this.findings,
      this.context.requirements,
      blockingLevels(this.context.failLevel),
      this.context.accepted ?? NONE_ACCEPTED,
    );
    for (const note of judgementNotes(judged))
      testInfo.annotations.push({ type: note.type, description: this.context.scrub(note.description) });
    // A case that already failed (an error in its own code, a timeout) keeps that one error.
    if (judged.failing.length === 0 || testInfo.status !== testInfo.expectedStatus) return;
    throw new Error(caseFailureMessage(judged.failing.map((f) => this.forPeople(f))));
  }

  /**
   * Kept as found: the outcome is decided from these; findingsForPeople() scrubs them. A finding is a judgement that
   * broke.
   */
  private addFinding(finding: Finding, exchange: ExchangeEvidence | undefined): void {
    this.judged(finding.requirement, exchange ?? WHOLE_CASE);
    const duplicate = this.findings.some(
      (f) =>
        f.exchange === exchange &&
        f.requirement === finding.requirement &&
        f.pointer === finding.pointer &&
        f.message === finding.message,
    );
    if (!duplicate) this.findings.push(exchange ? { ...finding, exchange } : finding);
  }

  private judged(requirement: string, exchange: ExchangeEvidence): void {
    const exchanges = this.judgedOn.get(requirement) ?? new Set<ExchangeEvidence>();
    this.judgedOn.set(requirement, exchanges.add(exchange));
  }

  /** A requirement the case judges itself must be bound to the case's judge in the catalogue (judgedBy: suiteCase). */
  private ownJudgement(requirement: string): string {
    if (!this.context.contract.requirementsJudgedBy(CASE_JUDGE).has(requirement))
      throw new Error(
        `a suite case judged ${requirement}, which the catalogue does not bind to ${CASE_JUDGE} (judgedBy)`,
      );
    return requirement;
  }

  /**
   * The headers as the contract's checks read them: the target may name the legacy session header
   * differently (the specification's "Svc" stands for the service's name, section 5).
   */
  private asContractNamesIt(headers: Record<string, string>): Record<string, string> {
    const { contract, target } = this.context;
    const renamed: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers))
      renamed[name.toLowerCase() === target.legacyHeader.toLowerCase() ? contract.legacyHeader : name] = value;
    return renamed;
  }
}

/**
 * A case's request as the client sends it: the operation's path and query, its credentials, its body and that body's
 * type.
 */
function outgoingOf(request: CaseRequest): OutgoingRequest {
  const path = request.operation.pathTemplate + (request.query === undefined ? '' : `?${request.query}`);
  const bodyText = request.bodyText ?? (request.document === undefined ? undefined : JSON.stringify(request.document));
  const headers = {
    ...request.credentials,
    ...(bodyText === undefined ? {} : { 'content-type': request.contentType ?? MEDIA_TYPE }),
  };
  return { method: request.operation.method, path, headers, bodyText };
}

/**
 * The findings of a judged exchange the suite reports: the target's side only (request findings
 * describe what a case sent on purpose), and only requirements the suite judges.
 */
export function suiteFindings(contract: Contract, findings: Finding[]): Finding[] {
  return findings.filter((f) => f.location !== 'request' && judgedBySuite(contract, f.requirement));
}

/** What the suite counts as judged of an exchange, by the same measure as suiteFindings. */
function suiteJudged<T extends Judged>(contract: Contract, judged: T[]): T[] {
  return judged.filter((j) => j.location !== 'request' && judgedBySuite(contract, j.requirement));
}

function judgedBySuite(contract: Contract, requirementId: string): boolean {
  const checkedBy = contract.requirement(requirementId).checkedBy;
  return checkedBy === undefined || checkedBy.includes('suite');
}

/** Why a case answered with a generic status it did not expect judged nothing. */
function genericStatusReason(what: string, status: number, allowed: number[]): string {
  return `${what} was answered ${status} where ${allowed.join(' or ')} was expected: a status any operation may answer for a condition the specification leaves open, which says nothing either way (a target that limits how fast or how large requests may be answers so: rerun with fewer --workers, or raise its limit)`;
}
