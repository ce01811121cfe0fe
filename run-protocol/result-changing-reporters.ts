// The reporters that change the results the others read, as the configurations list them. Each
// stays only where the test runner leaves no other way (its header says why), comes before every
// reporter that reads what it changes, and fails the run, naming itself, when it throws or is left
// out: a case must never look passed in one report and failed in the record.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const reporterFile = (path: string): string => realpathSync(fileURLToPath(new URL(path, import.meta.url)));

export interface ResultChangingReporter {
  file: string;
  /** How a line of the run names it. */
  name: string;
}

/** Replaces tokens in every result before the others read it. */
export const SECRET_SCRUBBER: ResultChangingReporter = {
  file: reporterFile('../reports/secret-scrubber.ts'),
  name: 'the secret scrubber (reports/secret-scrubber.ts)',
};

/** Decides each case's outcome in the runner. */
export const CASE_OUTCOME: ResultChangingReporter = {
  file: reporterFile('../reports/case-outcome.ts'),
  name: 'the case-outcome reporter (reports/case-outcome.ts)',
};

/** The case-outcome reporter's file, as the configurations list it. */
export const CASE_OUTCOME_REPORTER = CASE_OUTCOME.file;
/** The secret scrubber's file, as the configurations list it. */
export const SECRET_SCRUBBER_REPORTER = SECRET_SCRUBBER.file;

/** In the order a configuration lists them: tokens out first, then outcomes, then every other reporter. */
export const RESULT_CHANGING_REPORTERS: readonly ResultChangingReporter[] = [SECRET_SCRUBBER, CASE_OUTCOME];

type ReporterList = readonly (readonly [string, unknown?])[];

/**
 * The result-changing reporters a list of reporters leaves out, or lists after a reporter that
 * reads what they change (the renderings would then show results before they are changed).
 */
export function reportersLeftOut(reporters: ReporterList): ResultChangingReporter[] {
  const names = reporters.map(([name]) => name);
  const firstReader = names.findIndex((name) => !RESULT_CHANGING_REPORTERS.some((r) => r.file === name));
  return RESULT_CHANGING_REPORTERS.filter((reporter) => {
    const at = names.indexOf(reporter.file);
    return at < 0 || (firstReader >= 0 && at > firstReader);
  });
}

/** The result-changing reporter an error names at its start, if any: how a run tells its failure from others. */
export function failedReporterOf(message: string): ResultChangingReporter | undefined {
  return RESULT_CHANGING_REPORTERS.find((reporter) => message.replace(/^Error: /, '').startsWith(reporter.name));
}

/**
 * True when the run's reporters (the configuration's, or those of the command line's --reporter,
 * which replace them) include the case-outcome reporter: the workers then leave outcomes to it.
 */
export function outcomesDecidedByReporter(reporters: ReporterList): boolean {
  return reporters.some(([name]) => name === CASE_OUTCOME_REPORTER);
}
