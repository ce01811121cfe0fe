// Proof that the suite fails no legal reading of the specification, the mirror of the fault
// proof: the suite runs against the reference server with each choice of its catalogue on, and
// the whole suite with every compatible choice on at once (each set of compatibleChoiceSets with
// more than one choice; a set of one is that choice's own run, of the whole suite), each time
// through the validating proxy. The whole-suite runs are Playwright runs as `run` makes them,
// generated inputs included (the boundary phase, then random inputs from seed 1). A choice's own
// run, when its set holds others, holds the cases that name the requirements of the sections it
// reads (narrowed as the fault proof narrows a fault's) and runs them in process
// (test-support/in-process-run.ts: the cases the suite's workers run, without starting a Playwright
// worker per run), since the same choice meets the Playwright run of the whole suite in its set.
// Every run passes (SHOULD warnings allowed, each one a warning the choices on declare, and
// printed here; requirements a choice declares it leaves unverifiable, such as the body of a 202,
// may be reported not run as the target's own choice, which neither fails the run nor makes it
// incomplete), and the proxy writes no MUST finding about the service (direction `response` or
// `exchange`). Each run's server, a choice's own included, also gets generated inputs in process
// from several seeds (the boundary phase and random inputs), which every legal choice must pass
// too. The choices come from CHOICES: a choice added to the server is proven here without a line
// changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { startValidatingProxy, type StartedProxy, type ViolationRecord } from '../proxy/index.ts';
import { Recorder } from '../proxy/test-support.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_GENERATED_INPUTS, DEFAULT_RUN, type RunDescription } from '../run-protocol/index.ts';
import { CHOICES, compatibleChoiceSets, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { EMBEDDED_SETTINGS } from './embedded.ts';
import { resolveTarget } from '../targets/target.ts';
import { generateInProcess } from '../server/test-support.ts';
import { generatedCases } from './generation/cases.ts';
import { runProof } from './proof-runs.ts';
import { recordAt } from '../test-support/in-process-run.ts';
import { caseTitle, SUITE_CASES } from './cases/index.ts';
import { hermeticEnvironment } from '../cli/test-support.ts';

interface ChoiceRun {
  name: string;
  choices: string[];
  /** Only these cases run; absent: the whole suite. */
  titles?: string[];
  server?: StartedReferenceServer;
  proxy?: StartedProxy;
  violations: Recorder;
}

const runs: ChoiceRun[] = [
  ...CHOICES.map((choice) => ({ name: choice.name, choices: [choice.name], violations: new Recorder() })),
  ...compatibleChoiceSets()
    .filter((set) => set.length > 1)
    .map((set, index) => ({ name: `compatible-set-${index + 1}`, choices: set, violations: new Recorder() })),
];
/** Generated inputs each run sends besides the fixed cases, as a plain run does: a fixed seed, so a failure replays. */
const GENERATION: RunDescription = {
  ...DEFAULT_RUN,
  generate: { inputs: DEFAULT_GENERATED_INPUTS, seed: 1, operationBudgetMs: 60_000, totalBudgetMs: 180_000 },
};
/**
 * The seeds of the generation in process against every run's server (the boundary phase with the first), and the random
 * inputs each draws per operation.
 */
const SEEDS = [1, 2, 3];
const SEED_INPUTS = 30;

let root: string;
/** Each run's record, by its name; absent when its run wrote none. */
const records = new Map<string, CertificationRecord | undefined>();

/** The requirements of the sections a choice reads, and those it declares it may warn about or leave not run. */
function requirementsOfChoice(name: string): string[] {
  const choice = CHOICES.find((c) => c.name === name)!;
  const sections = choice.section.split(/,\s*/);
  const ofSections = loadContract()
    .requirements.filter((r) =>
      sections.some((section) => r.section === section || r.section.startsWith(`${section}.`)),
    )
    .map((r) => r.id);
  return [...new Set([...ofSections, ...choice.warns, ...(choice.leavesNotRun ?? [])])];
}

/**
 * A choice's own run, narrowed as the fault proof narrows a fault's: the cases that name a
 * requirement of the sections it reads, their own or one they cover. Side findings (a case that
 * sends to an operation judged under one of those requirements without naming it) are the whole
 * suite's: it runs with the choice on, in the run of its compatible set; a choice whose set is
 * itself runs the whole suite alone.
 */
function narrowSingleRuns(): void {
  const inSets = new Set(
    compatibleChoiceSets()
      .filter((set) => set.length > 1)
      .flat(),
  );
  for (const run of runs.filter((r) => r.choices.length === 1 && inSets.has(r.choices[0]))) {
    const named = new Set(requirementsOfChoice(run.choices[0]).flatMap(casesNaming));
    run.titles = SUITE_CASES.map(caseTitle).filter((title) => named.has(title));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-choice-proof-'));
  narrowSingleRuns();
  for (const run of runs) {
    run.server = await startReferenceServer({ port: 0, choices: run.choices });
    run.proxy = await startValidatingProxy({
      upstream: run.server.baseUrl,
      violations: run.violations,
      judgeThread: false,
      port: 0,
      adminPort: 0,
    });
  }
  const target = (run: ChoiceRun) =>
    resolveTarget({ ...EMBEDDED_SETTINGS, baseUrl: run.proxy!.baseUrl }, loadContract().legacyHeader);
  const whole = runs.filter((run) => run.titles === undefined);
  const inPlaywright = runProof(
    whole.map((run) => ({ name: run.name, target: target(run) })),
    root,
    hermeticEnvironment(),
    undefined,
    GENERATION,
  );
  for (const run of runs.filter((r) => r.titles !== undefined)) {
    const titles = new Set(run.titles);
    records.set(
      run.name,
      await recordAt(
        run.proxy!.baseUrl,
        SUITE_CASES.filter((c) => titles.has(caseTitle(c))),
      ),
    );
  }
  for (const [name, record] of (await inPlaywright).records) records.set(name, record);
  await Promise.all(runs.map((run) => run.proxy!.proxy.settled()));
}, 30 * 60_000);

afterAll(async () => {
  for (const run of runs) {
    await run.proxy?.close();
    await run.server?.close();
  }
  rmSync(root, { recursive: true, force: true });
});

const requirementsWith = (record: CertificationRecord | undefined, verdict: string) =>
  (record?.requirements ?? []).filter((r) => r.verdict === verdict).map((r) => r.id);
const declaredWarnings = (run: ChoiceRun) =>
  new Set(run.choices.flatMap((name) => CHOICES.find((c) => c.name === name)!.warns));
const declaredNotRun = (run: ChoiceRun) =>
  new Set(run.choices.flatMap((name) => CHOICES.find((c) => c.name === name)!.leavesNotRun ?? []));
/**
 * Requirements the catalogue says a target may leave nothing to judge in by its own legal answers (when a 404 is
 * answered, say): which of them a run meets depends on what the contract holds too, so no choice need declare them.
 */
const notShownByCatalogue = new Set(
  loadContract()
    .requirements.filter((r) => r.notExercised?.byTargetChoice === true)
    .map((r) => r.id),
);
/** Requirements not run for a reason other than being the proxy's to check. */
const notRunBySuite = (record: CertificationRecord | undefined) =>
  (record?.requirements ?? [])
    .filter((r) => r.verdict === 'not-run' && !r.reason?.endsWith('checked by the proxy only'))
    .map((r) => r.id);
/** The titles of the cases that name a requirement, their own or one they cover. */
const casesNaming = (id: string) =>
  SUITE_CASES.filter((c) => c.requirements.includes(id) || c.covers?.includes(id)).map(caseTitle);
const serviceFindings = (run: ChoiceRun) =>
  run.violations.lines<ViolationRecord>().filter((l) => l.direction !== 'request');

describe('the choice catalogue', () => {
  it('every choice is on in a run of its own, and in a run with the others of its compatible set', () => {
    for (const set of compatibleChoiceSets()) {
      for (const name of set)
        expect(
          runs.filter((run) => run.choices.includes(name)).map((run) => run.choices.length),
          name,
        ).toEqual(set.length > 1 ? [1, set.length] : [1]);
    }
  });

  it("every choice meets the whole suite: in its compatible set's run, or alone when its set is itself", () => {
    for (const choice of CHOICES)
      expect(
        runs.some((run) => run.choices.includes(choice.name) && run.titles === undefined),
        choice.name,
      ).toBe(true);
    for (const run of runs.filter((r) => r.titles !== undefined))
      expect(run.titles!.length, run.name).toBeGreaterThan(0);
  });
});

describe('the suite and the proxy against each legal reading', () => {
  for (const run of runs) {
    const title = run.choices.length === 1 ? run.name : `${run.name} (${run.choices.length} choices)`;

    it(`${title}: the run passes, warning only where its choices say it may`, () => {
      const record = records.get(run.name);
      const warned = requirementsWith(record, 'warning');
      if (warned.length > 0) console.log(`${run.name}: SHOULD warnings ${warned.join(', ')}`);
      expect(requirementsWith(record, 'failed'), record?.verdictReason).toEqual([]);
      expect(record).toMatchObject({ runStatus: 'passed', cases: { failed: 0 } });
      // Generated inputs run with the whole suite; a narrowed run holds only fixed cases (its server gets generated
      // inputs in process, below).
      if (run.titles === undefined)
        expect(
          record?.generated?.operations.map((o) => o.operation).sort(),
          'every operation generated its inputs',
        ).toEqual(generatedCases.map((c) => c.operation.operationId).sort());
      expect(
        (record?.generated?.operations ?? []).flatMap((o) =>
          o.requirements
            .filter((r) => r.verdict === 'failed')
            .map((r) => `${o.operation} ${r.id}: ${r.counterexample?.curl}`),
        ),
      ).toEqual([]);
      expect(warned.filter((id) => !declaredWarnings(run).has(id))).toEqual([]);
      // A narrowed run answers for the requirements all of whose cases it ran; the others are the
      // whole-suite run's (its compatible set), whatever this run says of them.
      const selected = (id: string) =>
        run.titles === undefined || casesNaming(id).every((title) => run.titles!.includes(title));
      const notRun = notRunBySuite(record).filter(
        (id) => record!.requirements.find((r) => r.id === id)!.level !== 'INFO' && selected(id),
      );
      expect(notRun.filter((id) => !declaredNotRun(run).has(id) && !notShownByCatalogue.has(id))).toEqual([]);
      expect(notRun.filter((id) => !record!.requirements.find((r) => r.id === id)!.byTargetChoice)).toEqual([]);
      expect(record!.notRun.filter(selected)).toEqual([]);
      expect(record!.verdict).toBe(run.titles === undefined || record!.notRun.length === 0 ? 'passed' : 'incomplete');
    });

    it(`${title}: the proxy in front writes no MUST finding about the service`, () => {
      const findings = serviceFindings(run);
      const shouldFindings = [...new Set(findings.filter((l) => l.level === 'SHOULD').map((l) => l.rule))];
      if (shouldFindings.length > 0) console.log(`${run.name}: proxy SHOULD findings ${shouldFindings.join(', ')}`);
      expect(
        findings
          .filter((l) => l.level === 'MUST')
          .map((l) => `${l.direction} ${l.rule} ${l.method} ${l.path} ${l.status}: ${l.message}`),
      ).toEqual([]);
    });
  }
});

describe(`generated inputs from seeds ${SEEDS.join(', ')} against each legal reading, in process`, () => {
  for (const run of runs) {
    it(`${run.name}: the boundary phase and ${SEED_INPUTS} random inputs per operation and seed, and none fails a MUST`, async () => {
      const failed: string[] = [];
      for (const [index, seed] of SEEDS.entries()) {
        for (const operation of loadContract().operations) {
          const { outcome } = await generateInProcess(run.server!.baseUrl, operation.operationId, {
            inputs: SEED_INPUTS,
            boundary: index === 0,
            seed,
          });
          failed.push(
            ...outcome.requirements
              .filter((r) => r.verdict === 'failed')
              .map(
                (r) =>
                  `seed ${seed} ${operation.operationId} ${r.id}: ${r.counterexample?.message} ${r.counterexample?.curl}`,
              ),
          );
        }
      }
      expect(failed).toEqual([]);
    }, 120_000);
  }
});
