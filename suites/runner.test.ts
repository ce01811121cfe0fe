// The Playwright child is told the run once: LAS_RUN carries the description and, beside it, the target's secrets;
// no other variable of the run.
import { describe, expect, it } from 'vitest';
import { contract } from '../contract/test-support.ts';
import { hermeticEnvironment } from '../cli/test-support.ts';
import { DEFAULT_RUN, REGRESSION_TITLE_MARK } from '../run-protocol/index.ts';
import type { RegressionCase } from '../targets/regression-cases.ts';
import { resolveTarget, TARGET_ENVIRONMENT } from '../targets/target.ts';
import { listCases } from './proof-runs.ts';
import { recordMessageOf, playwrightChildEnvironment } from './runner.ts';
import { RUN_ENVIRONMENT } from './settings.ts';

const REGRESSION_CASE: RegressionCase = {
  name: 'status as a number',
  requirement: 'ERR-STATUS-STRING',
  why: 'seen in production',
  // A request to the contract's first operation, sent again before anything else.
  request: { method: contract.operations[0].method, path: contract.operations[0].pathTemplate, credentials: 'session' },
};
const target = resolveTarget(
  {
    baseUrl: 'http://127.0.0.1:9/v3',
    sessionToken: 'session-secret',
    pat: 'pat-secret',
    headers: { 'X-Gateway-Key': 'header-secret' },
  },
  contract.legacyHeader,
);
const run = {
  target,
  reportDir: '/reports/run',
  failLevel: 'should' as const,
  baseEnvironment: {
    PATH: '/bin',
    [RUN_ENVIRONMENT.failLevel]: 'must',
    [RUN_ENVIRONMENT.reportDir]: 'stale',
    [TARGET_ENVIRONMENT.sessionToken]: 'stale-session-secret',
    [RUN_ENVIRONMENT.blobReport]: '1',
  },
  output: 'ignore' as const,
  regressionCases: [REGRESSION_CASE],
  signingKeyFile: '/keys/record.pem',
  run: { ...DEFAULT_RUN, requirements: ['AUTH-401-MALFORMED'], blobReport: true },
};

describe('playwrightChildEnvironment', () => {
  const env = playwrightChildEnvironment(run);
  const message = JSON.parse(env[RUN_ENVIRONMENT.run]) as { run: Record<string, unknown>; secrets: unknown };
  const description = message.run;

  const carried = 'the target but its secrets, the fail level, the report directory, the selection, regression cases';
  it(`carries ${carried} as data and the key file in the one description`, () => {
    expect(description).toMatchObject({
      failLevel: 'should',
      reportDir: '/reports/run',
      requirements: ['AUTH-401-MALFORMED'],
      blobReport: true,
      regressionCases: [REGRESSION_CASE],
      signingKeyFile: '/keys/record.pem',
      target: { baseUrl: 'http://127.0.0.1:9/v3', legacyHeader: target.legacyHeader },
    });
  });

  it('sets no second copy of what the description holds, and drops a stale one from the base environment', () => {
    expect(env[RUN_ENVIRONMENT.failLevel]).toBeUndefined();
    expect(env[RUN_ENVIRONMENT.reportDir]).toBeUndefined();
    expect(env[TARGET_ENVIRONMENT.baseUrl]).toBeUndefined();
    expect(env[RUN_ENVIRONMENT.regressionCases]).toBeUndefined();
    expect(env[RUN_ENVIRONMENT.signingKey]).toBeUndefined();
    expect(env[RUN_ENVIRONMENT.blobReport]).toBeUndefined();
    expect(env.PATH).toBe('/bin');
    expect(Object.keys(env).filter((name) => name.startsWith('LAS_'))).toEqual([RUN_ENVIRONMENT.run]);
  });

  it('carries the secrets beside the description, never in it, and in no variable of their own', () => {
    for (const token of ['session-secret', 'pat-secret', 'header-secret'])
      expect(JSON.stringify(description)).not.toContain(token);
    expect(message.secrets).toEqual({
      sessionToken: 'session-secret',
      pat: 'pat-secret',
      headers: { 'X-Gateway-Key': 'header-secret' },
    });
    expect([
      env[TARGET_ENVIRONMENT.sessionToken],
      env[TARGET_ENVIRONMENT.pat],
      env[TARGET_ENVIRONMENT.headers],
    ]).toEqual([undefined, undefined, undefined]);
  });
});

describe('the record message the suite sends back on its pipe', () => {
  it('is the record as built, or the reason there is none', () => {
    expect(recordMessageOf('{"record":{"verdict":"PASSED"}}')).toEqual({ record: { verdict: 'PASSED' } });
    expect(recordMessageOf('{"noVerdict":"the suite could not be run: a case file failed to load"}')).toEqual({
      noVerdict: 'the suite could not be run: a case file failed to load',
    });
  });

  it('is absent when the suite sent nothing, and an error when what it sent is cut or foreign', () => {
    expect(recordMessageOf('')).toBeUndefined();
    expect(() => recordMessageOf('{"record":{"verd')).toThrow(/not JSON/);
    expect(() => recordMessageOf('{"verdict":"PASSED"}')).toThrow(/neither a record nor a reason/);
  });
});

describe('the order of a run', () => {
  // Playwright deals out a run's cases file by file, in the order of the files' names; the regression cases' file
  // comes first, so an input that broke a requirement before is sent again before anything else.
  it("lists a target file's regression cases before every other case", async () => {
    const cases = await listCases(target, hermeticEnvironment(), [REGRESSION_CASE]);
    expect(cases.length).toBeGreaterThan(1);
    expect(cases[0].title).toBe(`${REGRESSION_CASE.requirement} · ${REGRESSION_TITLE_MARK}${REGRESSION_CASE.name}`);
  }, 60_000);
});
