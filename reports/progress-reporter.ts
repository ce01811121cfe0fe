// A live progress line for the console: `[n/N] passed x failed y`, rewritten in place on a
// terminal and printed every tenth of the run (or every few seconds) otherwise.
import type { FullConfig, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';

const QUIET_PERIOD_MS = 5_000;

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private passed = 0;
  private failed = 0;
  private skipped = 0;
  private lastPrintedAt = 0;
  private lastPrintedTenth = 0;
  private readonly live = process.stdout.isTTY === true;

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.total = suite.allTests().length;
    process.stdout.write(
      `Running ${this.total} conformance cases with ${config.workers} worker${config.workers === 1 ? '' : 's'}\n`,
    );
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.done++;
    if (result.status === 'skipped') this.skipped++;
    else if (result.status === test.expectedStatus) this.passed++;
    else this.failed++;
    this.print(false);
  }

  onEnd(): void {
    this.print(true);
  }

  private line(): string {
    return `[${this.done}/${this.total}] passed ${this.passed} failed ${this.failed}${this.skipped ? ` not run ${this.skipped}` : ''}`;
  }

  private print(final: boolean): void {
    if (this.live) {
      process.stdout.write(`\r\x1b[2K${this.line()}${final ? '\n' : ''}`);
      return;
    }
    const tenth = this.total === 0 ? 10 : Math.floor((this.done * 10) / this.total);
    const now = Date.now();
    if (!final && tenth === this.lastPrintedTenth && now - this.lastPrintedAt < QUIET_PERIOD_MS) return;
    if (final && this.lastPrintedTenth === 10 && this.done === this.total) return;
    this.lastPrintedTenth = tenth;
    this.lastPrintedAt = now;
    process.stdout.write(`${this.line()}\n`);
  }
}
