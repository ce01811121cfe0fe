// The protocol between a run of the suite (its workers and the command that starts it) and the
// reporters that read it: what a case leaves on its test (attachments, annotations), which
// levels fail a case, and the files a run leaves. It is a module of its own, not part of
// `contract/` (which knows nothing of Playwright or of runs) and not part of `suites/` or
// `reports/`: both sides import it, so neither reaches into the other.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LEVELS, type Finding, type Level } from '../contract/index.ts';
import type { TargetSettings } from '../targets/target.ts';

/** Which requirement levels fail a case and the run: MUST only, or MUST and SHOULD (`--level should`). */
export type FailLevel = 'must' | 'should';

/** The catalogue level a fail level names. */
const FAIL_LEVEL_LEVEL: Record<FailLevel, Level> = { must: 'MUST', should: 'SHOULD' };

/**
 * The levels whose findings fail a case, and whose requirements a run must check to certify anything: the fail level's
 * and every stronger one.
 */
export function blockingLevels(failLevel: FailLevel): Level[] {
  return LEVELS.slice(0, LEVELS.indexOf(FAIL_LEVEL_LEVEL[failLevel]) + 1);
}

/** The fail level as the certification record writes it. */
export function failLevelName(failLevel: FailLevel): 'MUST' | 'SHOULD' {
  return FAIL_LEVEL_LEVEL[failLevel] as 'MUST' | 'SHOULD';
}

/** The fail level from its name in a certification record. */
export function failLevelOfName(name: 'MUST' | 'SHOULD'): FailLevel {
  return name === 'SHOULD' ? 'should' : 'must';
}

/** The attachment every case leaves for people: its findings with their captured exchanges, tokens replaced. */
export const CASE_FINDINGS_ATTACHMENT = 'conformance-findings';

/**
 * The attachment a case's outcome is decided from: the requirement id, level and location of each
 * finding (in the order of the case report's findings) and the requirements the case could not
 * check. Only catalogue vocabulary, so no scrubber needs to touch it, and none does: replacing a
 * token that happens to be a letter or a word must never change an outcome. Its name keeps the
 * word "verdict" that HTML and blob reports already show for it.
 */
export const CASE_OUTCOME_ATTACHMENT = 'conformance-verdict';

/**
 * The reporter that decides each case's outcome in the runner (reports/case-outcome.ts), as the configurations list it.
 */
export const CASE_OUTCOME_REPORTER = realpathSync(fileURLToPath(new URL('../reports/case-outcome.ts', import.meta.url)));

/**
 * True when the run's reporters (the configuration's, or those of the command line's --reporter,
 * which replace them) include the case-outcome reporter: the workers then leave outcomes to it.
 */
export function outcomesDecidedByReporter(reporters: readonly (readonly [string, unknown?])[]): boolean {
  return reporters.some(([name]) => name === CASE_OUTCOME_REPORTER);
}

/** The annotation type that names a requirement a case exercises, with its `level` and `section` beside it. */
export const REQUIREMENT_ANNOTATION = 'requirement';

/** What a regression case's title says after its requirement ids: `ERR-STATUS-STRING · regression: name`. */
export const REGRESSION_TITLE_MARK = 'regression: ';

/** The name of a regression case from its test title, or null for a case of the suite. */
export function regressionCaseName(title: string): string | null {
  const at = title.indexOf(` · ${REGRESSION_TITLE_MARK}`);
  return at < 0 ? null : title.slice(at + 3 + REGRESSION_TITLE_MARK.length);
}
export const LEVEL_ANNOTATION = 'level';
export const SECTION_ANNOTATION = 'section';
/** The annotation types of a finding that does not block: an INFO observation, or a warning below the fail level. */
export const OBSERVATION_ANNOTATION = 'observation';
export const WARNING_ANNOTATION = 'warning';
/**
 * The annotation type of a blocking finding of a requirement the case does not name: recorded on that requirement,
 * never failing this case.
 */
