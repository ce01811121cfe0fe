// Bounds on the findings one exchange lists: per rule and direction, in all, the rest summed up.
import { describe, expect, test } from 'vitest';
import { boundFindings, cutText, FINDING_TEXT_MAX, occurrences, type SummaryFinding } from './bounds.ts';
import { loadContract } from './contract.ts';
import { withValueAt } from './members.ts';
import { creates, describeWith, documentExample } from './test-support.ts';
import { EXAMINED_PER_LIST, schemaErrors } from './validate.ts';
import type { Finding } from './types.ts';

function finding(requirement: string, index: number, location: Finding['location'] = 'request'): Finding {
  return { requirement, level: 'MUST', location, pointer: `/data/${index}`, message: `item ${index}` };
}

function many(requirement: string, count: number, location: Finding['location'] = 'request'): Finding[] {
  return Array.from({ length: count }, (_, i) => finding(requirement, i, location));
}

const limits = { perRule: 3, total: 5 };
const cases = [
  {
    name: 'under both bounds: all listed as they are',
    findings: many('A', 2),
    listed: 2,
    summaries: [] as [string, number][],
  },
  {
    name: 'one rule past its bound: three listed and one summary for the rest',
    findings: many('A', 200_000),
    listed: 3,
    summaries: [['A', 199_997]] as [string, number][],
  },
  {
    name: 'two directions of one rule are bounded apart',
    findings: [...many('A', 4), ...many('A', 4, 'response')],
    listed: 5,
    summaries: [
      ['A', 1],
      ['A', 2],
    ] as [string, number][],
  },
  {
    name: 'past the total: every rule left out gets its summary',
    findings: [...many('A', 3), ...many('B', 3), ...many('C', 3)],
    listed: 5,
    summaries: [
      ['B', 1],
      ['C', 3],
    ] as [string, number][],
  },
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

/** A create whose complete example holds an array attribute with an item, that array and that item. */
const arrayAttribute = creates.flatMap((operation) => {
  const example = documentExample(operation) as { data: { attributes?: Record<string, unknown> } };
  const [name, items] =
    Object.entries(example.data.attributes ?? {}).find(([, value]) => Array.isArray(value) && value.length > 0) ?? [];
  return name === undefined
    ? []
    : [{ operation, example, pointer: `/data/attributes/${name}`, item: (items as unknown[])[0] }];
})[0];

describeWith(arrayAttribute?.operation, 'create whose complete example holds an array attribute with an item')(
  'schema errors are built for a bounded part of a broken message',
  (operation) => {
    const contract = loadContract();
    const schema = operation.requestBody!;
    const { example, pointer, item: valid } = arrayAttribute;
    const document = (items: unknown[]) => withValueAt(example, pointer, items);
    /** An item of another JSON type than the valid one. */
    const wrong = typeof valid === 'number' ? 'x' : 7;

    test(`500,000 wrong items: errors for the first ${EXAMINED_PER_LIST} only`, () => {
      const errors = schemaErrors(contract, schema, document(new Array(500_000).fill(wrong)));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.length).toBeLessThanOrEqual(EXAMINED_PER_LIST);
    });

    test('one wrong item past the examined ones is still found, where it is', () => {
      const options = new Array(20_000).fill(valid);
      options[12_345] = wrong;
      expect(schemaErrors(contract, schema, document(options)).map((e) => e.instancePath)).toEqual([
        `${pointer}/12345`,
      ]);
    });

    test('a valid message builds no error', () => {
      expect(schemaErrors(contract, schema, document(new Array(20_000).fill(valid)))).toEqual([]);
    });

    test(`a pointer of a megabyte is cut to ${FINDING_TEXT_MAX.pointer} characters, head and tail kept`, () => {
      const cut = cutText(`/data/relationships/${'/'.repeat(1_000_000)}/data`, FINDING_TEXT_MAX.pointer);
      expect(cut.length).toBe(FINDING_TEXT_MAX.pointer);
      expect(cut.startsWith('/data/relationships/')).toBe(true);
      expect(cut.endsWith('/data')).toBe(true);
    });
  },
);
