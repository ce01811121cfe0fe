// `npm run bench generate`: `run --generate 200 --seed 1` against the embedded reference server,
// its wall time against the plain run's (the baseline, measured in the same run, one worker per
// core both times), its verdict, and what generation sent per operation. Well under a minute on 2
// cores is the goal; the ratio says what generation adds to a run.
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_RUN, type RunDescription } from '../run-protocol/index.ts';
import { startEmbeddedTarget } from '../suites/embedded.ts';
import { runSuite } from '../suites/runner.ts';
import { resolveTarget } from '../targets/target.ts';

const GENERATE: RunDescription = {
  ...DEFAULT_RUN,
  generate: { inputs: 200, seed: 1, operationBudgetMs: 120_000, totalBudgetMs: 300_000 },
};

async function timedRun(run: RunDescription): Promise<{ record: CertificationRecord; seconds: number }> {
  const embedded = await startEmbeddedTarget();
  const reportDir = mkdtempSync(join(tmpdir(), 'las-generate-bench-'));
  try {
    const target = resolveTarget(embedded.settings, loadContract().legacyHeader);
    const started = performance.now();
    const outcome = await runSuite({
      target,
      reportDir,
      failLevel: 'must',
      workers: cpus().length,
      baseEnvironment: process.env,
      output: 'ignore',
      run,
    });
    const seconds = (performance.now() - started) / 1000;
    if (!outcome.record)
      throw new Error(`the suite ended without a record (Playwright exit code ${outcome.playwrightExitCode})`);
    return { record: outcome.record, seconds };
  } finally {
    await embedded.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
}

export default async function generateBench(): Promise<void> {
  const baseline = await timedRun(DEFAULT_RUN);
  const generated = await timedRun(GENERATE);
  const { record } = generated;
  process.stdout.write(
    `plain run:      ${baseline.seconds.toFixed(1)} s wall, ${baseline.record.cases.total} cases, verdict ${baseline.record.verdict} (baseline)\n`,
  );
  process.stdout.write(
    `--generate 200 --seed 1: ${generated.seconds.toFixed(1)} s wall, ${record.cases.total} cases, verdict ${record.verdict}, ${(generated.seconds / baseline.seconds).toFixed(2)}x the baseline's time\n`,
  );
  for (const operation of record.generated?.operations ?? []) {
    const failed = operation.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id);
    process.stdout.write(
      `  ${operation.operation}: ${operation.inputs.sent} requests (${operation.inputs.valid} valid, ${operation.inputs.invalid} invalid) in ${(operation.durationMs / 1000).toFixed(1)} s${failed.length > 0 ? `, failed ${failed.join(', ')}` : ''}${operation.stopped ? `, stopped: ${operation.stopped}` : ''}\n`,
    );
  }
}
