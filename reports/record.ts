// The certification record (conformance.json, schema: reports/conformance.schema.json). The record
// gathers what the cases found, per requirement of the catalogue; it judges nothing the cases did
// not. Its renderings read it from their own files and none is imported here.
import {
  LEVELS,
  recordKindLabel,
  recordKinds,
  type Contract,
  type Level,
  type Requirement,
} from '../contract/index.ts';
import {
  blockingLevels,
  failLevelName,
  regressionCaseName,
  waiverActive,
  type CaseFinding,
  type ExercisedRequirement,
  type FailLevel,
  type GeneratedOperation,
  type GenerationSettings,
  type NotRunDeclaration,
  type UnexercisedRequirement,
} from '../run-protocol/index.ts';
import type { InputsGiven } from '../run-protocol/run-inputs.ts';

export type RequirementVerdict = 'passed' | 'failed' | 'warning' | 'not-run';
/**
 * passed: every requirement the run had to check ran and none at failLevel failed; incomplete: none failed but some
 * were not run.
 */
export type RunVerdict = 'passed' | 'failed' | 'incomplete';
/**
 * What the run means to a gate (and the exit code): pass, fail, or incomplete (not run requirements, no
 * --allow-partial).
 */
export type GateResult = 'pass' | 'fail' | 'incomplete';
export type CaseStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not-started';

/** What the reporter knows of one case when the run ends. */
export interface CaseOutcome {
  title: string;
  /** Ids from the case's requirement annotations, its own first. */
  requirements: string[];
  status: CaseStatus;
  /** Why a case did not run (its skip annotation). */
  skipReason?: string;
  /** First line of the error of a case that failed with no blocking finding to explain it. */
  error?: string;
  findings: CaseFinding[];
  /** Requirements the case ran without being able to check them (a 202 body, say), with the reason. */
  notRun?: NotRunDeclaration[];
  /** How long it ran. */
  durationMs?: number;
  /** Per requirement a judge judged in the case: exchanges judged and broken. */
  exercised?: ExercisedRequirement[];
  /** Requirements a judge met in the case but could not judge, with why. */
  unexercised?: UnexercisedRequirement[];
}

export interface RecordedEvidence {
  case: string;
  message: string;
  pointer?: string;
  expected?: string;
  actual?: string;
  method?: string;
  path?: string;
  status?: number;
  curl?: string;
}

export interface RequirementRecord {
  id: string;
  level: Level;
  section: string;
  text: string;
  verdict: RequirementVerdict;
  reason?: string;
  /** Cases that ran and were meant to exercise this requirement. */
  cases: number;
  /** How long those cases took, added up. */
  durationMs?: number;
  /**
   * Exchanges a judge that can break it judged (a case's judgement over several exchanges, such as a page walk, counts
   * once).
   */
  judged: number;
  /** Of those, the ones that broke it. */
  broken: number;
  evidence: RecordedEvidence[];
  /** Evidence beyond the first MAX_EVIDENCE, counted only. */
  evidenceOmitted?: number;
  /** The waiver the target file holds for it, whether or not it was needed. */
  waiver?: RecordedWaiver;
  /**
   * Not run because the target's own legal answer showed nothing to check (a 202 body): it does not make the verdict
   * incomplete.
   */
  byTargetChoice?: true;
  /** The regression cases of the target file that ran under it, by name. */
  regressionCases?: string[];
  /** Cases ran, but no judge that can break it had an exchange to judge (the reason says why). */
  notExercised?: true;
}

/** A waiver from the target file: a known failure the gate accepts until a date. */
export interface Waiver {
  requirement: string;
  reason: string;
  /** The last day it holds, YYYY-MM-DD (UTC). */
  expires: string;
}

export interface RecordedWaiver {
  reason: string;
  expires: string;
  /** False from the day after `expires`. */
  active: boolean;
}

/** What the run was: who checked, with which contract, where, what was selected and given. */
export interface RunContext {
  kit: { name: string; version: string; commit?: string };
  /** SHA-256 of the contract files (openapi.yaml, requirements.yaml) the run judged by. */
  contractSha256: string;
  environment: { node: string; playwright: string; platform: string };
  target: { baseUrl: string; embedded: boolean; faults: string[]; choices: string[] };
  selection: Selection;
  inputs: InputsGiven;
}