export const SIDE_FINDING_ANNOTATION = 'side finding';
/**
 * The annotation type of a blocking finding the gate accepts (an active waiver, a --baseline failure): the case is not
 * failed for it.
 */
export const FORGIVEN_ANNOTATION = 'accepted by the gate';

/**
 * The findings that may fail a case: those of the requirements it names (its own and those it
 * covers). Any other is a side finding: the record holds it under its requirement, and the
 * case only carries a note, so a red case always points at a requirement of its own.
 */
export function ownFindings<T extends Pick<Finding, 'requirement'>>(findings: T[], caseRequirements: readonly string[]): T[] {
  return findings.filter((f) => caseRequirements.includes(f.requirement));
}

/**
 * What one case's blocking findings mean for it: what fails it, what the gate accepts, what is another requirement's.
 */
export interface CaseJudgement<T extends Pick<Finding, 'requirement' | 'level'>> {
  failing: T[];
  accepted: { finding: T; why: string }[];
  side: T[];
}

/**
 * The one rule a case's outcome follows, wherever it is applied (the case-outcome reporter, or the
 * worker when a person replaced the reporters): its findings at a blocking level are sorted into
 * those that fail it, those the gate accepts (`accepted`: requirement to why) and side findings.
 */
export function judgeCase<T extends Pick<Finding, 'requirement' | 'level'>>(findings: readonly T[], caseRequirements: readonly string[], levels: readonly string[], accepted: ReadonlyMap<string, string>): CaseJudgement<T> {
  const blocking = findings.filter((f) => levels.includes(f.level));
  const own = ownFindings(blocking, caseRequirements);
  return {
    failing: own.filter((f) => !accepted.has(f.requirement)),
    accepted: own.filter((f) => accepted.has(f.requirement)).map((finding) => ({ finding, why: accepted.get(finding.requirement)! })),
    side: blocking.filter((f) => !own.includes(f)),
  };
}

/**
 * The notes a judged case carries for the findings that do not fail it (accepted by the gate, side findings), each
 * once.
 */
export function judgementNotes<T extends Pick<Finding, 'requirement' | 'level' | 'message'>>(judged: CaseJudgement<T>): { type: string; description: string }[] {
  const notes = [
    ...judged.accepted.map(({ finding, why }) => ({ type: FORGIVEN_ANNOTATION, description: `${finding.requirement} (${why}): ${finding.message}` })),
    ...judged.side.map((f) => ({ type: SIDE_FINDING_ANNOTATION, description: `${f.requirement} (${f.level}, recorded on its requirement): ${f.message}` })),
  ];
  return [...new Map(notes.map((n) => [`${n.type}\u0000${n.description}`, n])).values()];
}

/** A captured exchange: what was seen of one request and its answer, as people read it. */
export interface CapturedExchange {
  method: string;
  /** Relative to the base URL, query included. */
  path: string;
  /** Absent when no answer came. */
  status?: number;
  curl: string;
}

/**
 * A finding of a case with the exchange it was seen in; the unit the reports render (a row of the record's `evidence`).
 */
export interface CaseFinding extends Finding {
  exchange?: CapturedExchange;
}

/** The body of the findings attachment. */
export interface CaseFindings {
  /** The base URL the case ran against (not a secret). */
  target: string;
  findings: CaseFinding[];
}

/** Requirements a case ran without being able to check them, and why (e.g. a 202 answer shows no body). */
export interface NotRunDeclaration {
  requirements: string[];
  reason: string;
  /**
   * The target's own legal answer (202 Accepted, a minimal document refused) showed nothing to check: the run is not
   * incomplete for it.
   */
  byTargetChoice?: true;
}

/** How many exchanges of a case a judge that can break a requirement judged, and on how many it broke. */
export interface ExercisedRequirement {
  requirement: string;
  /** Exchanges judged (a case's own judgement over several exchanges, such as a page walk, counts as one). */
  judged: number;
  /** Of those, the ones that broke it. */
  broken: number;
}

/** A requirement a judge met in a case but could not judge, with why (a value it cannot reason about). */
export interface UnexercisedRequirement {
  requirement: string;
  reason: string;
}

