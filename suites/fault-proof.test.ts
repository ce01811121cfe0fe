// Proof that the suite catches faults: `las-conformance run` against the embedded reference
// server passes with no fault (every MUST and SHOULD, zero warnings, exit 0), and with each fault
// of the catalogue the suite fails (verdict failed, which the command turns into exit 1) with the
// requirement the fault breaks among the failed ones, a requirement the unfaulted run passes.
//
// A faulted run holds only the cases that name the fault's requirement (their own or one they
// cover). That proves the claim for the whole suite: cases are independent, so a case that finds
// the fault finds it among all the others too, and a requirement failed by some cases is failed
// by the run. It also proves the cases that say they check a requirement do. The faulted runs
// share Playwright runs (suites/proof-runs.ts) and skip the command's own process, as the choice
// proof does, to keep both proofs to minutes on 2 cores; the command's exit code follows the
// verdict (cli/run.ts). The faults come from FAULTS: a fault added to the server is proven here
// without a line changed. Faults only generated inputs reach (`foundBy: 'generation'`) are proven
// by suites/generative-fault-proof.test.ts instead.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { FAULTS as CATALOGUE } from '../server/index.ts';
import { resolveTarget, type Target } from '../targets/target.ts';
import { startEmbeddedTarget, type EmbeddedTarget } from './embedded.ts';
import { listCases, runProof, type ListedCase, type ProofOutcome } from './proof-runs.ts';
import { hermeticEnvironment, runCli, type CliResult } from '../cli/test-support.ts';

/** The faults the fixed suite finds. */
const FAULTS = CATALOGUE.filter((fault) => fault.foundBy === undefined);

let root: string;
let unfaulted: CliResult;
let unfaultedRecord: CertificationRecord | undefined;
let cases: ListedCase[];
let proof: ProofOutcome;
const servers: EmbeddedTarget[] = [];

function recordIn(reportDir: string): CertificationRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord;
  } catch {
    return undefined;
  }
}

/** `las-conformance run --reference-server --workers 1`, as `npm start` runs it. */
async function runUnfaulted(): Promise<void> {
  const reportDir = join(root, 'no-fault');
  unfaulted = await runCli(['run', '--reference-server', '--workers', '1', '--report-dir', reportDir]);
  unfaultedRecord = recordIn(reportDir);
}

const titlesOf = (requirement: string) => cases.filter((c) => c.requirements.includes(requirement)).map((c) => c.title);

async function runFaulted(): Promise<void> {
  const targets: Target[] = [];
  for (const fault of FAULTS) {
    const server = await startEmbeddedTarget([fault.name]);
    servers.push(server);
    targets.push(resolveTarget(server.settings, loadContract().legacyHeader));
  }
  cases = await listCases(targets[0], hermeticEnvironment());
  const runs = FAULTS.map((fault, index) => ({
    name: fault.name,
    target: targets[index],
    titles: titlesOf(fault.requirement),
  }));
  proof = await runProof(runs, join(root, 'faults'), hermeticEnvironment());
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-fault-proof-'));
  await Promise.all([runUnfaulted(), runFaulted()]);
}, 30 * 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(root, { recursive: true, force: true });
});

function failedOrWarned(record: CertificationRecord | undefined): string[] {
  return (record?.requirements ?? []).filter((r) => r.verdict === 'failed' || r.verdict === 'warning').map((r) => r.id);
}

function failed(record: CertificationRecord | undefined): string[] {
  return (record?.requirements ?? []).filter((r) => r.verdict === 'failed').map((r) => r.id);
}

describe('the unfaulted reference server', () => {
  it('passes every MUST and SHOULD requirement the suite checks, with zero warnings, exit 0', () => {
    expect(unfaulted.stderr).toBe('');
    expect(failedOrWarned(unfaultedRecord)).toEqual([]);
    expect(unfaultedRecord).toMatchObject({ verdict: 'passed', runStatus: 'passed', cases: { failed: 0, notRun: 0 } });
    const notRun = unfaultedRecord!.requirements
      .filter((r) => r.level !== 'INFO' && r.verdict === 'not-run')
      .map((r) => `${r.id}: ${r.reason}`);
    expect(
      notRun.every((line) => line.endsWith('checked by the proxy only')),
      notRun.join('\n'),
    ).toBe(true);
    expect(unfaulted.code).toBe(0);
  });

  it('prints the verdict first, then the case count and the report paths', () => {
    const closing = unfaulted.stdout
      .slice(unfaulted.stdout.indexOf('\nVerdict: ') + 1)
      .trimEnd()
      .split('\n');
    expect(closing[0]).toBe('Verdict: PASSED: no MUST requirement failed');
    expect(closing).toContain(
      `Cases: ${unfaultedRecord!.cases.total} cases: ${unfaultedRecord!.cases.total} passed, 0 failed, 0 not run (${(unfaultedRecord!.durationMs / 1000).toFixed(1)} s)`,
    );
    const written = [
      'conformance.json',
      'summary.md',
      'certification.html',
      'junit.xml',
      'junit-cases.xml',
      'html/index.html',
      'run.log',
    ];
    expect(closing.slice(-8)).toEqual(['Reports:', ...written.map((file) => `  ${join(root, 'no-fault', file)}`)]);
  });
});

describe('each fault of the reference server', () => {
  it('every faulted run wrote its record, and the Playwright runs holding them failed', () => {
    expect(FAULTS.filter((fault) => proof.records.get(fault.name) === undefined).map((fault) => fault.name)).toEqual(
      [],
    );
    expect(proof.playwrightExitCodes.every((code) => code === 1)).toBe(true);
  });

  for (const fault of FAULTS) {
    it(`${fault.name} fails the run (verdict failed, exit 1) with ${fault.requirement} among the failed requirements, one the unfaulted run passes`, () => {
      expect(titlesOf(fault.requirement).length, `no case names ${fault.requirement}`).toBeGreaterThan(0);
      const record = proof.records.get(fault.name);
      expect(record?.requirements.find((r) => r.id === fault.requirement)?.verdict).toBe('failed');
      expect(failed(record).filter((id) => !failed(unfaultedRecord).includes(id))).toContain(fault.requirement);
      expect(record).toMatchObject({ verdict: 'failed', runStatus: 'failed' });
    });
  }
});