export interface Selection {
  /** True when every case of the suite was selected: no grep, no shard, not read-only. */
  whole: boolean;
  grep?: string;
  /** --requirement: the cases that can judge these requirements were selected. */
  requirements?: string[];
  grepInvert?: string;
  shard?: { current: number; total: number };
  /** Other filters of the Playwright command line: test files, --project, --last-failed and the like. */
  filters?: string[];
  /** Requests that could create records were not sent. */
  readOnly: boolean;
}

/** The inputs of a format 3 record: each kind of record a boolean member of its own, beside the others. */
export type InputsGivenFormat3 = Omit<InputsGiven, 'records'> & Record<string, boolean | string[]>;

const NOT_A_RECORD_KIND = new Set(['forbiddenToken', 'legacyHeader', 'ca', 'headers', 'records']);

/** Each kind of record and whether the run was given one, from a record of either format. */
export function recordsGiven(inputs: InputsGiven | InputsGivenFormat3): Record<string, boolean> {
  if (typeof inputs.records === 'object' && inputs.records !== null) return inputs.records as Record<string, boolean>;
  return Object.fromEntries(
    Object.entries(inputs).filter(
      (entry): entry is [string, boolean] => !NOT_A_RECORD_KIND.has(entry[0]) && typeof entry[1] === 'boolean',
    ),
  );
}

/** The optional inputs other than record kinds, as a person calls them, in the order renderings list them. */
const FIXED_INPUT_NAMES: [keyof Pick<InputsGiven, 'forbiddenToken' | 'legacyHeader' | 'ca'>, string][] = [
  ['forbiddenToken', 'forbidden token'],
  ['legacyHeader', 'legacy header name'],
  ['ca', 'certificate authorities'],
];

/**
 * Each optional input of a record of either format, named, given or not: the forbidden token, each kind of record, the
 * legacy header name, certificate authorities.
 */
export function optionalInputs(inputs: InputsGiven | InputsGivenFormat3): { name: string; given: boolean }[] {
  const named = FIXED_INPUT_NAMES.map(([member, name]) => ({ name, given: inputs[member] === true }));
  const records = Object.entries(recordsGiven(inputs)).map(([kind, given]) => ({ name: recordKindLabel(kind), given }));
  return [named[0], ...records, ...named.slice(1)];
}

/**
 * One line of each kind of record and whether the run was given one: `collection item id given, owner user id not
 * given`.
 */
export function recordsGivenLine(inputs: InputsGiven | InputsGivenFormat3): string {
  const records = Object.entries(recordsGiven(inputs));
  return records.length === 0
    ? 'the contract names none'
    : records.map(([kind, given]) => `${recordKindLabel(kind)} ${given ? 'given' : 'not given'}`).join(', ');
}

/** How the gate reads the verdict: --allow-partial, waivers from the target file, --baseline. */
export interface GatePolicy {
  allowPartial: boolean;
  waivers: Waiver[];
  /** A previous record: only requirements failing now and not then fail the gate. */
  baseline?: { file: string; failing: string[] };
  /** YYYY-MM-DD (UTC): waivers expiring before it are expired. */
  today: string;
}

export interface GateRecord {
  result: GateResult;
  reason: string;
  allowPartial: boolean;
  /** Failing requirements an active waiver accepts. */
  waived: string[];
  /** Failing requirements whose waiver has expired: they fail the gate. */
  expiredWaivers: string[];
  /** Present with --baseline: failing requirements that failed in the baseline too, and those that did not. */
  baseline?: { file: string; knownFailures: string[]; newlyFailing: string[] };
}

type Tally = Record<RequirementVerdict, number>;

/**
 * What `run --generate` asked for and what it did for each operation; its failures are evidence of their requirements
 * too.
 */
export interface GeneratedRecord extends GenerationSettings {
  operations: GeneratedOperation[];
}

/** 4: the record kinds given are a map in `inputs.records` (3 had a member per kind); verify and diff read both. */
export const RECORD_FORMAT = 4;

