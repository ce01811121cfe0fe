// Regression cases from the target file (`run --target` reads them, or LAS_REGRESSION_CASES names
// the file for `npx playwright test`), carried as data in the run's description: the cases of
// cases/regression.ts, alongside the suite. No worker reads the target file.
import { regressionSuiteCases } from './cases/regression.ts';
import { caseHeader, test } from './fixtures.ts';
import { describedRun } from './settings.ts';

const cases = regressionSuiteCases(describedRun(process.env)?.regressionCases ?? []);
for (const c of cases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
