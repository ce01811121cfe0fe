// A Playwright reporter that gives each case its verdict from the findings it attached: a case
// with a blocking finding (MUST, and SHOULD under --level should) is marked failed here, in the
// runner, before the HTML, JUnit and blob reporters read it, and the run's status follows.
//
// Why not fail the test in the worker: Playwright replaces a worker after every failed test, and
// a new worker costs about a second (measured on 2 cores), so a target that breaks a requirement
// every case touches would turn seconds into many minutes. When this reporter is configured it
// says so through the environment the workers inherit, and they leave the verdict to it; when a
// person replaces the reporters (`--reporter=list`), the workers fail their own cases instead.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { blockingLevels, verdictMessage, VERDICT_BY_REPORTER } from '../suites/case.ts';
import { caseReportOf } from './conformance-reporter.ts';

export default class CaseVerdictReporter implements Reporter {
  private failLevel: 'must' | 'should' = 'must';
  private failedAny = false;

  constructor() {
    process.env[VERDICT_BY_REPORTER] = '1';
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.failLevel = config.metadata.failLevel === 'should' ? 'should' : 'must';
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // Failures decided elsewhere (a worker, a shard's blob) count too.
    if (result.status !== 'skipped' && result.status !== test.expectedStatus) this.failedAny = true;
    if (result.status !== 'passed') return;
    const levels = blockingLevels(this.failLevel);
    const blocking = (caseReportOf(result)?.findings ?? []).filter((f) => levels.includes(f.level));
    if (blocking.length === 0) return;
    const error = { message: verdictMessage(blocking) };
    result.status = 'failed';
    // In result.errors only: JUnit then writes a <failure> (a broken requirement), not an <error> (a crash).
    result.errors.push(error);
    this.failedAny = true;
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    return this.failedAny && result.status === 'passed' ? { status: 'failed' } : undefined;
  }
}