export interface CertificationRecord {
  format: number;
  kit: { name: string; version: string; commit?: string };
  contract: { sha256: string };
  environment: RunContext['environment'];
  spec: { title: string; version: string };
  target: RunContext['target'];
  selection: Selection;
  inputs: InputsGiven;
  failLevel: 'MUST' | 'SHOULD';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  runStatus: 'passed' | 'failed' | 'timedout' | 'interrupted';
  verdict: RunVerdict;
  verdictReason: string;
  /** Requirements at failLevel or above that the suite can check and this run did not: why a verdict is incomplete. */
  notRun: string[];
  gate: GateRecord;
  cases: { total: number; passed: number; failed: number; notRun: number };
  tally: Record<Level, Tally>;
  requirements: RequirementRecord[];
  generated?: GeneratedRecord;
  /** Present when the run turned generation off (run --generate 0). */
  generationOff?: string;
}

export interface RecordInput {
  contract: Contract;
  kit: { name: string; version: string; commit?: string };
  target: string;
  /** What the run was; without it the record says only what the reporter saw. */
  context?: Partial<Omit<RunContext, 'kit'>>;
  gate?: GatePolicy;
  /** Applied to text the record takes from data no scrubber saw (not-run reasons the cases gave). */
  scrub?: (text: string) => string;
  failLevel: FailLevel;
  startedAt: Date;
  durationMs: number;
  runStatus: CertificationRecord['runStatus'];
  cases: CaseOutcome[];
  /** Present when the run generated inputs (run --generate). */
  generated?: GeneratedRecord;
  /** Present when the run turned generation off (run --generate 0): why no input was generated. */
  generationOff?: string;
}

export const MAX_EVIDENCE = 25;
export const PROXY_ONLY_REASON = 'checked by the proxy only';
export const UNCOVERED_REASON = 'no case of the suite covers it';
/** Why a requirement whose cases ran was not exercised, when neither a judge nor the catalogue says more. */
const UNEXERCISED_REASON = 'no check that can break it had an exchange of the run to judge';
const RAN: CaseStatus[] = ['passed', 'failed', 'timedOut', 'interrupted'];
/** How the evidence of a case that failed with no finding to explain it begins. */
export const CASE_FAILED_MESSAGE = 'the case failed: ';
/** The verdict reason of a run in which no case ran. */
export const NOTHING_RAN_REASON = 'no case ran, so nothing was certified';

const DEFAULT_CONTEXT: Omit<RunContext, 'kit' | 'target'> = {
  contractSha256: '',
  environment: { node: process.version, playwright: 'unknown', platform: process.platform },
  selection: { whole: true, readOnly: false },
  inputs: { forbiddenToken: false, records: {}, legacyHeader: false, ca: false, headers: [] },
};

/** Every kind of record the contract names, none given. */
function noRecordsGiven(contract: Contract): Record<string, boolean> {
  return Object.fromEntries(recordKinds(contract.operations).map((kind) => [kind, false]));
}

export function buildRecord(input: RecordInput): CertificationRecord {
  const scrub = input.scrub ?? ((text: string) => text);
  const waivers = new Map((input.gate?.waivers ?? []).map((w) => [w.requirement, w]));
  const today = input.gate?.today ?? input.startedAt.toISOString().slice(0, 10);
  const context = {
    ...DEFAULT_CONTEXT,
    inputs: { ...DEFAULT_CONTEXT.inputs, records: noRecordsGiven(input.contract) },
    ...input.context,
  };
  const requirements = input.contract.requirements.map((requirement) =>
    withWaiver(
      requirementRecord(requirement, input.cases, context.selection, scrub),
      waivers.get(requirement.id),
      today,
    ),
  );
  const failed = requirements.filter((r) => r.level === 'MUST' && r.verdict === 'failed').map((r) => r.id);
  const warned = requirements.filter((r) => r.level === 'SHOULD' && r.verdict === 'warning').map((r) => r.id);
  const blocking = blockingRequirementIds(failed, warned, input.failLevel);
  const notRun = unverified(requirements, input.failLevel);
  const complete = input.runStatus === 'passed' || input.runStatus === 'failed';
  const ranAny = input.cases.some((c) => RAN.includes(c.status));
  const verdict = runVerdict({ blocking, notRun, runStatus: input.runStatus, ranAny });
  return {
    format: RECORD_FORMAT,
    kit: input.kit,
    contract: { sha256: context.contractSha256 },
    environment: context.environment,
    spec: { title: contractTitle(input.contract), version: input.contract.version },
    target: { embedded: false, faults: [], choices: [], ...context.target, baseUrl: input.target },
    selection: context.selection,
    inputs: context.inputs,
    failLevel: failLevelName(input.failLevel),
    startedAt: input.startedAt.toISOString(),
    finishedAt: new Date(input.startedAt.getTime() + input.durationMs).toISOString(),
    durationMs: Math.round(input.durationMs),
    runStatus: input.runStatus,
    verdict,
    verdictReason: ranAny
      ? verdictReason({ blocking, failed, warned, notRun, complete, runStatus: input.runStatus })
      : NOTHING_RAN_REASON,
    notRun,
    gate: gateRecord(verdict, blocking, requirements, input.gate),
    cases: {
      total: input.cases.length,
      passed: input.cases.filter((c) => c.status === 'passed').length,
      failed: input.cases.filter((c) => RAN.includes(c.status) && c.status !== 'passed').length,
      notRun: input.cases.filter((c) => !RAN.includes(c.status)).length,
    },
    tally: tallyOf(requirements),
    requirements,
    ...(input.generated ? { generated: input.generated } : {}),
    ...(input.generationOff ? { generationOff: input.generationOff } : {}),
  };
}

