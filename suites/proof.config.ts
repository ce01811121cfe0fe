// The Playwright configuration of the fault and choice proofs: the conformance suite, with the
// reporters that decide each case's verdict, once per target as one project each (targets from
// LAS_PROOF_TARGETS), and a certification record per project. One Playwright run then starts its
// runner once for many targets instead of once each.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { proofTargetsOf, titlesGrep } from './proof-targets.ts';
import { runLayout } from './settings.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const layout = runLayout(process.env, root);
const targets = proofTargetsOf(process.env);

export default defineConfig<object, { targetEnvironment: Record<string, string> }>({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: join(layout.reportDir, 'artifacts'),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 1,
  timeout: layout.testTimeoutMs,
  // Each target gets the time a run of its own would.
  globalTimeout: layout.runTimeoutMs * targets.length,
  metadata: { failLevel: layout.failLevel },
  reporter: [
    // In the order the run command's configuration has them: tokens out first, then verdicts.
    ['../reports/secret-scrubber.ts'],
    ['../reports/case-verdict.ts'],
    ['./proof-reporter.ts', { outputDir: layout.reportDir }],
  ],
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  projects: targets.map((target) => ({ name: target.name, use: { targetEnvironment: target.environment }, ...(target.titles ? { grep: titlesGrep(target.titles) } : {}) })),
});
