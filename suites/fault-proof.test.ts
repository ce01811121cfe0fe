// Proof that the suite catches faults: `las-conformance run` against the embedded reference
// server passes with no fault (every MUST and SHOULD, zero warnings, exit 0), and the suite run
// against the server with each fault of its catalogue fails (Playwright exit 1, verdict failed,
// the requirement the fault breaks among the failed). The faulted runs skip the command's own
// process (runSuite, as the command does) to keep the proof to a few minutes on 2 cores; the
// command's exit code follows the verdict (cli/run.ts). The faults come from FAULTS: a fault
// added to the server is proven here without a line changed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import type { ConformanceRecord } from '../reports/record.ts';
import { FAULTS } from '../server/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { startEmbeddedTarget } from './embedded.ts';
import { runSuite } from './runner.ts';
import { hermeticEnvironment, runCli, type CliResult } from './test-support.ts';

interface RunResult {
  exitCode: number | null;
  stderr: string;
  record?: ConformanceRecord;
}

// Each run gets one Playwright worker; as many runs at once as there are cores.
const RUNS_AT_ONCE = Math.max(1, cpus().length);
const results = new Map<string, RunResult>();
let root: string;
let unfaulted: CliResult;

async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: size }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

function recordIn(reportDir: string): ConformanceRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as ConformanceRecord;
  } catch {
    return undefined;
  }
}

/** `las-conformance run --workers 1`, as `npm start` runs it. */
async function runUnfaulted(): Promise<void> {
  const reportDir = join(root, 'no-fault');
  unfaulted = await runCli(['run', '--workers', '1', '--report-dir', reportDir]);
  results.set('no fault', { exitCode: unfaulted.code, stderr: unfaulted.stderr, record: recordIn(reportDir) });
}

async function runWithFault(fault: string): Promise<void> {
  const reportDir = join(root, fault);
  const embedded = await startEmbeddedTarget([fault]);
  try {
    const target = resolveTarget(embedded.settings, loadContract().legacyHeader);
    const outcome = await runSuite({ target, reportDir, failLevel: 'must', workers: 1, baseEnvironment: hermeticEnvironment(), output: 'ignore' });
    results.set(fault, { exitCode: outcome.playwrightExitCode, stderr: '', record: outcome.record });
  } finally {
    await embedded.close();
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-fault-proof-'));
  const runs: (() => Promise<void>)[] = [runUnfaulted, ...FAULTS.map((fault) => () => runWithFault(fault.name))];
  await inPool(runs, RUNS_AT_ONCE, (run) => run());
}, 30 * 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

function failedOrWarned(record: ConformanceRecord | undefined): string[] {
  return (record?.requirements ?? []).filter((r) => r.verdict === 'failed' || r.verdict === 'warning').map((r) => r.id);
}

describe('the unfaulted reference server', () => {
  it('passes every MUST and SHOULD requirement the suite checks, with zero warnings, exit 0', () => {
    const { exitCode, stderr, record } = results.get('no fault')!;
    expect(stderr).toBe('');
    expect(failedOrWarned(record)).toEqual([]);
    expect(record).toMatchObject({ verdict: 'passed', runStatus: 'passed', cases: { failed: 0, notRun: 0 } });
    const notRun = record!.requirements.filter((r) => r.level !== 'INFO' && r.verdict === 'not-run').map((r) => `${r.id}: ${r.reason}`);
    expect(notRun.every((line) => line.endsWith('checked by the proxy only')), notRun.join('\n')).toBe(true);
    expect(exitCode).toBe(0);
  });

  it('prints the verdict first, then the case count and the report paths', () => {
    const { record } = results.get('no fault')!;
    const closing = unfaulted.stdout.slice(unfaulted.stdout.indexOf('\nVerdict: ') + 1).trimEnd().split('\n');
    expect(closing[0]).toBe('Verdict: PASSED: no MUST requirement failed');
    expect(closing).toContain(`Cases: ${record!.cases.total} cases: ${record!.cases.total} passed, 0 failed, 0 not run (${(record!.durationMs / 1000).toFixed(1)} s)`);
    expect(closing.slice(-5)).toEqual(['Reports:', ...['conformance.json', 'summary.md', 'junit.xml', 'certification.html'].map((file) => `  ${join(root, 'no-fault', file)}`)]);
  });
});

describe('each fault of the reference server', () => {
  for (const fault of FAULTS) {
    it(`${fault.name} fails the run (exit 1) with ${fault.requirement} among the failed requirements`, () => {
      const { exitCode, record } = results.get(fault.name)!;
      expect(failedOrWarned(record)).toContain(fault.requirement);
      expect(record?.requirements.find((r) => r.id === fault.requirement)?.verdict).toBe('failed');
      expect(record?.verdict).toBe('failed');
      expect(exitCode).toBe(1);
    });
  }
});
