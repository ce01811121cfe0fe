// A Playwright reporter that gives each case its outcome from the outcome data it attached: a
// case with a blocking finding (MUST, and SHOULD under --level should) is marked failed here, in
// the runner, before the HTML, JUnit and blob reporters read it, and the run's status follows. A
// case whose outcome data cannot be read is failed too: an unreadable outcome is never a pass.
//
// Why not fail the test in the worker: Playwright replaces a worker after every failed test, and
// a new worker costs about a second (measured on 2 cores), so a target that breaks a requirement
// every case touches would turn seconds into many minutes. Workers see the run's reporters in
// their configuration: when this one is among them they leave the outcome to it; when a person
// replaces the reporters (`--reporter=list`), the workers fail their own cases instead, by the same
// rule (run-protocol judgeCase, with the waivers and baseline the configuration hands them).
//
// A case fails only for the requirements it names (run-protocol ownFindings): a blocking finding
// of another requirement is a side finding, noted on the case and recorded on its requirement.
// A failure the gate accepts (an active waiver, a --baseline failure) does not fail its case
// either: the case carries a note saying why, so a passing gate never shows a red case. A side
// finding still fails the run as a whole, as its requirement fails in the record.
//
// It changes results (a case's status, errors and notes) because of the worker restarts above,
// and fails closed: if deciding a case throws, the case is failed here before any rendering reads
// it, and the error, naming this reporter, ends the run without a verdict (reports/reporter-failure.ts).
// A configuration that leaves it out, or lists it after a rendering, gets no verdict either.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { loadContract } from '../contract/index.ts';
import {
  blockingLevels,
  CASE_OUTCOME,
  DEFAULT_RUN,
  caseFailureMessage,
  gateAccepted,
  judgeCase,
  judgementNotes,
  REQUIREMENT_ANNOTATION,
  type CaseFinding,
  type FailLevel,
  type RunDescription,
} from '../run-protocol/index.ts';
import { readCaseData } from './case-data.ts';
import { namingFailures, reporterFailure } from './reporter-failure.ts';

export interface CaseOutcomeOptions {
  /** The run's fail level, waivers and baseline; absent, MUST findings fail and the gate accepts no failure. */
  run?: Pick<RunDescription, 'failLevel' | 'waivers' | 'baseline'>;
  /** YYYY-MM-DD (UTC) waivers are judged on; default today. */
  today?: string;
}

function requirementsOf(test: TestCase): string[] {
  return test.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION).map((a) => String(a.description));
}

export default class CaseOutcomeReporter implements Reporter {
  private readonly failLevel: FailLevel;
  private failedAny = false;
  private readonly accepted: Map<string, string>;
  private readonly requirements = new Map<TestCase, string[]>();

  constructor(options: CaseOutcomeOptions = {}) {
    const run = options.run ?? DEFAULT_RUN;
    this.failLevel = run.failLevel;
    this.accepted = gateAccepted(run, options.today ?? new Date().toISOString().slice(0, 10));
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    // Read before the secret scrubber rewrites annotations at each test's end.
    namingFailures(CASE_OUTCOME, () => {
      for (const test of suite.allTests()) this.requirements.set(test, requirementsOf(test));
    });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    try {
      this.decide(test, result);
    } catch (error) {
      // Playwright goes on after a reporter throws: the case is failed first, so no rendering shows it passed.
      const failure = reporterFailure(CASE_OUTCOME, error);
      if (result.status === 'passed') this.fail(result, `${failure.message} on this case`);
      this.failedAny = true;
      throw failure;
    }
  }

  private decide(test: TestCase, result: TestResult): void {
    // Failures decided elsewhere (a worker, a shard's blob) count too.
    if (result.status !== 'skipped' && result.status !== test.expectedStatus) this.failedAny = true;
    if (result.status !== 'passed') return;
    const data = readCaseData(result, loadContract());
    const message =
      data.kind === 'read'
        ? this.blockingMessage(test, data.findings)
        : data.kind === 'unreadable'
          ? `the verdict of this case cannot be read: ${data.problem}`
          : undefined;
    if (message !== undefined) this.fail(result, message);
  }

  private fail(result: TestResult, message: string): void {
    result.status = 'failed';
    // In result.errors only: JUnit then writes a <failure> (a broken requirement), not an <error> (a crash).
    result.errors.push({ message });
    this.failedAny = true;
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    return this.failedAny && result.status === 'passed' ? { status: 'failed' } : undefined;
  }

  /** The failure message of a case, if one of its own findings fails it; notes on the test for the rest. */
  private blockingMessage(test: TestCase, findings: CaseFinding[]): string | undefined {
    const caseRequirements = this.requirements.get(test) ?? requirementsOf(test);
    const judged = judgeCase(findings, caseRequirements, blockingLevels(this.failLevel), this.accepted);
    // On the test, where the HTML and JUnit reporters read annotations when the run ends.
    for (const note of judgementNotes(judged)) test.annotations.push(note);
    // A side finding the gate does not accept fails the run (Playwright's exit code), not the case.
    if (judged.side.some((f) => !this.accepted.has(f.requirement))) this.failedAny = true;
    return judged.failing.length === 0 ? undefined : caseFailureMessage(judged.failing);
  }
}
