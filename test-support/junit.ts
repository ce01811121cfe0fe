// JUnit files as a CI system reads them: test-results-parser, the parser that test-reporting
// tools built on it use, turns a file into suites and cases with a status (PASS, FAIL, SKIP), the
// failure message, duration and properties. Tests read the kit's JUnit through it, not by regex.
import { createRequire } from 'node:module';
import type { ITestCase, ITestResult } from 'test-results-parser';

const { parse } = createRequire(import.meta.url)('test-results-parser') as typeof import('test-results-parser');

export function readJunit(file: string): ITestResult {
  return parse({ type: 'junit', files: [file] });
}

export function junitCases(result: ITestResult): ITestCase[] {
  return result.suites.flatMap((suite) => suite.cases);
}

/** The cases a CI panel shows red. */
export function redCases(result: ITestResult): ITestCase[] {
  return junitCases(result).filter((c) => c.status === 'FAIL');
}
