// A case file that fails to load is an error of the run, never "no case matches": the run has no
// verdict, and the run command's one line is the error itself. The real suite's configuration runs
// a test directory holding one spec file whose case table throws while it is built.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { CONFIG_FILE, ROOT, runSuite } from './runner.ts';

const BROKEN_TABLE = 'the case table cannot be built: the contract accepts this input';

/** The suite's configuration, every path in it made absolute, over `testDir`. */
function configOver(testDir: string): string {
  return `import { resolve } from 'node:path';
import base from ${JSON.stringify(CONFIG_FILE)};
const absolute = (path) => (typeof path === 'string' && path.startsWith('.') ? resolve(${JSON.stringify(ROOT)}, path) : path);
export default { ...base, testDir: ${JSON.stringify(testDir)}, globalSetup: undefined, reporter: base.reporter.map(([name, options]) => [absolute(name), options]) };
`;
}

describe('a case file that fails to load', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'las-load-errors-'));
    writeFileSync(
      join(dir, 'broken.spec.ts'),
      `import { test } from ${JSON.stringify(join(ROOT, 'suites/fixtures.ts'))};\nthrow new Error(${JSON.stringify(BROKEN_TABLE)});\ntest('never collected', () => undefined);\n`,
    );
    writeFileSync(join(dir, 'playwright.config.ts'), configOver(dir));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no record, and says why in the error itself', async () => {
    const target = resolveTarget(
      { baseUrl: 'http://127.0.0.1:9/v3', sessionToken: 'load-error-session', pat: 'load-error-pat' },
      loadContract().legacyHeader,
    );
    const outcome = await runSuite({
      target,
      reportDir: join(dir, 'report'),
      failLevel: 'must',
      workers: 1,
      config: join(dir, 'playwright.config.ts'),
      baseEnvironment: { PATH: process.env.PATH },
      output: 'ignore',
    });
    expect(outcome.record).toBeUndefined();
    expect(outcome.noVerdict).toMatch(
      new RegExp(`^the suite could not be run: .*broken\\.spec\\.ts:\\d+: .*${BROKEN_TABLE}`),
    );
  }, 60_000);
});
