// The reference server's documented choices where the specification leaves a value open
// (docs/certification.md §4 and §5), and the public test values it starts with.
import { createHash } from 'node:crypto';
import { loadContract, recordKinds } from '../contract/index.ts';

/** Public test credentials: the reference server is a test target, never a real service. */
export const DEFAULT_CREDENTIALS = {
  sessionToken: 'reference-session-token',
  pat: 'reference-personal-access-token',
  forbiddenToken: 'reference-forbidden-token',
} as const satisfies Record<string, string>;

/**
 * The id of the record of a kind the reference server holds: a well-formed ObjectId drawn from
 * the kind's name alone, so that it stays the same whatever other kinds the contract names.
 */
export function referenceRecordId(kind: string): string {
  return `6553f100c0ffee${createHash('sha256').update(kind).digest('hex').slice(0, 10)}`;
}

/** Records that exist: one of each kind the contract names (`x-record`; docs/certification.md §5). */
export const REFERENCE_FIXTURES: Readonly<Record<string, string>> = Object.fromEntries(
  recordKinds(loadContract().operations).map((kind) => [kind, referenceRecordId(kind)]),
);

/**
 * Items seeded per value of a list's filter, taken in turn in the order of its values: different sizes make pagination
 * real.
 */
export const SEED_SIZES: readonly number[] = [27, 13];

/** Page size without `page` (the default page size is not shown, section 8). */
export const DEFAULT_PAGE_LIMIT = 10;

/** The largest page served; a larger `page[limit]` is capped and `meta.limit` reports the cap. */
export const MAX_PAGE_LIMIT = 100;

/** Request bodies above this are answered 413. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Request documents nested deeper than this are answered 400 before they are validated or echoed. */
export const MAX_NESTING_DEPTH = 64;
