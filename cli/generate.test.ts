// `las-conformance run --generate 200 --seed 1`, the generated cases alone (--grep), end to end:
// against the reference server every operation's generation (the boundary phase, then 200 random
// inputs) passes, the record says what it did, and what generation judged counts as judged in the
// record's requirements too; with a fault only generated inputs reach, the run fails under the fault's requirement, and
// the minimal input's curl line, run by curl, gets the 500 from a server with that fault and not
// from one without it. One such fault shows the command's path from generation to the record's
// curl line; that every one of them is found is proven in-process, for each, by
// suites/generative-fault-proof.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { CertificationRecord } from '../reports/record.ts';
import { FAULTS, startReferenceServer } from '../server/index.ts';
import { referenceTarget } from '../server/test-support.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { EXIT_FAILED, EXIT_INCOMPLETE } from './exit-codes.ts';
import { contract, itWith } from '../contract/test-support.ts';
import { runCli, runnable, RUN_NEEDS } from './test-support.ts';

/**
 * Selects the generated cases (suites/generation/cases.ts titles) and nothing else, in one worker (its start costs more
 * than the cases share).
 */
const GENERATED_ONLY = ['--grep', 'inputs generated from the contract', '--workers', '1'];
const GENERATE = ['--generate', '200', '--seed', '1'];
/** Each test runs the suite with generation: about half a minute alone, several times that beside other test files. */
const RUN_TIMEOUT_MS = 300_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-generate-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const recordIn = (reportDir: string) =>
  JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord;

/** The status a curl line gets from a reference server with these faults, run as a person would. */
async function replayStatus(curl: string, faults: string[]): Promise<number> {
  const server = await startReferenceServer({ faults });
  try {
    const env = { PATH: process.env.PATH ?? '', ...targetEnvironment(referenceTarget(server.baseUrl)) };
    // The line ends in a comment saying whether its sends reproduced it: the options go right after `curl`.
    const line = curl.replace(/^curl /, "curl -s -o /dev/null -w '%{http_code}' --max-time 10 ");
    const options = { env, encoding: 'utf8' as const, maxBuffer: 16 * 1024 * 1024 };
    const { stdout } = await promisify(execFile)('bash', ['--norc', '--noprofile', '-c', line], options);
    return Number(stdout);
  } finally {
    await server.close();
  }
}

describe('run --generate 200 --seed 1', { timeout: RUN_TIMEOUT_MS }, () => {
  const itRuns = itWith(runnable, RUN_NEEDS);
  itRuns(
    'against the reference server: every operation passes, and the record names the seed and the inputs',
    async () => {
      const reportDir = join(dir, 'plain');
      const result = await runCli([
        'run',
        '--reference-server',
        ...GENERATE,
        ...GENERATED_ONLY,
        '--report-dir',
        reportDir,
      ]);
      expect(result.code).toBe(EXIT_INCOMPLETE);
      const record = recordIn(reportDir);
      expect(record.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id)).toEqual([]);
      expect(record.generated).toMatchObject({ inputs: 200, seed: 1 });
      expect(record.generated!.operations.map((o) => o.operation)).toEqual(
        contract.operations.map((o) => o.operationId).sort(),
      );
      // The boundary phase's inputs, then the 200 random ones.
      for (const operation of record.generated!.operations)
        expect(operation.inputs.sent, operation.operation).toBeGreaterThan(230);
      // The record agrees with itself: a requirement generation judged is judged in the requirements section too.
      const judgedByGeneration = [
        ...new Set(
          record.generated!.operations.flatMap((o) => o.requirements.filter((r) => r.inputs > 0).map((r) => r.id)),
        ),
      ];
      const notRun = new Set(record.requirements.filter((r) => r.verdict === 'not-run').map((r) => r.id));
      expect(judgedByGeneration.length).toBeGreaterThan(5);
      expect(judgedByGeneration.filter((id) => notRun.has(id))).toEqual([]);
    },
  );

  const fault = FAULTS.find((f) => f.foundBy === 'generation')!;
  // That a kept case passes once the fault is gone is proven in process, for every such fault, by
  // suites/generative-fault-proof.test.ts.
  const savedAs = 'kept by --save-cases as a regression case that fails it again with generation off';
  itRuns(
    `with ${fault.name}: fails ${fault.requirement} with a minimal input whose curl line gets the 500 again, ${savedAs}`,
    async () => {
      const reportDir = join(dir, fault.name);
      const casesFile = join(dir, `${fault.name}-cases.yaml`);
      const result = await runCli([
        'run',
        '--reference-server',
        ...GENERATE,
        '--fault',
        fault.name,
        ...GENERATED_ONLY,
        '--report-dir',
        reportDir,
        '--save-cases',
        casesFile,
      ]);
      expect(result.code).toBe(EXIT_FAILED);
      const record = recordIn(reportDir);
      expect(record.requirements.find((r) => r.id === fault.requirement)?.verdict).toBe('failed');
      const examples = record.generated!.operations.flatMap((o) =>
        o.requirements.filter((r) => r.id === fault.requirement && r.counterexample).map((r) => r.counterexample!),
      );
      expect(examples.length).toBeGreaterThan(0);
      const cases = `${examples.length} regression case${examples.length === 1 ? '' : 's'}`;
      expect(result.stdout).toContain(`${casesFile}: ${cases} added from generated inputs (${fault.requirement})`);
      for (const example of examples) {
        expect(example.status).toBe(500);
        expect(await replayStatus(example.curl, [fault.name])).toBe(500);
        expect(await replayStatus(example.curl, [])).not.toBe(500);
      }
      const regression = [
        'run',
        '--reference-server',
        '--generate',
        '0',
        '--target',
        casesFile,
        '--grep',
        'regression:',
      ];
      const again = await runCli([...regression, '--fault', fault.name, '--report-dir', join(dir, 'again')]);
      expect(again.code, again.stdout).toBe(EXIT_FAILED);
      expect(recordIn(join(dir, 'again')).requirements.find((r) => r.id === fault.requirement)?.verdict).toBe('failed');
    },
  );
});
