// promtool (Debian's prometheus package) checks the proxy's /metrics. Without it that test is
// skipped (the global setup prints one line saying how to enable it); with LAS_REQUIRE_PROMTOOL=1
// (or LAS_REQUIRE_BROWSER=1, which CI sets) it runs anyway, so a missing promtool fails it.
import { chooseExecutable, type Environment, type ExecutableChoice } from './executable.ts';

export const PROMTOOL_ENVIRONMENT = {
  executable: 'LAS_PROMTOOL',
  required: ['LAS_REQUIRE_PROMTOOL', 'LAS_REQUIRE_BROWSER'],
} as const;
export const DEBIAN_PROMTOOL = '/usr/bin/promtool';

export type PromtoolChoice = ExecutableChoice;

export function choosePromtool(env: Environment, exists?: (path: string) => boolean): PromtoolChoice {
  return chooseExecutable({ ...PROMTOOL_ENVIRONMENT, debianPath: DEBIAN_PROMTOOL }, env, exists);
}

export function promtoolMissingLine(choice: PromtoolChoice): string {
  return `promtool test skipped: no promtool at ${choice.lookedAt}. To run it, install Debian's prometheus (apt-get install prometheus) or set ${PROMTOOL_ENVIRONMENT.executable}; LAS_REQUIRE_PROMTOOL=1 makes a missing promtool fail it.`;
}

export const promtoolChoice = choosePromtool(process.env);

/** True when the promtool test runs: promtool exists, or it is required (and its absence fails the test). */
export const promtoolTestRuns = promtoolChoice.executablePath !== undefined || promtoolChoice.required;
