// promtool (Debian's prometheus package) checks the proxy's /metrics. Without it that test is
// skipped (the global setup prints one line saying how to enable it); with LAS_REQUIRE_PROMTOOL=1
// (or LAS_REQUIRE_BROWSER=1, which CI sets) it runs anyway, so a missing promtool fails it.
import { existsSync } from 'node:fs';

type Environment = Record<string, string | undefined>;

export const PROMTOOL_ENVIRONMENT = { executable: 'LAS_PROMTOOL', required: ['LAS_REQUIRE_PROMTOOL', 'LAS_REQUIRE_BROWSER'] } as const;
export const DEBIAN_PROMTOOL = '/usr/bin/promtool';

export interface PromtoolChoice {
  executablePath?: string;
  required: boolean;
  lookedAt: string;
}

export function choosePromtool(env: Environment, exists: (path: string) => boolean = existsSync): PromtoolChoice {
  const named = env[PROMTOOL_ENVIRONMENT.executable];
  const candidate = named || DEBIAN_PROMTOOL;
  const required = PROMTOOL_ENVIRONMENT.required.some((name) => ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase()));
  return { ...(exists(candidate) ? { executablePath: candidate } : {}), required, lookedAt: named ? `${PROMTOOL_ENVIRONMENT.executable}=${named}` : DEBIAN_PROMTOOL };
}

export function promtoolMissingLine(choice: PromtoolChoice): string {
  return `promtool test skipped: no promtool at ${choice.lookedAt}. To run it, install Debian's prometheus (apt-get install prometheus) or set ${PROMTOOL_ENVIRONMENT.executable}; LAS_REQUIRE_PROMTOOL=1 makes a missing promtool fail it.`;
}

export const promtoolChoice = choosePromtool(process.env);

/** True when the promtool test runs: promtool exists, or it is required (and its absence fails the test). */
export const promtoolTestRuns = promtoolChoice.executablePath !== undefined || promtoolChoice.required;
