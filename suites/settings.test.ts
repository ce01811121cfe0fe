// What the suite's processes read of their run: LAS_RUN as it is, in every process that is given
// it, and nothing else (counted: no secret's variable, no variable naming the target file); the
// LAS_* variables only in the first process of a suite started without the run command, once,
// which hands the run on in LAS_RUN and takes the variables out. A base URL given empty is refused,
// never read as "no target" (which, for `npx playwright test`, starts the embedded reference server).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contract } from '../contract/test-support.ts';
import { DEFAULT_RUN, type RunMessage } from '../run-protocol/index.ts';
import type { RegressionCase } from '../targets/regression-cases.ts';
import { DEFAULT_CREDENTIALS } from '../server/defaults.ts';
import { processRunMessage, suiteProcessSettingsOf } from './process-settings.ts';
import { runFromVariables } from './run-from-variables.ts';
import { runLayout } from './settings.ts';

/** A request a regression case sends again: to the contract's first operation. */
const { method, pathTemplate: path } = contract.operations[0];
const REGRESSION_FILE = `regressionCases:
  - name: status as a number
    requirement: ERR-STATUS-STRING
    why: seen in production
    request: { method: ${method}, path: ${path}, credentials: session }
`;
const DESCRIBED_CASE: RegressionCase = {
  name: 'described, not read',
  requirement: 'ERR-STATUS-STRING',
  why: 'the run command read it',
  request: { method, path, credentials: 'session' },
};

const root = mkdtempSync(join(tmpdir(), 'las-settings-'));
writeFileSync(join(root, 'staging.yaml'), REGRESSION_FILE);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An environment that counts how often each variable is read. */
function countingEnvironment(values: Record<string, string>): {
  env: Record<string, string | undefined>;
  reads: Map<string, number>;
} {
  const reads = new Map<string, number>();
  const count = (key: string | symbol) => {
    if (typeof key === 'string') reads.set(key, (reads.get(key) ?? 0) + 1);
  };
  const env = new Proxy<Record<string, string | undefined>>(
    { ...values },
    {
      get: (target, key, receiver) => (count(key), Reflect.get(target, key, receiver) as unknown),
      has: (target, key) => (count(key), Reflect.has(target, key)),
      getOwnPropertyDescriptor: (target, key) => (count(key), Reflect.getOwnPropertyDescriptor(target, key)),
      // A write is not a read (through the proxy, it would look up the property first).
      set: (target, key, value) => Reflect.set(target, key, value),
    },
  );
  return { env, reads };
}

/** What a person running `npx playwright test` against a target sets. */
const VARIABLES = {
  LAS_BASE_URL: 'https://staging.example.com/v3',
  LAS_SESSION_TOKEN: 'session-secret',
  LAS_PAT: 'pat-secret',
  LAS_HEADERS: 'X-Gateway-Key: header-secret',
  LAS_REQUEST_TIMEOUT_MS: '20000',
  LAS_FAIL_LEVEL: 'should',
  LAS_REGRESSION_CASES: 'staging.yaml',
  LAS_BLOB_REPORT: '1',
};

describe('runLayout', () => {
  it('starts the embedded reference server only when the description names no base URL', () => {
    expect(runLayout(DEFAULT_RUN, '/kit').embedded).toBe(true);
    expect(runLayout({ ...DEFAULT_RUN, target: { baseUrl: 'https://staging.example.com/v3' } }, '/kit').embedded).toBe(
      false,
    );
  });
});

