// Through Playwright itself: the run's configuration, with the case-outcome reporter taken out of
// its reporters, ends without a verdict and the run command's one line names it; the same
// configuration with every reporter in place gets past that check (Playwright hands reporters the
// names the configuration lists, so the check compares like with like).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { CASE_OUTCOME } from '../run-protocol/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { CONFIG_FILE, ROOT, runSuite } from './runner.ts';

/** The suite's configuration over `testDir`, every path in it made absolute, its reporters but `leftOut`. */
function configOver(testDir: string, leftOut: string | undefined): string {
  return `import { resolve } from 'node:path';
import base from ${JSON.stringify(CONFIG_FILE)};
const absolute = (path) => (typeof path === 'string' && path.startsWith('.') ? resolve(${JSON.stringify(ROOT)}, path) : path);
const reporter = base.reporter.filter(([name]) => name !== ${JSON.stringify(leftOut)}).map(([name, options]) => [absolute(name), options]);
export default { ...base, testDir: ${JSON.stringify(testDir)}, globalSetup: undefined, reporter };
`;
}

const CONFIGURATIONS = [
  {
    name: 'without the case-outcome reporter',
    leftOut: CASE_OUTCOME.file,
    noVerdict: new RegExp(`^the configuration leaves out ${CASE_OUTCOME.name.replace(/[.()]/g, '\\$&')}, `),
  },
  {
    name: 'with every reporter',
    leftOut: undefined,
    noVerdict: /^the data of 1 case cannot be read.*left no verdict data/,
  },
];

describe('a configuration that leaves out a reporter that changes results', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'las-left-out-'));
    // A case that passes without leaving outcome data: with every reporter the record refuses it, for its own reason.
    writeFileSync(
      join(dir, 'plain.spec.ts'),
      `import { test } from ${JSON.stringify(join(ROOT, 'suites/fixtures.ts'))};\ntest('passes without data', () => undefined);\n`,
    );
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [index, configuration] of CONFIGURATIONS.entries()) {
    const says = configuration.leftOut ? 'which' : 'something else';
    it(`${configuration.name}: the run's one line says ${says}`, async () => {
      const config = join(dir, `playwright-${index}.config.ts`);
      writeFileSync(config, configOver(dir, configuration.leftOut));
      const target = resolveTarget(
        { baseUrl: 'http://127.0.0.1:9/v3', sessionToken: 'left-out-session', pat: 'left-out-pat' },
        loadContract().legacyHeader,
      );
      const outcome = await runSuite({
        target,
        reportDir: join(dir, `report-${index}`),
        failLevel: 'must',
        workers: 1,
        config,
        baseEnvironment: { PATH: process.env.PATH },
        output: 'ignore',
      });
      expect(outcome.record).toBeUndefined();
      expect(outcome.noVerdict).toMatch(configuration.noVerdict);
    }, 90_000);
  }
});
