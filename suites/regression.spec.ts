// Regression cases from the target file (LAS_REGRESSION_CASES names it; `run --target` sets it):
// the cases of cases/regression.ts, alongside the suite.
import { suiteProcessSettings } from '../cli/environment.ts';
import { regressionSuiteCases } from './cases/regression.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of regressionSuiteCases(suiteProcessSettings.regressionCases())) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
