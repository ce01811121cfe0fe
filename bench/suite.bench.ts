// `npm run bench suite`: the conformance suite's case count and wall time against the embedded
// reference server, with one Playwright worker (the baseline, measured in the same run) and with
// one worker per core; the ratio is what the workers buy.
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadContract } from '../contract/index.ts';
import { startEmbeddedTarget } from '../suites/embedded.ts';
import { runSuite } from '../suites/runner.ts';
import { resolveTarget } from '../targets/target.ts';

async function timedRun(workers: number): Promise<{ cases: number; seconds: number; verdict: string }> {
  const embedded = await startEmbeddedTarget();
  const reportDir = mkdtempSync(join(tmpdir(), 'las-suite-bench-'));
  try {
    const target = resolveTarget(embedded.settings, loadContract().legacyHeader);
    const started = performance.now();
    const outcome = await runSuite({
      target,
      reportDir,
      failLevel: 'must',
      workers,
      baseEnvironment: process.env,
      output: 'ignore',
    });
    const seconds = (performance.now() - started) / 1000;
    if (!outcome.record)
      throw new Error(`the suite ended without a record (Playwright exit code ${outcome.playwrightExitCode})`);
    return { cases: outcome.record.cases.total, seconds, verdict: outcome.record.verdict };
  } finally {
    await embedded.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
}

export default async function suiteBench(): Promise<void> {
  const parallel = cpus().length;
  const baseline = await timedRun(1);
  const fast = await timedRun(parallel);
  process.stdout.write(`cases: ${fast.cases} (verdict ${fast.verdict})\n`);
  process.stdout.write(`1 worker:  ${baseline.seconds.toFixed(1)} s wall (baseline)\n`);
  process.stdout.write(
    `${parallel} workers: ${fast.seconds.toFixed(1)} s wall, ${(fast.seconds / baseline.seconds).toFixed(2)}x the baseline's time (${(baseline.seconds / fast.seconds).toFixed(2)}x faster)\n`,
  );
}
