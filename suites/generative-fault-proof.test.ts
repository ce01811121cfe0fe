// Proof that generated inputs find what the fixed suite does not: against the unfaulted reference
// server, generation as a plain run does it (the boundary phase, then DEFAULT_GENERATED_INPUTS
// random inputs from a fixed seed) passes for every operation; with each fault that only generated
// inputs reach (`foundBy: 'generation'` in server/faults.ts), the suite's fixed cases find nothing,
// and generation fails the fault's requirement with a shrunk input whose curl line, run by curl,
// gets the fault's answer again; so does the boundary phase alone, with random inputs off. In-process
// (the cases and the generation run as the Playwright suite runs them, without Playwright), so it
// takes seconds; the faults come from FAULTS, so a generative fault added to the server is proven
// here unchanged.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { DEFAULT_GENERATED_INPUTS, type GeneratedOperation } from '../run-protocol/index.ts';
import { scrubber, targetSecrets } from '../run-protocol/secrets.ts';
import { FAULTS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { CaseSkipped, directClient, referenceTarget, runSuiteCase } from '../server/test-support.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { ConformanceCase } from './case.ts';
import { SUITE_CASES } from './cases/index.ts';
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

async function generate(server: StartedReferenceServer, operationId: string, inputs = INPUTS): Promise<Generated> {
  const target = referenceTarget(server.baseUrl);
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
  const outcome = await generateForOperation(conformance, { operation, fixtures: target.fixtures, inputs, boundary: true, seed: SEED, budgetMs: 60_000, blocking: ['MUST'] });
  return { outcome, findings: conformance.blocking().map((f) => f.requirement) };
}

/** Runs a curl line as a person would, with the target's variables exported; the status line of the answer. */
async function replay(curl: string, server: StartedReferenceServer): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', ...targetEnvironment(referenceTarget(server.baseUrl)) };
  const { stdout } = await promisify(execFile)('bash', ['--norc', '--noprofile', '-c', `${curl} -s --max-time 10`], { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
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

describe('each fault only generated inputs reach', () => {
  for (const fault of generative) {
    describe(fault.name, () => {
      let server: StartedReferenceServer;
      beforeAll(async () => {
        server = await startReferenceServer({ faults: [fault.name] });
      });
      afterAll(() => server.close());

      it(`the suite's fixed cases find no ${fault.requirement}`, async () => {
        const target = referenceTarget(server.baseUrl);
        const found: string[] = [];
        for (const suiteCase of SUITE_CASES) found.push(...(await runSuiteCase(suiteCase, target, directClient(server.baseUrl))).map((f) => `${suiteCase.title}: ${f.requirement} ${f.message}`));
        expect(found).toEqual([]);
      }, 300_000);

      for (const [phase, inputs] of [['a plain run\'s generation (the boundary phase, then random inputs)', INPUTS], ['the boundary phase alone', 0]] as const) {
        it(`${phase} fails ${fault.requirement} with a shrunk input whose curl line gets the same answer again`, async () => {
          const failures = [];
          for (const operation of contract.operations) {
            const { outcome, findings } = await generate(server, operation.operationId, inputs);
            const failed = outcome.requirements.find((r) => r.id === fault.requirement && r.verdict === 'failed');
            if (failed) failures.push({ failed, findings });
          }
          expect(failures.length, `no operation's generation failed ${fault.requirement}`).toBeGreaterThan(0);
          for (const { failed, findings } of failures) {
            expect(findings).toContain(fault.requirement);
            const counterexample = failed.counterexample!;
            expect(counterexample.curl).not.toContain(server.baseUrl);
            expect(await replay(counterexample.curl, server)).toMatch(new RegExp(`^HTTP/1\\.1 ${counterexample.status} `));
          }
        }, 300_000);
      }
    });
  }
});
