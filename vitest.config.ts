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

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'suites/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', plainSummaryLine],
    // Says once why the browser tests are skipped when no browser is found.
    globalSetup: ['test-support/browser-notice.ts'],
  },
});
