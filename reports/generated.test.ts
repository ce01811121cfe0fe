// The generated inputs in the reports: the record's section holds its schema, and JUnit, HTML and
// summary.md each show one entry per operation and requirement, a failure with its minimal input's
// curl line; a run without generation shows none of it.
import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import type { GeneratedOperation } from '../run-protocol/index.ts';
import { certificationHtml } from './certification-html.ts';
import { generatedRecord } from './generated.ts';
import { failedRun, FINDING_PATH } from './test-support.ts';
import { summaryMarkdown } from './console-summary.ts';
import { requirementsJunit } from './requirements-junit.ts';
import { contractSha256 } from './run-context.ts';
import { generationProblems, recordProblems } from './verify.ts';
import { reproductionText } from '../run-protocol/reproduction.ts';

const contract = loadContract();
/** Two operations of the contract: the first failed on a minimal input, the second ran out of time. */
const [failing, stopped] = contract.operations;
const PATH = `${FINDING_PATH}&page[limit]=1&page[offset]=2147483648`;
const CURL = `curl -i -g -X GET "$LAS_BASE_URL${PATH}" -H "authorization: Bearer r:$LAS_SESSION_TOKEN"`;
const operations: GeneratedOperation[] = [
  {
    operation: failing.operationId,
    inputs: { sent: 226, valid: 120, invalid: 106 },
    durationMs: 5263,
    requirements: [
      {
        id: 'ERR-NO-5XX',
        inputs: 226,
        verdict: 'failed',
        counterexample: {
          message: 'a valid request was answered 500',
          method: 'GET',
          path: PATH,
          status: 500,
          curl: `${CURL} # seen once in 3 sends`,
          shrinks: 25,
          sends: 3,
          failedSends: 1,
        },
      },
      { id: contract.successRequirement(failing.operationId).id, inputs: 226, verdict: 'passed' },
    ],
  },
  {
    operation: stopped.operationId,
    inputs: { sent: 3, valid: 3, invalid: 0 },
    durationMs: 30_001,
    stopped: 'its time budget of 30000 ms ran out',
    requirements: [{ id: contract.successRequirement(stopped.operationId).id, inputs: 3, verdict: 'passed' }],
  },
];
const generated = generatedRecord(
  { inputs: 200, seed: 1, operationBudgetMs: 30_000, totalBudgetMs: 300_000 },
  operations,
);
const record = failedRun({ generated });

describe('generated inputs in the record and its renderings', () => {
  it('the record holds the settings and the operations in name order, and verifies against its schema', () => {
    expect(record.generated).toMatchObject({
      inputs: 200,
      seed: 1,
      operations: [failing, stopped]
        .map((o) => o.operationId)
        .sort()
        .map((operation) => ({ operation })),
    });
    expect(
      recordProblems(JSON.parse(JSON.stringify(record)), contract, contractSha256()).filter((p) =>
        p.includes('generated'),
      ),
    ).toEqual([]);
  });

  it('JUnit: a test suite of its own, a test case per operation and requirement, the minimal input with its curl line, no failure of its own', () => {
    const xml = requirementsJunit(record);
    const suite = xml.slice(xml.indexOf('<testsuite name="generated inputs (seed 1)"'));
    expect(suite).toMatch(/^<testsuite name="generated inputs \(seed 1\)" tests="3" failures="0"/);
    expect(suite.match(/<testcase /g)).toHaveLength(3);
    expect(suite).toContain(
      `<testcase name="${failing.operationId} · ERR-NO-5XX" classname="generated ${failing.operationId}"`,
    );
    expect(suite).toContain(`curl -i -g -X GET "$LAS_BASE_URL${PATH.replaceAll('&', '&amp;')}"`);
    expect(suite).toContain('shrunk in 25 steps, seen once in 3 sends');
    expect(suite).toContain('# seen once in 3 sends');
    const root = xml.match(/<testsuites [^>]*tests="(\d+)" failures="(\d+)"/)!;
    const withoutGeneration = requirementsJunit(failedRun()).match(/<testsuites [^>]*tests="(\d+)" failures="(\d+)"/)!;
    // A requirement fails once, in its level's suite (reports/gate-renderings.test.ts).
    expect([Number(root[1]) - Number(withoutGeneration[1]), Number(root[2]) - Number(withoutGeneration[2])]).toEqual([
      3, 0,
    ]);
  });

  it('HTML: a section listing each operation and requirement, the minimal input and its curl line', () => {
    const html = certificationHtml(record);
    const section = html.slice(html.indexOf('<section id="generated">'));
    expect(section).toContain('<h2>Generated inputs</h2>');
    expect(section).toContain(
      `200 inputs per operation from seed 1, 229 requests sent, 1 requirement failed; ${stopped.operationId} stopped early: its time budget of 30000 ms ran out.`,
    );
    expect(section.match(/<tr class="(passed|failed)">/g)).toHaveLength(3);
    expect(section).toContain('shrunk in 25 steps, seen once in 3 sends');
    expect(section).toContain('&quot;authorization: Bearer r:$LAS_SESSION_TOKEN&quot; # seen once in 3 sends</pre>');
  });

  it('what the sends of a failing input showed, in the words every rendering uses', () => {
    expect(reproductionText({ sends: 3, failedSends: 1 })).toBe('seen once in 3 sends');
    expect(reproductionText({ sends: 3, failedSends: 3 })).toBe('reproduced: failed 3 of 3 sends');
    expect(reproductionText({ sends: 3, failedSends: 2 })).toBe('reproduced: failed 2 of 3 sends');
    expect(reproductionText({})).toBe('not sent again');
  });

  it('verify --seed: the seed a buyer chose, the default count and budgets at least, no operation stopped', () => {
    const demand = { seed: 1, inputs: 100, operationBudgetMs: 30_000, totalBudgetMs: 300_000 };
    expect(generationProblems({ generated: { ...generated, operations: [operations[0]] } }, demand)).toEqual([]);
    expect(generationProblems(record, demand)).toEqual([
      `generated.operations: ${stopped.operationId} stopped early (its time budget of 30000 ms ran out)`,
    ]);
    const fewer = { ...generated, seed: 7, inputs: 10, totalBudgetMs: 1000, operations: [] };
    expect(generationProblems({ generated: fewer }, demand)).toEqual([
      'generated.seed: the inputs were drawn from seed 7, not 1',
      'generated.inputs: 10 random inputs per operation, fewer than the default 100',
      'generated.totalBudgetMs: 1000 ms in all, fewer than the default 300000',
    ]);
    expect(generationProblems({ generationOff: 'off (--generate 0)' }, demand)).toEqual([
      'generated: the run generated no inputs (off (--generate 0)); seed 1 was asked for',
    ]);
  });

  it('summary.md: one paragraph on what generation did', () => {
    expect(summaryMarkdown(record)).toContain(
      `## Generated inputs\n\n200 inputs per operation from seed 1, 229 requests sent, 1 requirement failed; ${stopped.operationId} stopped early`,
    );
  });

  it('a run without generation shows none of it', () => {
    const plain = failedRun();
    expect(plain.generated).toBeUndefined();
    expect(requirementsJunit(plain)).not.toContain('generated inputs');
    expect(certificationHtml(plain)).not.toContain('id="generated"');
    expect(summaryMarkdown(plain)).not.toContain('Generated inputs');
  });
});
