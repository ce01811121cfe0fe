// Finds a program a group of tests needs from the system (Debian's Chromium, promtool): the one an
// environment variable names, else the Debian path. Without it those tests are skipped with one
// line, unless a "required" variable is set, in which case they run and the missing program fails them.
import { existsSync } from 'node:fs';

export type Environment = Record<string, string | undefined>;

export interface ExecutableLookup {
  /** The variable naming the executable. */
  executable: string;
  /** Where Debian's package puts it. */
  debianPath: string;
  /** Variables any one of which makes the tests run without it (and fail). */
  required: readonly string[];
}

export interface ExecutableChoice {
  /** The executable to run, when one exists. */
  executablePath?: string;
  /** A required variable is set: the tests run (and fail) even without it. */
  required: boolean;
  /** Where it was looked for, for the messages. */
  lookedAt: string;
}

const isSet = (value: string | undefined) => ['1', 'true', 'yes'].includes((value ?? '').toLowerCase());

/** Which executable the tests would use, from the environment and what exists on disk. */
export function chooseExecutable(
  lookup: ExecutableLookup,
  env: Environment,
  exists: (path: string) => boolean = existsSync,
): ExecutableChoice {
  const named = env[lookup.executable];
  const candidate = named || lookup.debianPath;
  const required = lookup.required.some((name) => isSet(env[name]));
  return {
    ...(exists(candidate) ? { executablePath: candidate } : {}),
    required,
    lookedAt: named ? `${lookup.executable}=${named}` : lookup.debianPath,
  };
}
