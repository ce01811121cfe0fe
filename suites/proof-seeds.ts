// The seed sweep (`npm run proofs:seeds`; `-- --seeds 3-5` for others than 1 to 10): plain runs, the
// fixed cases, the boundary phase and the default number of random inputs, as `run --seed N` sends
// them, on each seed against the reference server, against it with each fault only generated inputs
// reach (`foundBy: 'generation'`) and with each legal choice on (`-- --choices sets`: each set of
// compatible choices on at once instead). A run passes the reference server and every choice, and
// fails each fault's requirement, on every seed; what each target's run judges and leaves not run is
// the same on every seed. It prints a line per target and the seeds that broke a rule, and exits 1
// when any did. `-- --random-in-process` sends only each seed's random inputs, in process, to each
// choice on its own. On 2 cores a seed of plain runs took 14 minutes with every target (52 runs), and
// under 3 for the reference server, five faults and the three sets of choices, so `npm test` runs the
// proofs on fewer seeds (choice-proof, generative-fault-proof) and this is run by hand when generation
// or the catalogue changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hermeticEnvironment } from '../cli/test-support.ts';
import { DEFAULT_GENERATION_BUDGET_SECONDS, DEFAULT_OPERATION_BUDGET_SECONDS } from '../cli/run.ts';
import { loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_GENERATED_INPUTS, DEFAULT_RUN, type RunDescription } from '../run-protocol/index.ts';
import {
  CHOICES,
  compatibleChoiceSets,
  FAULTS,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { generateInProcess } from '../server/test-support.ts';
import { EMBEDDED_SETTINGS } from './embedded.ts';
import { runProof } from './proof-runs.ts';

interface SweepTarget {
  name: string;
  faults: string[];
  choices: string[];
  /** The requirement the run must fail (a fault's); absent: the run must fail none. */
  fails?: string;
  server?: StartedReferenceServer;
}

interface SeedOutcome {
  /** What broke the target's rule on this seed; empty: nothing. */
  problems: string[];
  /** The requirements the run judged (every verdict but not run) and those it did not run, one text. */
  judged: string;
}

/**
 * The targets: the reference server, each fault only generation reaches, and each choice on its own (`--choices each`)
 * or each set of compatible choices on at once (`--choices sets`: 3 runs a seed instead of 35, for a sweep of many
 * seeds on a small machine).
 */
function sweepTargets(choices: 'each' | 'sets'): SweepTarget[] {
  const choiceRuns =
    choices === 'each'
      ? CHOICES.map((choice) => ({ name: `choice-${choice.name}`, faults: [], choices: [choice.name] }))
      : compatibleChoiceSets().map((set, index) => ({ name: `choice-set-${index + 1}`, faults: [], choices: set }));
  return [
    { name: 'reference', faults: [], choices: [] },
    ...FAULTS.filter((fault) => fault.foundBy === 'generation').map((fault) => ({
      name: `fault-${fault.name}`,
      faults: [fault.name],
      choices: [],
      fails: fault.requirement,
    })),
    ...choiceRuns,
  ];
}

function seedsOf(text: string): number[] {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) throw new Error(`--seeds takes N or N-M, not "${text}"`);
  const first = Number(match[1]);
  const last = Number(match[2] ?? match[1]);
  if (last < first) throw new Error(`--seeds ${text}: the last seed comes before the first`);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function plainRun(seed: number): RunDescription {
  return {
    ...DEFAULT_RUN,
    generate: {
      inputs: DEFAULT_GENERATED_INPUTS,
      seed,
      operationBudgetMs: 1000 * DEFAULT_OPERATION_BUDGET_SECONDS,
      totalBudgetMs: 1000 * DEFAULT_GENERATION_BUDGET_SECONDS,
    },
  };
}

function outcomeOf(target: SweepTarget, record: CertificationRecord | undefined): SeedOutcome {
  if (!record) return { problems: ['no record'], judged: '' };
  const failed = record.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id);
  const problems = target.fails
    ? failed.includes(target.fails)
      ? []
      : [`${target.fails} not failed (failed: ${failed.join(', ') || 'none'})`]
    : failed.map((id) => `${id} failed`);
  const notRun = record.requirements.filter((r) => r.verdict === 'not-run').map((r) => r.id);
  const judged = record.requirements.filter((r) => r.verdict !== 'not-run').map((r) => r.id);
  return { problems, judged: `judged ${judged.sort().join(' ')} | not run ${notRun.sort().join(' ')}` };
}

