// The Playwright configuration of the fault and choice proofs: the conformance suite, with the
// reporters that decide each case's verdict, once per target as one project each (targets from
// LAS_PROOF_TARGETS), and a certification record per project. One
// Playwright run then starts its runner once for many targets instead of once each.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { CASE_OUTCOME_REPORTER, SECRET_SCRUBBER_REPORTER } from '../run-protocol/index.ts';
import type { SuiteOptions } from './fixtures.ts';
import { suiteProcessSettings } from './process-settings.ts';
import { proofTargetsOf } from './proof-targets.ts';
import { ignoredSpecs, titlesGrep } from './settings.ts';

const { layout, suiteOptions, scrubbing, recording } = suiteProcessSettings;
const targets = proofTargetsOf(process.env);

export default defineConfig<object, { suiteOptions: SuiteOptions; targetEnvironment: Record<string, string> }>({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  testIgnore: ignoredSpecs(suiteOptions.generate),
  outputDir: join(layout.reportDir, 'artifacts'),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 1,
  timeout: layout.testTimeoutMs,
  // Each target gets the time a run of its own would.
  globalTimeout: layout.runTimeoutMs * targets.length,
  reporter: [
    // In the order the run command's configuration has them: tokens out first, then verdicts.
    [SECRET_SCRUBBER_REPORTER, scrubbing],
    [CASE_OUTCOME_REPORTER, { run: recording.run }],
    ['./proof-reporter.ts', { ...recording, outputDir: layout.reportDir, targets }],
  ],
  use: { trace: 'off', screenshot: 'off', video: 'off', suiteOptions },
  projects: targets.map((target) => ({
    name: target.name,
    use: { targetEnvironment: target.environment },
    ...(target.titles ? { grep: titlesGrep(target.titles) } : {}),
  })),
});
