// A Playwright reporter that gives each case its outcome from the outcome data it attached: a
// case with a blocking finding (MUST, and SHOULD under --level should) is marked failed here, in
// the runner, before the HTML, JUnit and blob reporters read it, and the run's status follows. A
// case whose outcome data cannot be read is failed too: an unreadable outcome is never a pass.
//
// Why not fail the test in the worker: Playwright replaces a worker after every failed test, and
// a new worker costs about a second (measured on 2 cores), so a target that breaks a requirement
// every case touches would turn seconds into many minutes. Workers see the run's reporters in
// their configuration: when this one is among them they leave the outcome to it; when a person
// replaces the reporters (`--reporter=list`), the workers fail their own cases instead.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { loadContract } from '../contract/index.ts';
import { blockingLevels, failLevelOfMetadata, failureMessage, type FailLevel } from '../run-protocol/index.ts';
import { readCaseData } from './case-data.ts';

export default class CaseOutcomeReporter implements Reporter {
  private failLevel: FailLevel = 'must';
  private failedAny = false;

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.failLevel = failLevelOfMetadata(config.metadata);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // Failures decided elsewhere (a worker, a shard's blob) count too.
    if (result.status !== 'skipped' && result.status !== test.expectedStatus) this.failedAny = true;
    if (result.status !== 'passed') return;
    const data = readCaseData(result, loadContract());
    const message = data.kind === 'read' ? this.blockingMessage(data.findings) : data.kind === 'unreadable' ? `the verdict of this case cannot be read: ${data.problem}` : undefined;
    if (message === undefined) return;
    result.status = 'failed';
    // In result.errors only: JUnit then writes a <failure> (a broken requirement), not an <error> (a crash).
    result.errors.push({ message });
    this.failedAny = true;
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    return this.failedAny && result.status === 'passed' ? { status: 'failed' } : undefined;
  }

  private blockingMessage(findings: Parameters<typeof failureMessage>[0]): string | undefined {
    const levels = blockingLevels(this.failLevel);
    const blocking = findings.filter((f) => levels.includes(f.level));
    return blocking.length === 0 ? undefined : failureMessage(blocking);
  }
}
