// Proof that generated inputs find what the fixed suite does not: against the unfaulted reference
// server, generation as a plain run does it (the boundary phase, then DEFAULT_GENERATED_INPUTS
// random inputs from a fixed seed) passes for every operation, and judges the same requirements on
// seeds 1 to 10, with the target's records and without; with each fault that only generated inputs
// reach (`foundBy: 'generation'` in server/faults.ts), the suite's fixed cases find nothing, and a
// plain run on two seeds, and the boundary phase alone, fail the fault's requirement with a shrunk
// input sent again before it is reported: its curl line says whether the sends reproduced it (an
// intermittent fault's does not) and, run by curl, gets the fault's answer again when they did.
// In-process (the cases and the generation run as the Playwright suite runs them, without
// Playwright), so it takes seconds; the faults come from FAULTS, so a generative fault added to the
// server is proven here unchanged.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { DEFAULT_GENERATED_INPUTS, type GeneratedOperation } from '../run-protocol/index.ts';
import { reproductionText } from '../run-protocol/reproduction.ts';
import { scrubber, targetSecrets } from '../run-protocol/secrets.ts';
import { FAULTS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { CaseSkipped, directClient, referenceTarget, runSuiteCase } from '../server/test-support.ts';
import { generatedRecord, regressionCasesOfGenerated } from '../reports/generated.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { ConformanceCase } from './case.ts';
import { SUITE_CASES } from './cases/index.ts';
import { regressionSuiteCases } from './cases/regression.ts';
import { generateForOperation } from './generation/generate.ts';

const SEED = 1;
const INPUTS = DEFAULT_GENERATED_INPUTS;
const contract = loadContract();
const generative = FAULTS.filter((fault) => fault.foundBy === 'generation');

interface Generated {
  outcome: GeneratedOperation;
  /** The findings recorded on the case: the shrunk inputs' findings. */
  findings: string[];
}

async function generate(
  server: StartedReferenceServer,
  operationId: string,
  inputs = INPUTS,
  seed = SEED,
  withFixtures = true,
): Promise<Generated> {
  const reference = referenceTarget(server.baseUrl);
  const target = withFixtures ? reference : { ...reference, fixtures: {} };
  const operation = contract.operation(operationId);
  const conformance = new ConformanceCase({
    contract,
    client: directClient(server.baseUrl),
    target,
    failLevel: 'must',
    scrub: scrubber(targetSecrets(target)),
    requirements: [contract.successRequirement(operationId).id],
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  const outcome = await generateForOperation(conformance, {
    operation,
    fixtures: target.fixtures,
    inputs,
    boundary: true,
    seed,
    budgetMs: 60_000,
    blocking: ['MUST'],
  });
  return { outcome, findings: conformance.blocking().map((f) => f.requirement) };
}

/** Runs a curl line as a person would, with the target's variables exported; the status line of the answer. */
async function replay(curl: string, server: StartedReferenceServer): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', ...targetEnvironment(referenceTarget(server.baseUrl)) };
  // The line may end in a comment (what its sends showed): the options go right after `curl`.
  const line = curl.replace(/^curl /, 'curl -s --max-time 10 ');
  const { stdout } = await promisify(execFile)('bash', ['--norc', '--noprofile', '-c', line], {
    env,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.split('\r\n')[0];
}

describe('generated inputs against the unfaulted reference server', () => {
  let server: StartedReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());

  for (const operation of contract.operations) {
    it(`${operation.operationId}: the boundary phase and ${INPUTS} inputs from seed ${SEED}, valid and near-valid, and none fails a MUST`, async () => {
      const { outcome, findings } = await generate(server, operation.operationId);
      expect(findings).toEqual([]);
      expect(outcome.requirements.filter((r) => r.verdict === 'failed')).toEqual([]);
      expect(outcome.stopped).toBeUndefined();
      expect(outcome.inputs.sent).toBeGreaterThan(INPUTS);
      expect(outcome.inputs.valid).toBeGreaterThan(INPUTS / 4);
      expect(outcome.inputs.invalid).toBeGreaterThan(INPUTS / 4);
    }, 120_000);
  }
});

/** Seeds 1 to 10, each a plain run's generation: what a run judges must be the same for each. */
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

describe('what generation judges does not depend on the seed', () => {
  let server: StartedReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());

  for (const withFixtures of [true, false]) {
    const records = withFixtures ? 'with' : 'without';
    it(`seeds 1 to 10, ${records} the target's records: the same requirements judged, the same not run`, async () => {
      // The seeds run side by side: each its own cases, one server, whose answers do not depend on the order.
      const judgedOn = async (seed: number) => {
        const judged: string[] = [];
        for (const operation of contract.operations) {
          const { outcome } = await generate(server, operation.operationId, INPUTS, seed, withFixtures);
          judged.push(
            ...outcome.requirements.filter((r) => r.inputs > 0).map((r) => `${operation.operationId} ${r.id}`),
          );
        }
        return judged.sort();
      };
      const judgedBySeed = await Promise.all(SEEDS.map(judgedOn));
      expect(judgedBySeed[0].length).toBeGreaterThan(30);
      SEEDS.forEach((seed, i) =>
        expect(judgedBySeed[i], `seed ${seed} against seed ${SEEDS[0]}`).toEqual(judgedBySeed[0]),
      );
    }, 600_000);
  }
});

describe('each fault only generated inputs reach', () => {
  for (const fault of generative) {
    describe(fault.name, () => {
      let server: StartedReferenceServer;
      const boundaryOutcomes: GeneratedOperation[] = [];
      beforeAll(async () => {
        server = await startReferenceServer({ faults: [fault.name] });
      });
      afterAll(() => server.close());

      it(`the suite's fixed cases find no ${fault.requirement}`, async () => {
        const target = referenceTarget(server.baseUrl);
        const found: string[] = [];
        for (const suiteCase of SUITE_CASES)
          found.push(
            ...(await runSuiteCase(suiteCase, target, directClient(server.baseUrl))).map(
              (f) => `${suiteCase.title}: ${f.requirement} ${f.message}`,
            ),
          );
        expect(found).toEqual([]);
      }, 300_000);

      const phases = [
        { phase: `a plain run's generation from seed ${SEED}`, inputs: INPUTS, seed: SEED },
        { phase: `a plain run's generation from seed ${SEED + 1}`, inputs: INPUTS, seed: SEED + 1 },
        { phase: 'the boundary phase alone', inputs: 0, seed: SEED },
      ];
      for (const { phase, inputs, seed } of phases) {
        const sentAgain = 'sent again, its curl line saying whether it reproduced and, if so, getting the same answer';
        it(`${phase} fails ${fault.requirement} with a shrunk input ${sentAgain}`, async () => {
          const failures = [];
          for (const operation of contract.operations) {
            const { outcome, findings } = await generate(server, operation.operationId, inputs, seed);
            if (inputs === 0) boundaryOutcomes.push(outcome);
            const failed = outcome.requirements.find((r) => r.id === fault.requirement && r.verdict === 'failed');
            if (failed) failures.push({ failed, findings });
          }
          expect(failures.length, `no operation's generation failed ${fault.requirement}`).toBeGreaterThan(0);
          for (const { failed, findings } of failures) {
            expect(findings).toContain(fault.requirement);
            const counterexample = failed.counterexample!;
            expect(counterexample.curl).not.toContain(server.baseUrl);
            expect(counterexample.curl).toContain(`# ${reproductionText(counterexample)}`);
            const reproduces = counterexample.failedSends! > 1;
            const breaks = fault.intermittent ? 'now and then' : 'always';
            const said = `${reproductionText(counterexample)}; the fault breaks it ${breaks}`;
            expect(reproduces, said).toBe(!fault.intermittent);
            const again = await replay(counterexample.curl, server);
            if (reproduces) expect(again).toMatch(new RegExp(`^HTTP/1\\.1 ${counterexample.status} `));
          }
        }, 300_000);
      }

      it(`its failures kept as regression cases (run --save-cases) fail ${fault.requirement} again with nothing drawn, and pass once it is fixed`, async () => {
        // What the boundary phase alone found above; generated here when that test did not run (-t).
        const found = boundaryOutcomes.length === contract.operations.length ? boundaryOutcomes : [];
        if (found.length === 0)
          for (const operation of contract.operations)
            found.push((await generate(server, operation.operationId, 0)).outcome);
        const record = {
          generated: generatedRecord(
            { inputs: 0, seed: SEED, operationBudgetMs: 60_000, totalBudgetMs: 60_000 },
            found,
          ),
          target: { baseUrl: server.baseUrl, embedded: true, faults: [fault.name], choices: [] },
          startedAt: new Date().toISOString(),
        };
        const cases = regressionSuiteCases(regressionCasesOfGenerated(record, contract));
        const sentAgainst = async (against: StartedReferenceServer) => {
          const findings = [];
          for (const c of cases)
            findings.push(...(await runSuiteCase(c, referenceTarget(against.baseUrl), directClient(against.baseUrl))));
          return findings;
        };
        if (fault.intermittent) expect(cases, 'a failure seen once is not kept').toEqual([]);
        else {
          expect(cases.length).toBeGreaterThan(0);
          expect((await sentAgainst(server)).map((f) => f.requirement)).toContain(fault.requirement);
          const fixed = await startReferenceServer();
          try {
            const findings = await sentAgainst(fixed);
            expect(findings.filter((f) => f.level === 'MUST').map((f) => `${f.requirement}: ${f.message}`)).toEqual([]);
          } finally {
            await fixed.close();
          }
        }
      }, 300_000);
    });
  }
});
