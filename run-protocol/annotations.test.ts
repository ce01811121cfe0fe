import { describe, expect, it } from 'vitest';
import { regressionCaseName } from './annotations.ts';

describe('regressionCaseName', () => {
  const cases = [
    { title: 'ERR-STATUS-STRING · regression: status as a number', name: 'status as a number' },
    {
      title: 'ERR-STATUS-STRING AUTH-401-NO-CREDENTIALS · regression: two ids · a dot inside',
      name: 'two ids · a dot inside',
    },
    { title: 'ERR-NO-5XX · walk every page', name: null },
    { title: 'ERR-NO-5XX · walk named regression: not after the mark', name: null },
  ];
  for (const { title, name } of cases) {
    it(`${title} → ${String(name)}`, () => expect(regressionCaseName(title)).toBe(name));
  }
});
