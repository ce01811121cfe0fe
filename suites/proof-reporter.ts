// The proofs' reporter: one certification record per project, each written by the conformance
// reporter from that project's cases alone, into `<report dir>/<project>/conformance.json`, as
// soon as the project's last case ends (a project's run status and duration are its own).
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import ConformanceReporter, { type ConformanceReporterOptions } from '../reports/conformance-reporter.ts';
import { TARGET_ENVIRONMENT } from '../targets/target.ts';
import type { ProofTarget } from './proof-targets.ts';

const FAILED = new Set(['failed', 'timedOut', 'interrupted']);

interface ProjectRun {
  reporter: ConformanceReporter;
  cases: number;
  ended: number;
  failed: boolean;
  startTime?: Date;
  written: boolean;
}

export default class ProofReporter implements Reporter {
  private readonly projects = new Map<string, ProjectRun>();
  private readonly writing: Promise<unknown>[] = [];

  /**
   * The record's options, where the records go, and the projects' targets (the runs share all but their base URLs:
   * proof-runs.ts).
   */
  constructor(private readonly options: ConformanceReporterOptions & { targets: ProofTarget[] }) {}

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    for (const project of suite.suites) {
      const { targets, ...recording } = this.options;
      const baseUrl = targets.find((target) => target.name === project.title)?.environment[TARGET_ENVIRONMENT.baseUrl];
      const reporter = new ConformanceReporter({
        ...recording,
        outputDir: join(this.options.outputDir, project.title),
        ...(baseUrl ? { baseUrl } : {}),
      });
      reporter.onBegin(config, project);
      this.projects.set(project.title, {
        reporter,
        cases: project.allTests().length,
        ended: 0,
        failed: false,
        written: false,
      });
    }
  }

  onTestBegin(test: TestCase): void {
    const project = this.projectOf(test);
    if (project) project.startTime ??= new Date();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const project = this.projectOf(test);
    if (!project) return;
    if (FAILED.has(result.status)) project.failed = true;
    project.reporter.onTestEnd(test, result);
    project.ended += 1;
    if (project.ended === project.cases) this.write(project, project.failed ? 'failed' : 'passed');
  }

  async onEnd(result: FullResult): Promise<void> {
    // Projects whose cases did not all end (the run was interrupted or timed out) take the run's status.
    for (const project of this.projects.values())
      if (!project.written)
        this.write(project, result.status === 'passed' && project.failed ? 'failed' : result.status);
    await Promise.all(this.writing);
  }

  private projectOf(test: TestCase): ProjectRun | undefined {
    return this.projects.get(test.parent.project()?.name ?? '');
  }

  private write(project: ProjectRun, status: FullResult['status']): void {
    project.written = true;
    const startTime = project.startTime ?? new Date();
    this.writing.push(project.reporter.onEnd({ status, startTime, duration: Date.now() - startTime.getTime() }));
  }
}
