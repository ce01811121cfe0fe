// Playwright catches an exception a reporter throws, passes it to every reporter's onError and
// goes on. A reporter that changes results therefore throws an error that names it at its start:
// the conformance reporter tells it from other errors by that name and makes it the run's one line.
import type { ResultChangingReporter } from '../run-protocol/index.ts';

/** The error a result-changing reporter throws when one of its hooks failed: its name, then the first line of why. */
export function reporterFailure(reporter: ResultChangingReporter, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`${reporter.name} failed: ${message.split('\n')[0]}`, { cause: error });
}

/** Runs one hook of a result-changing reporter; what it throws is rethrown naming the reporter. */
export function namingFailures<T>(reporter: ResultChangingReporter, hook: () => T): T {
  try {
    return hook();
  } catch (error) {
    throw reporterFailure(reporter, error);
  }
}
