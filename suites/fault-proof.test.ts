// Proof that the suite catches faults: `las-conformance run` against the embedded reference
// server passes with no fault (every MUST and SHOULD, zero warnings, exit 0), and with each fault
// of the catalogue the suite fails (verdict failed, which the command turns into exit 1) with the
// requirement the fault breaks among the failed ones, a requirement the unfaulted run passes.
//
// A faulted run holds only the cases that name the fault's requirement (their own or one they
// cover). That proves the claim for the whole suite: cases are independent, so a case that finds
// the fault finds it among all the others too, and a requirement failed by some cases is failed
// by the run. It also proves the cases that say they check a requirement do. Every faulted run
// runs its cases in process (test-support/in-process-run.ts: the cases the suite's workers run,
// without a Playwright worker per fault, which kept this proof to minutes on 2 cores); for each
// spec file, the first fault one of its cases finds also runs through Playwright (suites/proof-runs.ts),
// where it must fail the same requirements, so every table's failures are seen to reach the record
// and the exit code the command reports (cli/run.ts turns the failed verdict into exit 1). The
// faults come from FAULTS: a fault added to the server is proven here without a line changed.
// Faults only generated inputs reach (`foundBy: 'generation'`) are proven by
// suites/generative-fault-proof.test.ts instead.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { FAULTS as CATALOGUE } from '../server/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { startEmbeddedTarget, type EmbeddedTarget } from './embedded.ts';
import { runProof, type ProofOutcome } from './proof-runs.ts';
import { CASE_TABLES, caseTitle, SUITE_CASES, type SuiteCase } from './cases/index.ts';
import { recordAgainst } from '../test-support/in-process-run.ts';
import { hermeticEnvironment, runCli, type CliResult } from '../cli/test-support.ts';

/** The faults the fixed suite finds. */
const FAULTS = CATALOGUE.filter((fault) => fault.foundBy === undefined);

let root: string;
let unfaulted: CliResult;
let unfaultedRecord: CertificationRecord | undefined;
/** Each fault's record, its cases run in process. */
const records = new Map<string, CertificationRecord>();
/** The faults also run through Playwright: the first each spec file's cases find. */
let throughPlaywright: typeof FAULTS;
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

/** The cases that name a requirement, their own or one they cover. */
const casesNaming = (requirement: string, cases: readonly SuiteCase[] = SUITE_CASES) =>
  cases.filter((c) => c.requirements.includes(requirement) || c.covers?.includes(requirement));

function firstFaultOfEachTable(): typeof FAULTS {
  const chosen = new Set<(typeof FAULTS)[number]>();
  for (const table of Object.values(CASE_TABLES)) {
    const fault = FAULTS.find((f) => !chosen.has(f) && casesNaming(f.requirement, table).length > 0);
    if (fault) chosen.add(fault);
  }
  return [...chosen];
}

async function runFaultedInPlaywright(): Promise<void> {
  const runs = [];
  for (const fault of throughPlaywright) {
    const server = await startEmbeddedTarget([fault.name]);
    servers.push(server);
    runs.push({
      name: fault.name,
      target: resolveTarget(server.settings, loadContract().legacyHeader),
      titles: casesNaming(fault.requirement).map(caseTitle),
    });
  }
  proof = await runProof(runs, join(root, 'faults'), hermeticEnvironment());
}

async function runFaultedInProcess(): Promise<void> {
  for (const fault of FAULTS)
    records.set(fault.name, await recordAgainst([fault.name], casesNaming(fault.requirement)));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-fault-proof-'));
  throughPlaywright = firstFaultOfEachTable();
  await Promise.all([runUnfaulted(), runFaultedInPlaywright(), runFaultedInProcess()]);
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
  it('the first fault each spec file finds also ran through Playwright: every such run wrote its record and failed', () => {
    expect(throughPlaywright.length).toBeGreaterThan(0);
    expect(
      throughPlaywright.filter((fault) => proof.records.get(fault.name) === undefined).map((fault) => fault.name),
    ).toEqual([]);
    expect(proof.playwrightExitCodes.every((code) => code === 1)).toBe(true);
  });

  for (const fault of FAULTS) {
    it(`${fault.name} fails the run (verdict failed, exit 1) with ${fault.requirement} among the failed requirements, one the unfaulted run passes`, () => {
      expect(casesNaming(fault.requirement).length, `no case names ${fault.requirement}`).toBeGreaterThan(0);
      const record = records.get(fault.name);
      expect(record?.requirements.find((r) => r.id === fault.requirement)?.verdict).toBe('failed');
      expect(failed(record).filter((id) => !failed(unfaultedRecord).includes(id))).toContain(fault.requirement);
      expect(record).toMatchObject({ verdict: 'failed' });
      if (throughPlaywright.includes(fault)) {
        const inPlaywright = proof.records.get(fault.name);
        expect(inPlaywright).toMatchObject({ verdict: 'failed', runStatus: 'failed' });
        expect(failed(inPlaywright), 'the same requirements fail in process and through Playwright').toEqual(
          failed(record),
        );
      }
    });
  }
});