/** The failed MUST and warned SHOULD requirements that fail the run at this fail level. */
export function blockingRequirementIds(failed: string[], warned: string[], failLevel: FailLevel): string[] {
  return blockingLevels(failLevel).includes('SHOULD') ? [...failed, ...warned] : failed;
}

/** Requirements the run had to check and did not; the proxy's own requirements are no suite's to check. */
export function unverified(requirements: RequirementRecord[], failLevel: FailLevel): string[] {
  return requirements
    .filter(
      (r) =>
        r.verdict === 'not-run' &&
        r.reason !== PROXY_ONLY_REASON &&
        !r.byTargetChoice &&
        blockingLevels(failLevel).includes(r.level),
    )
    .map((r) => r.id);
}

interface VerdictBasis {
  blocking: string[];
  notRun: string[];
  runStatus: CertificationRecord['runStatus'];
  ranAny: boolean;
}

/**
 * Failed when something failed (or the run ran out of time); incomplete when nothing did but something was not checked.
 */
export function runVerdict({ blocking, notRun, runStatus, ranAny }: VerdictBasis): RunVerdict {
  if (blocking.length > 0 || runStatus === 'timedout') return 'failed';
  if (!ranAny || notRun.length > 0 || runStatus === 'interrupted') return 'incomplete';
  return 'passed';
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export function verdictReason(basis: {
  blocking: string[];
  failed: string[];
  warned: string[];
  notRun: string[];
  complete: boolean;
  runStatus: string;
}): string {
  const { blocking, failed, warned, notRun, complete, runStatus } = basis;
  const parts = [];
  if (!complete)
    parts.push(`the run did not complete (${runStatus}); requirements whose cases did not run are not run`);
  if (failed.length > 0) parts.push(`${plural(failed.length, 'MUST requirement')} failed: ${failed.join(', ')}`);
  if (blocking.length > failed.length)
    parts.push(`${plural(warned.length, 'SHOULD requirement')} warned (--level should): ${warned.join(', ')}`);
  if (blocking.length === 0 && notRun.length > 0)
    parts.push(
      `no requirement failed, but ${plural(notRun.length, 'requirement')} the run had to check ${notRun.length === 1 ? 'was' : 'were'} not run: ${notRun.join(', ')}`,
    );
  if (parts.length === 0)
    parts.push(
      warned.length > 0
        ? `no MUST requirement failed; ${plural(warned.length, 'SHOULD requirement')} warned`
        : 'no MUST requirement failed',
    );
  return parts.join('; ');
}

function withWaiver(record: RequirementRecord, waiver: Waiver | undefined, today: string): RequirementRecord {
  if (!waiver) return record;
  return { ...record, waiver: { reason: waiver.reason, expires: waiver.expires, active: waiverActive(waiver, today) } };
}

/** The gate: active waivers and a baseline take known failures out; --allow-partial lets an incomplete run pass. */
export function gateRecord(
  verdict: RunVerdict,
  blocking: string[],
  requirements: RequirementRecord[],
  policy: GatePolicy | undefined,
): GateRecord {
  const byId = new Map(requirements.map((r) => [r.id, r]));
  const waived = blocking.filter((id) => byId.get(id)?.waiver?.active === true);
  const expiredWaivers = blocking.filter((id) => byId.get(id)?.waiver?.active === false);
  const baselineFailing = new Set(policy?.baseline?.failing ?? []);
  const unwaived = blocking.filter((id) => !waived.includes(id));
  const knownFailures = policy?.baseline ? unwaived.filter((id) => baselineFailing.has(id)) : [];
  const newlyFailing = unwaived.filter((id) => !knownFailures.includes(id));
  const allowPartial = policy?.allowPartial ?? false;
  const base = {
    allowPartial,
    waived,
    expiredWaivers,
    ...(policy?.baseline ? { baseline: { file: policy.baseline.file, knownFailures, newlyFailing } } : {}),
  };
  const accepted = [
    ...(waived.length > 0 ? [`${plural(waived.length, 'failure')} waived`] : []),
    ...(knownFailures.length > 0 ? [`${plural(knownFailures.length, 'failure')} known from the baseline`] : []),
  ];
  const also = accepted.length > 0 ? ` (${accepted.join(', ')})` : '';
  if (newlyFailing.length > 0) {
    const expired = expiredWaivers.length > 0 ? `; waiver expired for ${expiredWaivers.join(', ')}` : '';
    return {
      result: 'fail',
      reason: `${policy?.baseline ? 'newly failing' : 'failing'}: ${newlyFailing.join(', ')}${expired}${also}`,
      ...base,
    };
  }
  if (verdict === 'failed' && blocking.length === 0)
    return { result: 'fail', reason: 'the run did not complete in time', ...base };
  if (verdict === 'incomplete' && !allowPartial)
    return {
      result: 'incomplete',
      reason: `requirements the run had to check were not run; pass --allow-partial to accept a partial run${also}`,
      ...base,
    };
  const partial = verdict === 'incomplete' ? 'a partial run accepted (--allow-partial)' : 'nothing failed';
  return { result: 'pass', reason: `${verdict === 'failed' ? 'no failure left' : partial}${also}`, ...base };
}

function requirementRecord(
  requirement: Requirement,
  cases: CaseOutcome[],
  selection: Selection,
  scrub: (text: string) => string,
): RequirementRecord {
  const evidence = cases.flatMap((c) =>
    c.findings.filter((f) => f.requirement === requirement.id).map((f) => recordedEvidence(c.title, f)),
  );
  const unexplained = cases
    .filter((c) => c.error !== undefined && c.requirements[0] === requirement.id)
    .map((c) => ({ case: c.title, message: `${CASE_FAILED_MESSAGE}${c.error}` }));
  const all = [...evidence, ...unexplained];
  const covering = cases.filter((c) => c.requirements.includes(requirement.id));
  const declaredNotRun = (c: CaseOutcome) => c.notRun?.find((n) => n.requirements.includes(requirement.id));
  const ran = covering.filter((c) => RAN.includes(c.status) && !declaredNotRun(c));
  const regression = ran
    .filter((c) => c.requirements[0] === requirement.id)
    .flatMap((c) => regressionCaseName(c.title) ?? []);
  const durationMs = Math.round(ran.reduce((sum, c) => sum + (c.durationMs ?? 0), 0));
  const exercised = cases.flatMap((c) => c.exercised ?? []).filter((e) => e.requirement === requirement.id);
  const judged = exercised.reduce((sum, e) => sum + e.judged, 0);
  const broken = exercised.reduce((sum, e) => sum + e.broken, 0);
  const base = {
    id: requirement.id,
    level: requirement.level,
    section: requirement.section,
    text: requirement.text,
    cases: ran.length,
    ...(ran.length > 0 ? { durationMs } : {}),
    judged,
    broken,
    ...(regression.length > 0 ? { regressionCases: regression } : {}),
  };
  const kept = {
    evidence: all.slice(0, MAX_EVIDENCE),
    ...(all.length > MAX_EVIDENCE ? { evidenceOmitted: all.length - MAX_EVIDENCE } : {}),
  };
  if (all.length > 0 && requirement.level !== 'INFO')
    return { ...base, verdict: requirement.level === 'MUST' ? 'failed' : 'warning', ...kept };
  // Passed means judged: a judge that can break it judged an exchange and it held.
  if (judged > 0 || all.length > 0) return { ...base, verdict: 'passed', ...kept };
  const declared = covering.map(declaredNotRun).find((n) => n !== undefined);
  if (declared)
    return {
      ...base,
      verdict: 'not-run',
      reason: scrub(declared.reason),
      evidence: [],
      ...(declared.byTargetChoice ? { byTargetChoice: true } : {}),
    };
  if (ran.length > 0 && judgedBySuite(requirement))
    return { ...base, ...notExercised(requirement, cases, scrub), evidence: [] };
  return { ...base, verdict: 'not-run', reason: notRunReason(requirement, covering, selection), evidence: [] };
}

const judgedBySuite = (requirement: Requirement) => !requirement.checkedBy || requirement.checkedBy.includes('suite');

/**
 * Its cases ran and nothing judged it. A judge that met a value it cannot reason about says why,
 * and the run is incomplete for it; otherwise the catalogue says why (`notExercised`) and whether
 * that is the target's legal choice.
 */
function notExercised(
  requirement: Requirement,
  cases: CaseOutcome[],
  scrub: (text: string) => string,
): Pick<RequirementRecord, 'verdict' | 'reason' | 'byTargetChoice' | 'notExercised'> {
  const seen = cases.flatMap((c) => c.unexercised ?? []).find((u) => u.requirement === requirement.id);
  const policy = requirement.notExercised;
  const reason = seen ? scrub(seen.reason) : (policy?.reason ?? UNEXERCISED_REASON);
  const byTargetChoice = seen === undefined && policy?.byTargetChoice === true;
  return {
    verdict: 'not-run',
    reason: `not exercised: ${reason}`,
    notExercised: true,
    ...(byTargetChoice ? { byTargetChoice: true } : {}),
  };
}

function notRunReason(requirement: Requirement, covering: CaseOutcome[], selection: Selection): string {
  const reason = covering.find((c) => c.skipReason)?.skipReason;
  if (reason) return reason;
  if (covering.some((c) => c.status === 'not-started')) return 'the run ended before its cases ran';
  if (requirement.checkedBy && !requirement.checkedBy.includes('suite')) return PROXY_ONLY_REASON;
  return unselectedReason(selection);
}

/** Why no case of this run covers a requirement the suite checks: the selection left them out. */
export function unselectedReason(selection: Selection): string {
  const left = [
    ...(selection.requirements ? [`--requirement ${selection.requirements.join(' ')}`] : []),
    ...(selection.grep !== undefined ? [`--grep ${JSON.stringify(selection.grep)}`] : []),
    ...(selection.grepInvert !== undefined ? [`--grep-invert ${JSON.stringify(selection.grepInvert)}`] : []),
    ...(selection.shard ? [`shard ${selection.shard.current}/${selection.shard.total}`] : []),
    ...(selection.filters ?? []),
  ];
  return left.length > 0 ? `its cases were not selected (${left.join(', ')})` : UNCOVERED_REASON;
}

function recordedEvidence(caseTitle: string, finding: CaseFinding): RecordedEvidence {
  const optional = {
    pointer: finding.pointer || undefined,
    expected: finding.expected,
    actual: finding.actual,
    method: finding.exchange?.method,
    path: finding.exchange?.path,
    status: finding.exchange?.status,
    curl: finding.exchange?.curl,
  };
  return {
    case: caseTitle,
    message: finding.message,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  };
}

function tallyOf(requirements: RequirementRecord[]): Record<Level, Tally> {
  const empty = (): Tally => ({ passed: 0, failed: 0, warning: 0, 'not-run': 0 });
  const tally = Object.fromEntries(LEVELS.map((level) => [level, empty()])) as Record<Level, Tally>;
  for (const r of requirements) tally[r.level][r.verdict]++;
  return tally;
}

/** The title the contract's `info` gives the specification, or nothing. */
export function contractTitle(contract: Contract): string {
  const { title } = contract.document.info as { title?: unknown };
  return typeof title === 'string' ? title : '';
}