async function sweep(seeds: number[], targets: SweepTarget[]): Promise<boolean> {
  const root = mkdtempSync(join(tmpdir(), 'las-seed-sweep-'));
  const outcomes = new Map<string, Map<number, SeedOutcome>>(targets.map((t) => [t.name, new Map()]));
  try {
    for (const seed of seeds) {
      const started = Date.now();
      // A fresh server per seed: a fault that counts requests starts from nothing, as it would in a run of its own.
      for (const target of targets)
        target.server = await startReferenceServer({ port: 0, faults: target.faults, choices: target.choices });
      const runs = targets.map((target) => ({
        name: target.name,
        target: resolveTarget({ ...EMBEDDED_SETTINGS, baseUrl: target.server!.baseUrl }, loadContract().legacyHeader),
      }));
      const proof = await runProof(runs, join(root, `seed-${seed}`), hermeticEnvironment(), undefined, plainRun(seed));
      for (const target of targets) {
        outcomes.get(target.name)!.set(seed, outcomeOf(target, proof.records.get(target.name)));
        await target.server!.close();
        target.server = undefined;
      }
      process.stdout.write(`seed ${seed}: ${targets.length} runs in ${Math.round((Date.now() - started) / 1000)} s\n`);
    }
  } finally {
    for (const target of targets) if (target.server) await target.server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return report(outcomes, seeds, targets);
}

function report(outcomes: Map<string, Map<number, SeedOutcome>>, seeds: number[], targets: SweepTarget[]): boolean {
  let held = true;
  for (const target of targets) {
    const bySeed = outcomes.get(target.name)!;
    const broken = seeds.filter((seed) => bySeed.get(seed)!.problems.length > 0);
    const judgedSets = new Set(seeds.map((seed) => bySeed.get(seed)!.judged));
    const rule = target.fails ? `fails ${target.fails}` : 'passes';
    const sameSets = judgedSets.size === 1 ? 'the same judged and not-run sets' : `${judgedSets.size} different sets`;
    const line = `${target.name}: ${rule} on ${seeds.length - broken.length} of ${seeds.length} seeds; ${sameSets}`;
    process.stdout.write(`${line}\n`);
    for (const seed of broken) process.stdout.write(`  seed ${seed}: ${bySeed.get(seed)!.problems.join('; ')}\n`);
    if (broken.length > 0 || judgedSets.size !== 1) held = false;
  }
  process.stdout.write(
    held
      ? `Held: ${targets.length} targets on seeds ${seeds[0]} to ${seeds.at(-1)}\n`
      : 'Not held: see the lines above\n',
  );
  return held;
}

/**
 * `--random-in-process`: each choice on its own, and on each seed the random inputs of a plain run (the default count
 * per operation; the boundary phase draws nothing from the seed) sent to it in process, none failing a MUST. Minutes
 * where plain runs of every choice on every seed take hours.
 */
async function randomInputsInProcess(seeds: number[]): Promise<boolean> {
  let held = true;
  for (const choice of CHOICES) {
    const server = await startReferenceServer({ port: 0, choices: [choice.name] });
    const broken: { seed: number; line: string }[] = [];
    try {
      for (const seed of seeds)
        for (const { operationId } of loadContract().operations) {
          const job = { inputs: DEFAULT_GENERATED_INPUTS, boundary: false, seed };
          const { outcome } = await generateInProcess(server.baseUrl, operationId, job);
          for (const r of outcome.requirements.filter((r) => r.verdict === 'failed'))
            broken.push({ seed, line: `seed ${seed} ${operationId} ${r.id}: ${r.counterexample?.message}` });
        }
    } finally {
      await server.close();
    }
    const passed = seeds.filter((seed) => !broken.some((b) => b.seed === seed)).length;
    process.stdout.write(`choice-${choice.name}: random inputs pass on ${passed} of ${seeds.length} seeds\n`);
    for (const { line } of broken) process.stdout.write(`  ${line}\n`);
    if (broken.length > 0) held = false;
  }
  process.stdout.write(held ? `Held: ${CHOICES.length} choices\n` : 'Not held: see the lines above\n');
  return held;
}

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1-10' },
    choices: { type: 'string', default: 'each' },
    // Some targets only, by the names the lines print: `--only reference,fault-largest-limit-500`.
    only: { type: 'string' },
    'random-in-process': { type: 'boolean', default: false },
  },
});
if (values.choices !== 'each' && values.choices !== 'sets') throw new Error('--choices takes each or sets');
const only = values.only?.split(',');
const chosen = sweepTargets(values.choices).filter((target) => !only || only.includes(target.name));
const unknown = only?.filter((name) => !chosen.some((target) => target.name === name)) ?? [];
if (unknown.length > 0) throw new Error(`--only names no target ${unknown.join(', ')}`);
const seeds = seedsOf(values.seeds);
const held = values['random-in-process'] ? await randomInputsInProcess(seeds) : await sweep(seeds, chosen);
process.exitCode = held ? 0 : 1;