describe('runFromVariables: the first process of a suite started without the run command', () => {
  it('builds the description from LAS_FAIL_LEVEL and LAS_REPORT_DIR; without a base URL, the embedded target', () => {
    expect(runFromVariables({ LAS_FAIL_LEVEL: 'should', LAS_REPORT_DIR: 'out' }, '/kit').run).toMatchObject({
      failLevel: 'should',
      reportDir: '/kit/out',
    });
    const embedded = runFromVariables({}, '/kit');
    expect(embedded.run).toMatchObject({ failLevel: 'must', reportDir: '/kit/reports/latest' });
    expect(embedded.run.target?.baseUrl).toBeUndefined();
    expect(embedded.secrets).toEqual(DEFAULT_CREDENTIALS);
  });

  it('reads the regression cases of the file its variable names, and takes the key file as a path', () => {
    const env = { LAS_REGRESSION_CASES: 'staging.yaml', LAS_SIGNING_KEY: 'keys/record.pem' };
    const { run } = runFromVariables(env, root);
    expect(run.regressionCases?.map((c) => c.name)).toEqual(['status as a number']);
    expect(run.signingKeyFile).toBe(join(root, 'keys/record.pem'));
  });

  it('takes the target from its variables, its secrets beside the description, never in it', () => {
    const message = runFromVariables(VARIABLES, root);
    expect(message.run.target).toEqual({ baseUrl: 'https://staging.example.com/v3', requestTimeoutMs: 20000 });
    expect(message.secrets).toEqual({
      sessionToken: 'session-secret',
      pat: 'pat-secret',
      headers: { 'X-Gateway-Key': 'header-secret' },
    });
    expect(runLayout(message.run, '/kit')).toMatchObject({ embedded: false, blobReport: true, testTimeoutMs: 80_000 });
  });

  it('refuses a base URL set but empty, and a fail level it does not know, naming the variable', () => {
    expect(() => runFromVariables({ LAS_BASE_URL: '' }, '/kit')).toThrow(/^LAS_BASE_URL is set but empty: /);
    expect(() => runFromVariables({ LAS_FAIL_LEVEL: 'may' }, '/kit')).toThrow(
      /^LAS_FAIL_LEVEL must be "must" or "should", got "may"$/,
    );
  });
});

describe('the reads of a run, counted', () => {
  it('a process told LAS_RUN reads LAS_RUN and nothing else: no secret of a variable, no target file', async () => {
    const message: RunMessage = {
      run: {
        ...DEFAULT_RUN,
        failLevel: 'should',
        target: { baseUrl: 'https://described.example.com/v3' },
        regressionCases: [DESCRIBED_CASE],
      },
      secrets: { sessionToken: 'described-session-secret', pat: 'described-pat-secret' },
    };
    // Every variable a person could have left beside it, wrong: reading any of them would show.
    const { env, reads } = countingEnvironment({
      ...VARIABLES,
      LAS_BASE_URL: '',
      LAS_FAIL_LEVEL: 'neither',
      LAS_RUN: JSON.stringify(message),
    });
    const told = await processRunMessage(env, 'test', root);
    expect(Object.fromEntries(reads)).toEqual({ LAS_RUN: 1 });
    expect(told).toEqual(message);
    const settings = suiteProcessSettingsOf(told, 'test', root).settings;
    expect(settings).toMatchObject({ sessionToken: 'described-session-secret', pat: 'described-pat-secret' });
  });

  it('the first process reads each variable once, hands the run on in LAS_RUN alone, read by its workers', async () => {
    const first = countingEnvironment(VARIABLES);
    const described = await processRunMessage(first.env, 'test', root);
    for (const [variable, count] of first.reads) expect(count, variable).toBeLessThanOrEqual(1);
    expect(described.run.regressionCases?.map((c) => c.name)).toEqual(['status as a number']);
    // The variables are gone from the environment its workers inherit: only the message is left to read.
    const inherited = Object.fromEntries(Object.keys(VARIABLES).map((name) => [name, first.env[name]]));
    expect(Object.values(inherited).every((value) => value === undefined)).toBe(true);

    const worker = countingEnvironment({ PATH: '/bin', LAS_RUN: first.env.LAS_RUN! });
    const told = await processRunMessage(worker.env, 'test', root);
    expect(Object.fromEntries(worker.reads)).toEqual({ LAS_RUN: 1 });
    expect(told).toEqual(described);
    expect(suiteProcessSettingsOf(told, 'test', root).settings).toEqual(
      suiteProcessSettingsOf(described, 'test', root).settings,
    );
  });

  it('merging reports describes the run from the variables and writes nothing into the environment', async () => {
    const { env } = countingEnvironment({ LAS_REPORT_DIR: 'merged' });
    expect((await processRunMessage(env, 'merge-reports', root)).run.reportDir).toBe(join(root, 'merged'));
    expect(env.LAS_RUN).toBeUndefined();
    expect(env.LAS_REPORT_DIR).toBe('merged');
  });
});
