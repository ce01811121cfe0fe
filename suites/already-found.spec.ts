// Regression cases from the target file (`run --target` reads them, or LAS_REGRESSION_CASES names
// the file for `npx playwright test`), carried as data in the run's description, as this process
// read it: the cases of cases/regression.ts. No worker reads the target file. Playwright deals out
// a run's cases file by file in the order of the files' names, so this file's name comes first: an
// input that broke a requirement before is sent again before anything else (suites/runner.test.ts
// checks the order).
import { regressionSuiteCases } from './cases/regression.ts';
import { caseHeader, test } from './fixtures.ts';
import { suiteProcessSettings } from './process-settings.ts';

const cases = regressionSuiteCases(suiteProcessSettings.described.regressionCases ?? []);
for (const c of cases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
