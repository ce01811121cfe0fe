// The kit's exit statuses, one table for every subcommand.
export const EXIT_OK = 0;
/** A MUST requirement failed (or a SHOULD under --level should). */
export const EXIT_FAILED = 1;
/** A usage error or an unreachable target. */
export const EXIT_USAGE = 2;
