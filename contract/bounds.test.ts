// Bounds on the findings one exchange lists: per rule and direction, in all, the rest summed up.
import { describe, expect, test } from 'vitest';
import { boundFindings, occurrences, type SummaryFinding } from './bounds.ts';
import type { Finding } from './types.ts';

function finding(requirement: string, index: number, location: Finding['location'] = 'request'): Finding {
  return { requirement, level: 'MUST', location, pointer: `/data/${index}`, message: `item ${index}` };
}

function many(requirement: string, count: number, location: Finding['location'] = 'request'): Finding[] {
  return Array.from({ length: count }, (_, i) => finding(requirement, i, location));
}

const limits = { perRule: 3, total: 5 };
const cases = [
  { name: 'under both bounds: all listed as they are', findings: many('A', 2), listed: 2, summaries: [] as [string, number][] },
  { name: 'one rule past its bound: three listed and one summary for the rest', findings: many('A', 200_000), listed: 3, summaries: [['A', 199_997]] as [string, number][] },
  { name: 'two directions of one rule are bounded apart', findings: [...many('A', 4), ...many('A', 4, 'response')], listed: 5, summaries: [['A', 1], ['A', 2]] as [string, number][] },
  { name: 'past the total: every rule left out gets its summary', findings: [...many('A', 3), ...many('B', 3), ...many('C', 3)], listed: 5, summaries: [['B', 1], ['C', 3]] as [string, number][] },
];

describe('boundFindings', () => {
  for (const c of cases) {
    test(c.name, () => {
      const bounded = boundFindings(c.findings, limits);
      const summaries = bounded.filter((f) => (f as SummaryFinding).omitted !== undefined);
      expect(bounded.length - summaries.length).toBe(c.listed);
      expect(summaries.map((s) => [s.requirement, occurrences(s)])).toEqual(c.summaries);
      // Every finding is accounted for, listed or summed up.
      expect(bounded.reduce((sum, f) => sum + occurrences(f), 0)).toBe(c.findings.length);
    });
  }

  test('a summary says how many more, and where the first of them was', () => {
    const [, , , summary] = boundFindings(many('A', 10), limits);
    expect(summary.message).toBe('and 7 more A findings in this request, not listed (the first at /data/3)');
  });
});
