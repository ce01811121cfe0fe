// The reporters that change the results the others read, as the configurations list them.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The reporter that decides each case's outcome in the runner (reports/case-outcome.ts), as the configurations list it. */
export const CASE_OUTCOME_REPORTER = realpathSync(fileURLToPath(new URL('../reports/case-outcome.ts', import.meta.url)));

/**
 * True when the run's reporters (the configuration's, or those of the command line's --reporter,
 * which replace them) include the case-outcome reporter: the workers then leave outcomes to it.
 */
export function outcomesDecidedByReporter(reporters: readonly (readonly [string, unknown?])[]): boolean {
  return reporters.some(([name]) => name === CASE_OUTCOME_REPORTER);
}