/** The body of the outcome attachment. */
export interface CaseOutcomeData {
  findings: Pick<Finding, 'requirement' | 'level' | 'location'>[];
  notRun: NotRunDeclaration[];
  /** Every requirement a judge judged in the case: "passed" needs one judged exchange and none broken. */
  exercised: ExercisedRequirement[];
  /** Requirements a judge could not judge on some exchange of the case, each with its first reason. */
  unexercised: UnexercisedRequirement[];
}

/** The error a failed case shows: one line per blocking finding. */
export function failureMessage(blocking: CaseFinding[]): string {
  return blocking.map((f) => `${f.requirement} (${f.level}): ${f.message}${f.exchange ? ` [${f.exchange.method} ${f.exchange.path}]` : ''}`).join('\n');
}

/** A waiver as the target file gives it: a known failure the gate accepts until a date. */
export interface WaiverSetting {
  requirement: string;
  reason: string;
  /** YYYY-MM-DD, the last day it holds. */
  expires: string;
}

/**
 * The run as the suite's processes (configuration, workers, reporters) are told it, in one piece:
 * what the run command decided, or what a suite started without it reads from the environment.
 * No secrets, no values of optional inputs.
 */
export interface RunDescription {
  /** What fails a case and the run. */
  failLevel: FailLevel;
  /** Where the reports go, an absolute path; absent: the default report directory. */
  reportDir?: string;
  /** A target file whose regression cases run alongside the suite, an absolute path. */
  regressionCasesFile?: string;
  /** The private key file (PEM) the record is signed with, an absolute path: a path, not the key. */
  signingKeyFile?: string;
  /**
   * The target's settings but its secrets (tokens, header values), which travel in their own variables; absent or
   * without a base URL: the embedded reference server.
   */
  target?: TargetSettings;
  /** The target is the kit's reference server, started for this run, with these faults and choices. */
  embedded?: { faults: string[]; choices: string[] };
  /** Requests that could create records are not sent (--read-only). */
  readOnly: boolean;
  /** The run command's --grep (Playwright does not tell reporters about it). */
  grep?: string;
  /** The run command's --requirement: the cases that can judge these were selected (by a --grep of their titles). */
  requirements?: string[];
  allowPartial: boolean;
  waivers: WaiverSetting[];
  /** --baseline: the file and the requirements failing in it. */
  baseline?: { file: string; failing: string[] };
  /** Generated inputs for each operation: the boundary phase, then random ones (absent: none). */
  generate?: GenerationSettings;
  /** `run --generate 0` turned generation off: the record says so. */
  generationOff?: boolean;
  /**
   * A file descriptor the run command opened for the suite's process: the conformance reporter
   * sends the record it built there (a RecordMessage), so the run command has the verdict without
   * reading back the files written for people.
   */
  recordPipe?: number;
}

/** What the conformance reporter sends on the record pipe: the record as built, or why there is none. */
export type RecordMessage<Record> = { record: Record } | { noVerdict: string };

/** What the record says when `run --generate 0` turned generation off. */
export const GENERATION_OFF = 'turned off (run --generate 0): no input was drawn from the contract, only the fixed cases ran';

/** What `run --generate N --seed S` asks for: N inputs per operation, drawn from seed S, within time budgets. */
export interface GenerationSettings {
  /** Inputs per operation (before shrinking). */
  inputs: number;
  seed: number;
  /** The most one operation's generation may take. */
  operationBudgetMs: number;
  /** The most generation may take in all: shared out evenly between the operations. */
  totalBudgetMs: number;
}

/**
 * Random inputs per operation a run sends after the boundary phase unless told otherwise (`--generate N`; 0 turns
 * generation off).
 */
export const DEFAULT_GENERATED_INPUTS = 100;

/** The attachment a generated case leaves: its GeneratedOperation, tokens replaced. */
export const GENERATION_ATTACHMENT = 'conformance-generated';

