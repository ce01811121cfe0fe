// Whether a failure generation found comes again: before it is reported, its input is sent again,
// and the record, its renderings and the curl line say what the sends showed. A failure seen once
// still fails its requirement (a 500 is a 500), but a person replaying it is told it may not recur.
import type { Counterexample } from './index.ts';

/** How many times a failing generated input is sent in all: once when it failed, then again before it is reported. */
export const FAILURE_SENDS = 3;

/**
 * What the sends of a failing input showed, as every rendering words it: `reproduced: failed 3 of 3 sends`, `seen once
 * in 3 sends`.
 */
export function reproductionText({ sends, failedSends }: Pick<Counterexample, 'sends' | 'failedSends'>): string {
  if (sends === undefined || failedSends === undefined) return 'not sent again';
  return failedSends > 1 ? `reproduced: failed ${failedSends} of ${sends} sends` : `seen once in ${sends} sends`;
}

/**
 * The curl line of a failing input with what its sends showed, as a shell comment after it: run as it is, the comment
 * is ignored.
 */
export function curlWithReproduction(curl: string, example: Pick<Counterexample, 'sends' | 'failedSends'>): string {
  return `${curl} # ${reproductionText(example)}`;
}
