import { describe, expect, it } from 'vitest';
import { LEVELS } from '../contract/index.ts';
import { blockingLevels, failLevelName, failLevelOfName, type FailLevel } from './levels.ts';

describe('fail levels', () => {
  const cases: { failLevel: FailLevel; blocking: string[]; name: 'MUST' | 'SHOULD' }[] = [
    { failLevel: 'must', blocking: ['MUST'], name: 'MUST' },
    { failLevel: 'should', blocking: ['MUST', 'SHOULD'], name: 'SHOULD' },
  ];
  for (const { failLevel, blocking, name } of cases) {
    it(`${failLevel}: ${blocking.join(' and ')} block, the record names it ${name}, and reads it back`, () => {
      expect(blockingLevels(failLevel)).toEqual(blocking);
      expect(failLevelName(failLevel)).toBe(name);
      expect(failLevelOfName(name)).toBe(failLevel);
    });
  }

  it('no fail level blocks an observation (the weakest level)', () => {
    const weakest = LEVELS[LEVELS.length - 1];
    for (const { failLevel } of cases) expect(blockingLevels(failLevel)).not.toContain(weakest);
  });
});
