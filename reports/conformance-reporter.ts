// The Playwright reporter that writes the certification record: it collects each case's findings
// (the attachment ConformanceCase leaves) and outcome, and at the end writes conformance.json and
// summary.md and prints the verdict. It renders what the cases found; it never re-checks.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { loadContract } from '../contract/index.ts';
import { blockingLevels, CASE_REPORT_ATTACHMENT, REQUIREMENT_ANNOTATION, type CaseReport } from '../suites/case.ts';
import type { FailLevel } from '../suites/settings.ts';
import { TARGET_ENVIRONMENT } from '../targets/target.ts';
import { failedRequirementsConsole } from './console-summary.ts';
import { buildRecord, consoleSummary, summaryMarkdown, type CaseOutcome, type ReportPaths } from './record.ts';
import { writeRecordRenderings } from './record-renderings.ts';

export interface ConformanceReporterOptions {
  outputDir: string;
}

export const RECORD_FILE = 'conformance.json';
export const SUMMARY_FILE = 'summary.md';

const kit = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

export function caseReportOf(result: TestResult): CaseReport | undefined {
  const attachment = result.attachments.find((a) => a.name === CASE_REPORT_ATTACHMENT);
  if (!attachment) return undefined;
  const text = attachment.body ? attachment.body.toString('utf8') : attachment.path ? readFileSync(attachment.path, 'utf8') : undefined;
  return text === undefined ? undefined : (JSON.parse(text) as CaseReport);
}

function requirementsOf(test: TestCase): string[] {
  return test.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION).map((a) => String(a.description));
}

function reporterOption(config: FullConfig, name: string, option: string): string | undefined {
  const entry = config.reporter.find(([reporter]) => reporter === name);
  const value = (entry?.[1] as Record<string, unknown> | undefined)?.[option];
  return typeof value === 'string' ? value : undefined;
}

export default class ConformanceReporter implements Reporter {
  private readonly outputDir: string;
  private readonly outcomes = new Map<TestCase, CaseOutcome>();
  private config?: FullConfig;
  private target?: string;

  constructor(options: ConformanceReporterOptions) {
    this.outputDir = resolve(options.outputDir);
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    for (const test of suite.allTests()) this.outcomes.set(test, { title: test.title, requirements: requirementsOf(test), status: 'not-started', findings: [] });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const report = caseReportOf(result);
    this.target ??= report?.target;
    const findings = report?.findings ?? [];
    const blocking = blockingLevels(this.failLevel());
    const failed = result.status === 'failed' || result.status === 'timedOut';
    const explained = findings.some((f) => blocking.includes(f.level));
    this.outcomes.set(test, {
      title: test.title,
      requirements: requirementsOf(test),
      status: result.status,
      skipReason: result.status === 'skipped' ? [...result.annotations, ...test.annotations].find((a) => a.type === 'skip')?.description : undefined,
      error: failed && !explained ? (result.errors[0]?.message ?? 'failed').split('\n')[0] : undefined,
      findings,
    });
  }

  async onEnd(result: FullResult): Promise<void> {
    const record = buildRecord({
      contract: loadContract(),
      kit: { name: kit.name, version: kit.version },
      target: this.target ?? process.env[TARGET_ENVIRONMENT.baseUrl] ?? 'unknown',
      failLevel: this.failLevel(),
      startedAt: result.startTime,
      durationMs: result.duration,
      runStatus: result.status,
      cases: [...this.outcomes.values()],
    });
    const paths = this.paths();
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(paths.conformance, `${JSON.stringify(record, null, 2)}\n`);
    writeFileSync(paths.summary, summaryMarkdown(record));
    const renderings = writeRecordRenderings(record, this.outputDir);
    const failures = failedRequirementsConsole(record);
    process.stdout.write(`\n${failures}${failures ? '\n' : ''}${consoleSummary(record, { ...paths, junit: renderings.junit, html: renderings.certification }, process.cwd())}`);
  }

  private failLevel(): FailLevel {
    return this.config?.metadata.failLevel === 'should' ? 'should' : 'must';
  }

  private paths(): ReportPaths {
    const junit = this.config && reporterOption(this.config, 'junit', 'outputFile');
    const html = this.config && reporterOption(this.config, 'html', 'outputFolder');
    return {
      conformance: join(this.outputDir, RECORD_FILE),
      summary: join(this.outputDir, SUMMARY_FILE),
      ...(junit ? { junit } : {}),
      ...(html ? { html: join(html, 'index.html') } : {}),
    };
  }
}
