// What the suite's processes read from the environment: a base URL given empty is refused, never
// read as "no target" (which, for `npx playwright test`, starts the embedded reference server).
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN } from '../run-protocol/index.ts';
import { runDescriptionOf, runLayout } from './settings.ts';

describe('runLayout', () => {
  it('starts the embedded reference server only when no base URL is set at all', () => {
    expect(runLayout({}, DEFAULT_RUN, '/kit').embedded).toBe(true);
    expect(runLayout({}, { ...DEFAULT_RUN, target: { baseUrl: 'https://staging.example.com/v3' } }, '/kit').embedded).toBe(false);
  });

  it('refuses a base URL set but empty, naming it', () => {
    expect(() => runLayout({ LAS_BASE_URL: '' }, DEFAULT_RUN, '/kit')).toThrow(/^LAS_BASE_URL is set but empty: /);
  });
});

describe('runDescriptionOf', () => {
  it('builds the description of a suite started without the run command from LAS_FAIL_LEVEL and LAS_REPORT_DIR', () => {
    expect(runDescriptionOf({ LAS_FAIL_LEVEL: 'should', LAS_REPORT_DIR: 'out' }, '/kit')).toEqual({ ...DEFAULT_RUN, failLevel: 'should', reportDir: '/kit/out', target: {} });
    expect(runDescriptionOf({}, '/kit')).toEqual({ ...DEFAULT_RUN, failLevel: 'must', reportDir: '/kit/reports/latest', target: {} });
  });

  it('takes the regression cases and signing key files from their variables, as absolute paths', () => {
    expect(runDescriptionOf({ LAS_REGRESSION_CASES: 'staging.yaml', LAS_SIGNING_KEY: 'keys/record.pem' }, '/kit')).toMatchObject({ regressionCasesFile: '/kit/staging.yaml', signingKeyFile: '/kit/keys/record.pem' });
  });

  it('takes the target from its variables, its secrets left out', () => {
    const env = { LAS_BASE_URL: 'https://staging.example.com/v3', LAS_SESSION_TOKEN: 'session-secret', LAS_PAT: 'pat-secret', LAS_HEADERS: 'X-Gateway-Key: header-secret', LAS_REQUEST_TIMEOUT_MS: '20000' };
    const described = runDescriptionOf(env, '/kit');
    expect(described.target).toEqual({ baseUrl: 'https://staging.example.com/v3', requestTimeoutMs: 20000 });
    expect(runLayout(env, described, '/kit')).toMatchObject({ embedded: false, testTimeoutMs: 80_000 });
  });

  it('takes what LAS_RUN says over the variables', () => {
    const env = { LAS_FAIL_LEVEL: 'must', LAS_REPORT_DIR: 'out', LAS_RUN: JSON.stringify({ failLevel: 'should', reportDir: '/elsewhere', readOnly: true }) };
    expect(runDescriptionOf(env, '/kit')).toMatchObject({ failLevel: 'should', reportDir: '/elsewhere', readOnly: true });
  });

  it('refuses a fail level it does not know, naming the variable', () => {
    expect(() => runDescriptionOf({ LAS_FAIL_LEVEL: 'may' }, '/kit')).toThrow(/^LAS_FAIL_LEVEL must be "must" or "should", got "may"$/);
  });
});
