// The conformance suite as a Playwright project: `las-conformance run` drives it, telling it the
// run in one message (LAS_RUN), and `npx playwright test` runs the same suite from the LAS_*
// variables (LAS_BASE_URL, LAS_SESSION_TOKEN, LAS_PAT, ...; none set: the embedded reference
// server), which its first process turns into the same message. suites/process-settings.ts reads
// it; this hands what it says on as options. API testing only: no browser is started, traces and
// screenshots are off so no request headers are kept.
import { join } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import {
  ARTIFACTS_DIR,
  BLOB_DIR,
  CASE_OUTCOME_REPORTER,
  CASES_JUNIT_FILE,
  PLAYWRIGHT_HTML_DIR,
  SECRET_SCRUBBER_REPORTER,
} from './run-protocol/index.ts';
import type { SuiteOptions } from './suites/fixtures.ts';
import { suiteProcessSettings } from './suites/process-settings.ts';
import { ignoredSpecs, titlesGrep } from './suites/settings.ts';

const { layout, suiteOptions, scrubbing, recording, described } = suiteProcessSettings;

const reporters: ReporterDescription[] = [
  // The two that change results come first (run-protocol/result-changing-reporters.ts): tokens out,
  // so every reporter after it sees results with the tokens replaced,
  [SECRET_SCRUBBER_REPORTER, scrubbing],
  // then the cases whose findings block are failed, before anything renders them.
  [CASE_OUTCOME_REPORTER, { run: recording.run }],
  ['./reports/progress-reporter.ts'],
  ['html', { outputFolder: join(layout.reportDir, PLAYWRIGHT_HTML_DIR), open: 'never' }],
  // Per case; the conformance reporter writes junit.xml, per requirement, for CI systems.
  [
    'junit',
    {
      outputFile: join(layout.reportDir, CASES_JUNIT_FILE),
      embedAnnotationsAsProperties: true,
      stripANSIControlSequences: true,
    },
  ],
  ['./reports/conformance-reporter.ts', { ...recording, outputDir: layout.reportDir }],
];
// Sharded runs: each shard writes a blob; `npx playwright merge-reports --config playwright.config.ts DIR` renders them
// all.
if (layout.blobReport) reporters.push(['blob', { outputDir: join(layout.reportDir, BLOB_DIR) }]);

export default defineConfig<object, { suiteOptions: SuiteOptions }>({
  testDir: './suites',
  testMatch: '**/*.spec.ts',
  testIgnore: ignoredSpecs(suiteOptions.generate),
  // --requirement, carried as data: the cases the run command found can judge those requirements.
  ...(described.selectedCases ? { grep: titlesGrep(described.selectedCases) } : {}),
  outputDir: join(layout.reportDir, ARTIFACTS_DIR),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: layout.workers,
  timeout: layout.testTimeoutMs,
  globalTimeout: layout.runTimeoutMs,
  globalSetup: layout.embedded ? './suites/global-setup.ts' : undefined,
  reporter: reporters,
  use: { trace: 'off', screenshot: 'off', video: 'off', suiteOptions },
});
