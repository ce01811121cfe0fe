// The proofs' reporter: one certification record per project, each written by the conformance
// reporter from that project's cases alone, into `<report dir>/<project>/conformance.json`, as
// soon as the project's last case ends (a project's run status and duration are its own).
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import ConformanceReporter from '../reports/conformance-reporter.ts';
import { proofTargetsOf } from './proof-targets.ts';

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

  constructor(private readonly options: { outputDir: string }) {}

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    for (const project of suite.suites) {
      const reporter = new ConformanceReporter({ outputDir: join(this.options.outputDir, project.title) });
      reporter.onBegin(config, project);
      this.projects.set(project.title, { reporter, cases: project.allTests().length, ended: 0, failed: false, written: false });
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
    if (project.ended === project.cases) this.write(project, test.parent.project()!.name, project.failed ? 'failed' : 'passed');
  }

  async onEnd(result: FullResult): Promise<void> {
    // Projects whose cases did not all end (the run was interrupted or timed out) take the run's status.
    for (const [name, project] of this.projects) if (!project.written) this.write(project, name, result.status === 'passed' && project.failed ? 'failed' : result.status);
    await Promise.all(this.writing);
  }

  private projectOf(test: TestCase): ProjectRun | undefined {
    return this.projects.get(test.parent.project()?.name ?? '');
  }

  /**
   * The conformance reporter reads the run's target from the environment as it starts writing, so
   * for that moment the environment names this project's target.
   */
  private write(project: ProjectRun, name: string, status: FullResult['status']): void {
    project.written = true;
    const startTime = project.startTime ?? new Date();
    const own = proofTargetsOf(process.env).find((target) => target.name === name)?.environment ?? {};
    const saved = Object.fromEntries(Object.keys(own).map((key) => [key, process.env[key]]));
    Object.assign(process.env, own);
    try {
      this.writing.push(project.reporter.onEnd({ status, startTime, duration: Date.now() - startTime.getTime() }));
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }
}
