import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with a plain "N passed, N failed, N skipped" line that any CI log reader understands. */
const plainSummaryLine: Reporter = {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed' || state === 'failed' || state === 'skipped') count[state] += 1;
      }
    }
    process.stdout.write(`\nTests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  },
};

/**
 * Test files that change process-wide state another file would see: each runs in a fresh module
 * graph. The rest share one per worker, which saves loading and compiling the contract per file.
 */
const ISOLATED_FILES = [
  // Points the process-wide contract at a copy of schemas/ with one more operation (useSchemaDirectory).
  'suites/new-operation.test.ts',
  // Points the process-wide contract at a copy of schemas/ that names one more kind of record.
  'targets/new-record-kind.test.ts',
  // Points the process-wide contract at copies of schemas/, each without one operation (modules reset in between).
  'suites/removal.test.ts',
];

/**
 * The proofs run the suite against the reference server dozens of times; `npm run test:quick`
 * leaves out their project.
 */
const PROOF_FILES = [
  'suites/choice-proof.test.ts',
  'suites/fault-proof.test.ts',
  'suites/generative-fault-proof.test.ts',
];

const EXCLUDED = ['node_modules/**', 'suites/**/*.spec.ts'];

export default defineConfig({
  test: {
    // One worker per core. The files that wait on child processes (Playwright runs, the CLI,
    // servers) leave their core to those children; a third worker on 2 cores only added module
    // loading and contention (measured: 6 to 20 CPU-seconds more a quick run, none shorter).
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['**/*.test.ts'],
          exclude: [...EXCLUDED, ...ISOLATED_FILES, ...PROOF_FILES],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED_FILES, exclude: EXCLUDED, isolate: true } },
      { extends: true, test: { name: 'proofs', include: PROOF_FILES, exclude: EXCLUDED, isolate: false } },
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', plainSummaryLine],
    // Says once why the browser tests are skipped when no browser is found.
    globalSetup: ['test-support/browser-notice.ts'],
  },
});
