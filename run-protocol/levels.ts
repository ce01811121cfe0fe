// The fail level of a run: which requirement levels fail a case and the run, and how the record names it.
import { LEVELS, type Level } from '../contract/index.ts';

/** Which requirement levels fail a case and the run: MUST only, or MUST and SHOULD (`--level should`). */
export type FailLevel = 'must' | 'should';

/** The catalogue level a fail level names. */
const FAIL_LEVEL_LEVEL: Record<FailLevel, Level> = { must: 'MUST', should: 'SHOULD' };

/**
 * The levels whose findings fail a case, and whose requirements a run must check to certify anything: the fail level's
 * and every stronger one.
 */
export function blockingLevels(failLevel: FailLevel): Level[] {
  return LEVELS.slice(0, LEVELS.indexOf(FAIL_LEVEL_LEVEL[failLevel]) + 1);
}

/** The fail level as the certification record writes it. */
export function failLevelName(failLevel: FailLevel): 'MUST' | 'SHOULD' {
  return FAIL_LEVEL_LEVEL[failLevel] as 'MUST' | 'SHOULD';
}

/** The fail level from its name in a certification record. */
export function failLevelOfName(name: 'MUST' | 'SHOULD'): FailLevel {
  return name === 'SHOULD' ? 'should' : 'must';
}
