// The kit's exit statuses, one table for every subcommand (docs/reference.md: "Verdict and exit codes").
export const EXIT_OK = 0;
/**
 * A MUST requirement failed (or a SHOULD under --level should), past waivers and baseline; `diff`: a regression;
 * `verify`: the record does not hold.
 */
export const EXIT_FAILED = 1;
/**
 * A usage error, an unreachable or misconfigured target (preflight), a case file that fails to load, or a verdict that
 * cannot be read.
 */
export const EXIT_USAGE = 2;
/**
 * Nothing failed, but requirements the run had to check were not run (a selection, a missing input) or not exercised;
 * --allow-partial turns it into 0.
 */
export const EXIT_INCOMPLETE = 3;

export const EXIT_CODES: { code: number; meaning: string }[] = [
  {
    code: EXIT_OK,
    meaning:
      'passed: nothing failed (run: every requirement the run had to check was judged, or --allow-partial; waived and baseline failures do not count)',
  },
  {
    code: EXIT_FAILED,
    meaning:
      'failed: a MUST requirement failed (with --level should, a SHOULD warned); diff: a requirement newly fails; verify: the record does not hold; judge: the service broke a MUST; replay: a MUST violation still reproduces or changed',
  },
  {
    code: EXIT_USAGE,
    meaning:
      'usage error, unreachable or misconfigured target (the preflight), a case file that fails to load, or a verdict that cannot be read: one line says what to check (for a case file, its error)',
  },
  {
    code: EXIT_INCOMPLETE,
    meaning:
      'incomplete: nothing failed, but requirements were not run (--grep, --requirement, a shard, --read-only, no forbidden token or fixtures) or not exercised (no check that can break them had an exchange to judge); replay: requests were not sent (writes or method overrides without --allow-writes, credentials the run cannot supply)',
  },
];
