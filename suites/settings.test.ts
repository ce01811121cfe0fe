// What the suite's processes read from the environment: a base URL given empty is refused, never
// read as "no target" (which, for `npx playwright test`, starts the embedded reference server).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN } from '../run-protocol/index.ts';
import { runDescriptionOf, runLayout } from './settings.ts';

const REGRESSION_FILE = `regressionCases:
  - name: status as a number
    requirement: ERR-STATUS-STRING
    why: seen in production
    request: { method: GET, path: /notification-groups, credentials: session }
`;

describe('runLayout', () => {
  it('starts the embedded reference server only when no base URL is set at all', () => {
    expect(runLayout({}, DEFAULT_RUN, '/kit').embedded).toBe(true);
    expect(
      runLayout({}, { ...DEFAULT_RUN, target: { baseUrl: 'https://staging.example.com/v3' } }, '/kit').embedded,
    ).toBe(false);
  });

  it('refuses a base URL set but empty, naming it', () => {
    expect(() => runLayout({ LAS_BASE_URL: '' }, DEFAULT_RUN, '/kit')).toThrow(/^LAS_BASE_URL is set but empty: /);
  });
});

describe('runDescriptionOf', () => {
  it('builds the description of a suite started without the run command from LAS_FAIL_LEVEL and LAS_REPORT_DIR', () => {
    expect(runDescriptionOf({ LAS_FAIL_LEVEL: 'should', LAS_REPORT_DIR: 'out' }, '/kit')).toEqual({
      ...DEFAULT_RUN,
      failLevel: 'should',
      reportDir: '/kit/out',
      target: {},
    });
    expect(runDescriptionOf({}, '/kit')).toEqual({
      ...DEFAULT_RUN,
      failLevel: 'must',
      reportDir: '/kit/reports/latest',
      target: {},
    });
  });

  it('reads the regression cases of the file its variable names, and takes the key file as a path', () => {
    const root = mkdtempSync(join(tmpdir(), 'las-settings-'));
    try {
      writeFileSync(join(root, 'staging.yaml'), REGRESSION_FILE);
      const env = { LAS_REGRESSION_CASES: 'staging.yaml', LAS_SIGNING_KEY: 'keys/record.pem' };
      const described = runDescriptionOf(env, root);
      expect(described.regressionCases?.map((c) => c.name)).toEqual(['status as a number']);
      expect(described.signingKeyFile).toBe(join(root, 'keys/record.pem'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('takes the target from its variables, its secrets left out', () => {
    const env = {
      LAS_BASE_URL: 'https://staging.example.com/v3',
      LAS_SESSION_TOKEN: 'session-secret',
      LAS_PAT: 'pat-secret',
      LAS_HEADERS: 'X-Gateway-Key: header-secret',
      LAS_REQUEST_TIMEOUT_MS: '20000',
    };
    const described = runDescriptionOf(env, '/kit');
    expect(described.target).toEqual({ baseUrl: 'https://staging.example.com/v3', requestTimeoutMs: 20000 });
    expect(runLayout(env, described, '/kit')).toMatchObject({ embedded: false, testTimeoutMs: 80_000 });
  });

  it('reads LAS_RUN as it is: no variable beside it is read again, no file it names is opened', () => {
    const run = { failLevel: 'should', reportDir: '/elsewhere', readOnly: true };
    const env = {
      LAS_FAIL_LEVEL: 'neither',
      LAS_REGRESSION_CASES: '/no/such/target.yaml',
      LAS_RUN: JSON.stringify(run),
    };
    expect(runDescriptionOf(env, '/kit')).toEqual({ ...DEFAULT_RUN, ...run });
  });

  it('refuses a fail level it does not know, naming the variable', () => {
    expect(() => runDescriptionOf({ LAS_FAIL_LEVEL: 'may' }, '/kit')).toThrow(
      /^LAS_FAIL_LEVEL must be "must" or "should", got "may"$/,
    );
  });
});