/** A minimal input that breaks a requirement: the shrunk input's exchange, with one curl line to replay it. */
export interface Counterexample {
  message: string;
  method: string;
  path: string;
  /** Absent when no answer came. */
  status?: number;
  curl: string;
  /** Steps fast-check took from the first failing input to this one. */
  shrinks: number;
}

/** One requirement as generation met it for one operation. */
export interface GeneratedRequirement {
  id: string;
  /** Generated inputs judged under it: the answers it holds for. */
  inputs: number;
  verdict: 'passed' | 'failed';
  counterexample?: Counterexample;
}

/** What generation did for one operation: inputs sent, why it stopped early (if it did), each requirement it judged. */
export interface GeneratedOperation {
  operation: string;
  inputs: { sent: number; valid: number; invalid: number };
  durationMs: number;
  /** Why generation ended before its inputs were all sent (its time budget, three timeouts in a row). */
  stopped?: string;
  requirements: GeneratedRequirement[];
}

/** True while a waiver holds: through its `expires` day (UTC), `today` being YYYY-MM-DD. */
export function waiverActive(waiver: Pick<WaiverSetting, 'expires'>, today: string): boolean {
  return waiver.expires >= today;
}

/** Why the gate accepts a waived failure, as every report words it. */
export function waivedReason(waiver: Pick<WaiverSetting, 'reason' | 'expires'>): string {
  return `waived until ${waiver.expires}: ${waiver.reason}`;
}

/** Why the gate accepts a failure the --baseline record already had, as every report words it. */
export function baselineReason(file: string): string {
  return `known failure in the baseline ${file}`;
}

/**
 * The requirements whose failures the gate accepts, each with why, for the case outcomes: an
 * active waiver (its reason and last day) or a failure the --baseline record already had.
 */
export function gateAccepted(run: Pick<RunDescription, 'waivers' | 'baseline'>, today: string): Map<string, string> {
  const accepted = new Map<string, string>();
  for (const id of run.baseline?.failing ?? []) accepted.set(id, baselineReason(run.baseline!.file));
  for (const waiver of run.waivers) if (waiverActive(waiver, today)) accepted.set(waiver.requirement, waivedReason(waiver));
  return accepted;
}

export const DEFAULT_RUN: RunDescription = { failLevel: 'must', readOnly: false, allowPartial: false, waivers: [] };

/** The files a run leaves in its report directory. */
export const RECORD_FILE = 'conformance.json';
/**
 * The record's signature, when the run was given a signing key: a DSSE envelope on one line, as in-toto attestation
 * bundles hold them.
 */
export const ENVELOPE_FILE = 'conformance.intoto.jsonl';
export const SUMMARY_FILE = 'summary.md';
/** The record rendered per requirement, for CI systems. */
export const REQUIREMENTS_JUNIT_FILE = 'junit.xml';
/** Playwright's own JUnit, per case. */
export const CASES_JUNIT_FILE = 'junit-cases.xml';
export const CERTIFICATION_FILE = 'certification.html';
/**
 * Written instead of a record when the run can have no verdict: one line saying why (a case file that failed to load,
 * say).
 */
export const NO_VERDICT_FILE = 'no-verdict.txt';
/** The run command's log. */
export const RUN_LOG_FILE = 'run.log';
/** Playwright's HTML report, its test artifacts and its blob report (sharded runs), each a directory. */
export const PLAYWRIGHT_HTML_DIR = 'html';
export const ARTIFACTS_DIR = 'artifacts';
export const BLOB_DIR = 'blob';
/** Everything a run writes into its report directory: what a reused directory is cleared of, and nothing else. */
export const REPORT_DIR_ENTRIES = [RECORD_FILE, ENVELOPE_FILE, SUMMARY_FILE, REQUIREMENTS_JUNIT_FILE, CASES_JUNIT_FILE, CERTIFICATION_FILE, NO_VERDICT_FILE, RUN_LOG_FILE, PLAYWRIGHT_HTML_DIR, ARTIFACTS_DIR, BLOB_DIR] as const;
