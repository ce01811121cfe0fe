import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAjv, loadContract } from '../contract/index.ts';
import { creates, itWith } from '../contract/test-support.ts';
import type { CaseFinding } from '../run-protocol/index.ts';
import { consoleSummary, summaryMarkdown } from './console-summary.ts';
import { OBSERVED } from './test-support.ts';
import {
  buildRecord,
  MAX_EVIDENCE,
  PROXY_ONLY_REASON,
  UNCOVERED_REASON,
  type CaseOutcome,
  type GatePolicy,
  type RecordInput,
} from './record.ts';

const contract = loadContract();
/**
 * The requirements of the made-up cases: rules every operation shares, so the cases are the same whatever operations
 * the contract holds. A walk names WALKED and may find BROKEN broken; another case names SERVED; NEWLY breaks for the
 * first time; UNCOVERED is named by no case.
 */
const BROKEN = 'RES-ID-STRING';
const WALKED = 'ERR-NO-5XX';
const SERVED = 'AUTH-SESSION-ACCEPTED';
const NEWLY = 'ERR-ENVELOPE';
const UNCOVERED = 'AUTH-PAT-ACCEPTED';
const FINDING_PATH = '/records?filter[kind]=a';
/** A MUST requirement only an answer the target may legally never give exercises. */
const BY_TARGET_CHOICE = loadContract().requirements.find(
  (r) => r.level === 'MUST' && r.notExercised?.byTargetChoice === true,
)!.id;
/** A create that may answer 202 Accepted, whose body is not shown: its response shape is then not checked. */
const accepting = creates.find((o) => o.statuses.includes(202) && o.roles.responseShape !== undefined);
const validateRecord = createAjv().compile(
  JSON.parse(readFileSync(new URL('conformance.schema.json', import.meta.url), 'utf8')) as object,
);

function finding(requirement: string, message: string, status = 200): CaseFinding {
  return {
    ...contract.finding(requirement, 'response', { pointer: '/data', message, expected: 'x', actual: 'y' }),
    exchange: {
      method: 'GET',
      path: FINDING_PATH,
      status,
      curl: 'curl -i -g -X GET "$LAS_BASE_URL/records"',
    },
  };
}

/**
 * A case outcome; unless `fields` says otherwise, a case that ran judged each requirement it did not declare not run,
 * once.
 */
function outcome(title: string, requirements: string[], fields: Partial<CaseOutcome> = {}): CaseOutcome {
  const status = fields.status ?? 'passed';
  const ran = status !== 'skipped' && status !== 'not-started';
  const declared = new Set((fields.notRun ?? []).flatMap((n) => n.requirements));
  const found = new Set((fields.findings ?? []).map((f) => f.requirement));
  const judged = [
    ...new Set([...(fields.requirements ?? requirements).filter((id) => !declared.has(id)), ...found]),
  ].filter(() => ran);
  return {
    title,
    requirements,
    status,
    findings: [],
    exercised: judged.map((requirement) => ({ requirement, judged: 1, broken: found.has(requirement) ? 1 : 0 })),
    ...fields,
  };
}

function input(cases: CaseOutcome[], fields: Partial<RecordInput> = {}): RecordInput {
  return {
    contract,
    kit: { name: 'las-conformance', version: '0.1.0' },
    target: 'http://127.0.0.1:1/v3',
    failLevel: 'must',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    durationMs: 1500,
    runStatus: 'passed',
    cases,
    ...fields,
  };
}

const verdictOf = (record: ReturnType<typeof buildRecord>, id: string) => record.requirements.find((r) => r.id === id)!;

/**
 * Ids of every requirement the suite checks: a case covering them all makes a run that checked everything it had to.
 */
const SUITE_CHECKED = contract.requirements
  .filter((r) => !r.checkedBy || r.checkedBy.includes('suite'))
  .map((r) => r.id);
const everything = (fields: Partial<CaseOutcome> = {}) => outcome('everything', SUITE_CHECKED, fields);

describe('buildRecord', () => {
  it('fails the run when a MUST requirement has a finding, whichever case found it', () => {
    const record = buildRecord(
      input([
        outcome('walk', [WALKED], {
          findings: [finding('MEDIA-TYPE-RESPONSE', 'response Content-Type must be application/vnd.api+json')],
        }),
      ]),
    );
    expect(record.verdict).toBe('failed');
    expect(record.verdictReason).toBe('1 MUST requirement failed: MEDIA-TYPE-RESPONSE');
    expect(verdictOf(record, 'MEDIA-TYPE-RESPONSE')).toMatchObject({
      verdict: 'failed',
      cases: 0,
      evidence: [{ case: 'walk', method: 'GET', status: 200, pointer: '/data', curl: expect.stringMatching(/^curl /) }],
    });
    expect(verdictOf(record, WALKED)).toMatchObject({ verdict: 'passed', cases: 1 });
  });

  it('warns for a SHOULD finding and fails on it only at --level should', () => {
    const cases = [
      everything(),
      outcome('no credentials', ['AUTH-401-NO-CREDENTIALS'], {
        findings: [finding('AUTH-WWW-AUTHENTICATE', 'a 401 response should carry a WWW-Authenticate header', 401)],
      }),
    ];
    const atMust = buildRecord(input(cases));
    expect(atMust).toMatchObject({
      verdict: 'passed',
      verdictReason: 'no MUST requirement failed; 1 SHOULD requirement warned',
    });
    expect(verdictOf(atMust, 'AUTH-WWW-AUTHENTICATE').verdict).toBe('warning');
    expect(buildRecord(input(cases, { failLevel: 'should' }))).toMatchObject({
      verdict: 'failed',
      failLevel: 'SHOULD',
    });
  });

  it('records INFO findings as observations, never as failures', () => {
    const record = buildRecord(
      input([
        everything(),
        outcome('fractional', [OBSERVED.id], {
          findings: [finding(OBSERVED.id, 'answered 400', 400)],
        }),
      ]),
    );
    expect(record.verdict).toBe('passed');
    expect(verdictOf(record, OBSERVED.id)).toMatchObject({
      verdict: 'passed',
      evidence: [{ message: 'answered 400' }],
    });
  });

  it('says why a requirement was not run: a skip, the proxy, an unfinished run, no case', () => {
    const record = buildRecord(
      input([
        outcome('forbidden', ['AUTH-403-FORBIDDEN'], {
          status: 'skipped',
          skipReason: 'no forbidden credential configured',
        }),
        outcome('walk', [WALKED], { status: 'not-started' }),
        outcome('list', [SERVED]),
      ]),
    );
    expect(verdictOf(record, 'AUTH-403-FORBIDDEN')).toMatchObject({
      verdict: 'not-run',
      reason: 'no forbidden credential configured',
      cases: 0,
    });
    expect(verdictOf(record, 'MEDIA-TYPE-REQUEST')).toMatchObject({ verdict: 'not-run', reason: PROXY_ONLY_REASON });
    expect(verdictOf(record, WALKED)).toMatchObject({
      verdict: 'not-run',
      reason: 'the run ended before its cases ran',
    });
    expect(verdictOf(record, UNCOVERED)).toMatchObject({ verdict: 'not-run', reason: UNCOVERED_REASON });
  });

  it('is incomplete, never passed, when a MUST requirement the suite checks was not run', () => {
    const record = buildRecord(
      input([
        outcome('forbidden', ['AUTH-403-FORBIDDEN'], {
          status: 'skipped',
          skipReason: 'no forbidden credential configured',
        }),
        outcome('list', [SERVED]),
      ]),
    );
    expect(record.verdict).toBe('incomplete');
    expect(record.notRun).toContain('AUTH-403-FORBIDDEN');
    expect(record.notRun).not.toContain('MEDIA-TYPE-REQUEST');
    expect(record.verdictReason).toMatch(
      /^no requirement failed, but \d+ requirements the run had to check were not run: /,
    );
    expect(record.gate).toMatchObject({ result: 'incomplete', allowPartial: false });
  });

  it("passes a run that checked every requirement the suite can check, the proxy's own left aside", () => {
    const record = buildRecord(input([everything()]));
    expect(record).toMatchObject({ verdict: 'passed', notRun: [], gate: { result: 'pass', reason: 'nothing failed' } });
    expect(verdictOf(record, 'MEDIA-TYPE-REQUEST')).toMatchObject({ verdict: 'not-run', reason: PROXY_ONLY_REASON });
  });

  it('is incomplete when SHOULD requirements were not run under --level should only', () => {
    const should = SUITE_CHECKED.filter((id) => contract.requirement(id).level === 'SHOULD');
    const cases = [
      outcome(
        'musts',
        SUITE_CHECKED.filter((id) => !should.includes(id)),
      ),
    ];
    expect(buildRecord(input(cases)).verdict).toBe('passed');
    expect(buildRecord(input(cases, { failLevel: 'should' }))).toMatchObject({ verdict: 'incomplete', notRun: should });
  });

  it('names the selection that left a requirement out', () => {
    const selection = { whole: false, grep: 'AUTH-401', readOnly: false, shard: { current: 2, total: 3 } };
    const record = buildRecord(input([outcome('list', [SERVED])], { context: { selection } }));
    expect(verdictOf(record, UNCOVERED).reason).toBe('its cases were not selected (--grep "AUTH-401", shard 2/3)');
    expect(record.selection).toEqual(selection);
  });

  itWith(accepting, 'create that may answer 202')(
    'reports not run a requirement its cases ran without being able to check it (a 202 answer), with their reason',
    (create) => {
      const [created, shape] = [create.roles.success!, create.roles.responseShape!];
      const notRun = [{ requirements: [shape], reason: 'answered 202 Accepted, whose body is not shown' }];
      const record = buildRecord(
        input([
          everything({ requirements: SUITE_CHECKED.filter((id) => id !== shape) }),
          outcome('create', [created, shape], { notRun }),
        ]),
      );
      expect(verdictOf(record, shape)).toMatchObject({
        verdict: 'not-run',
        reason: 'answered 202 Accepted, whose body is not shown',
        cases: 0,
      });
      expect(verdictOf(record, created)).toMatchObject({ verdict: 'passed' });
      expect(record).toMatchObject({ verdict: 'incomplete', notRun: [shape] });
    },
  );

  itWith(accepting, 'create that may answer 202')(
    "a requirement the target's own legal answer left nothing to check in (a 202 body) is not run, yet the verdict is not incomplete for it",
    (create) => {
      const [created, shape] = [create.roles.success!, create.roles.responseShape!];
      const notRun = [
        {
          requirements: [shape],
          reason: 'answered 202 Accepted, whose body is not shown',
          byTargetChoice: true as const,
        },
      ];
      const record = buildRecord(
        input([
          everything({ requirements: SUITE_CHECKED.filter((id) => id !== shape) }),
          outcome('create', [created, shape], { notRun }),
        ]),
      );
      expect(verdictOf(record, shape)).toMatchObject({
        verdict: 'not-run',
        reason: 'answered 202 Accepted, whose body is not shown',
        byTargetChoice: true,
        cases: 0,
      });
      expect(record).toMatchObject({ verdict: 'passed', notRun: [] });
    },
  );

  itWith(accepting, 'create that may answer 202')(
    'a finding still fails a requirement its case declared not run',
    (create) => {
      const [created, shape] = [create.roles.success!, create.roles.responseShape!];
      const notRun = [{ requirements: [shape], reason: 'answered 202' }];
      const record = buildRecord(
        input([
          outcome('create', [created, shape], {
            notRun,
            findings: [finding(shape, 'no id', 201)],
          }),
        ]),
      );
      expect(verdictOf(record, shape).verdict).toBe('failed');
      expect(record.verdict).toBe('failed');
    },
  );

  it('passes a requirement only when an exchange judged it, and counts what was judged and broken', () => {
    const judged = [{ requirement: BROKEN, judged: 3, broken: 0 }];
    const record = buildRecord(
      input([
        everything(),
        outcome('walk', [WALKED], { exercised: judged }),
        outcome('page', [NEWLY], { exercised: [{ requirement: BROKEN, judged: 2, broken: 0 }] }),
      ]),
    );
    expect(verdictOf(record, BROKEN)).toMatchObject({ verdict: 'passed', judged: 6, broken: 0 });
    const broken = buildRecord(
      input([
        outcome('page', [BROKEN], {
          findings: [finding(BROKEN, 'id is 999, a number')],
          exercised: [{ requirement: BROKEN, judged: 2, broken: 1 }],
        }),
      ]),
    );
    expect(verdictOf(broken, BROKEN)).toMatchObject({ verdict: 'failed', judged: 2, broken: 1 });
  });

  it('lists not exercised, never passed, a requirement whose cases ran and judged nothing: the run is incomplete for it', () => {
    const record = buildRecord(
      input([
        everything({
          exercised: SUITE_CHECKED.filter((id) => id !== 'AUTH-401-UNKNOWN-TOKEN').map((requirement) => ({
            requirement,
            judged: 1,
            broken: 0,
          })),
        }),
      ]),
    );
    expect(verdictOf(record, 'AUTH-401-UNKNOWN-TOKEN')).toMatchObject({
      verdict: 'not-run',
      notExercised: true,
      judged: 0,
      reason: 'not exercised: no request with an unknown token was answered',
    });
    expect(record).toMatchObject({ verdict: 'incomplete', notRun: ['AUTH-401-UNKNOWN-TOKEN'] });
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
  });

  it("gives the catalogue's reason for a requirement not exercised, and leaves the run complete where that is the target's legal choice", () => {
    const exercised = SUITE_CHECKED.filter((id) => id !== BY_TARGET_CHOICE && id !== 'AUTH-WWW-AUTHENTICATE').map(
      (requirement) => ({ requirement, judged: 1, broken: 0 }),
    );
    const record = buildRecord(input([everything({ exercised })], { failLevel: 'should' }));
    expect(verdictOf(record, BY_TARGET_CHOICE)).toMatchObject({
      verdict: 'not-run',
      byTargetChoice: true,
      reason: `not exercised: ${contract.requirement(BY_TARGET_CHOICE).notExercised!.reason}`,
    });
    expect(verdictOf(record, 'AUTH-WWW-AUTHENTICATE')).toMatchObject({
      verdict: 'not-run',
      reason: 'not exercised: no answer was 401',
    });
    expect(verdictOf(record, 'AUTH-WWW-AUTHENTICATE').byTargetChoice).toBeUndefined();
    expect(record).toMatchObject({ verdict: 'incomplete', notRun: ['AUTH-WWW-AUTHENTICATE'] });
  });

  it('names the requirements not exercised in the console summary and in summary.md', () => {
    const record = buildRecord(
      input([
        everything({
          exercised: SUITE_CHECKED.filter((id) => id !== 'AUTH-401-UNKNOWN-TOKEN').map((requirement) => ({
            requirement,
            judged: 1,
            broken: 0,
          })),
        }),
      ]),
    );
    const line =
      'not exercised: AUTH-401-UNKNOWN-TOKEN (its cases ran, but no check that can break it had an exchange to judge)';
    expect(consoleSummary(record, { dir: '/r', files: ['/r/conformance.json', '/r/summary.md'] }, '/r')).toContain(
      `\n  ${line}\n`,
    );
    expect(summaryMarkdown(record)).toContain(`\n- N${line.slice(1)}\n`);
    expect(summaryMarkdown(record)).toContain(
      '| AUTH-401-UNKNOWN-TOKEN | MUST | 5 | not run | 0 | 0 | not exercised: no request with an unknown token was answered |',
    );
  });

  it('gives the reason a check could not judge a requirement, and then the run is incomplete for it whatever the catalogue says', () => {
    const exercised = SUITE_CHECKED.filter((id) => id !== BY_TARGET_CHOICE).map((requirement) => ({
      requirement,
      judged: 1,
      broken: 0,
    }));
    const unexercised = [{ requirement: BY_TARGET_CHOICE, reason: 'the status was -3' }];
    const record = buildRecord(input([everything({ exercised, unexercised })]));
    expect(verdictOf(record, BY_TARGET_CHOICE)).toMatchObject({
      verdict: 'not-run',
      notExercised: true,
      reason: 'not exercised: the status was -3',
    });
    expect(verdictOf(record, BY_TARGET_CHOICE).byTargetChoice).toBeUndefined();
    expect(record).toMatchObject({ verdict: 'incomplete', notRun: [BY_TARGET_CHOICE] });
  });

  it('fails the own requirement of a case that failed without a finding to explain it', () => {
    const record = buildRecord(
      input([
        outcome('crashed', [WALKED, NEWLY], {
          status: 'timedOut',
          error: 'Test timeout of 60000ms exceeded.',
        }),
      ]),
    );
    expect(verdictOf(record, WALKED)).toMatchObject({
      verdict: 'failed',
      evidence: [{ case: 'crashed', message: 'the case failed: Test timeout of 60000ms exceeded.' }],
    });
    expect(verdictOf(record, NEWLY).verdict).toBe('passed');
    expect(record.cases).toEqual({ total: 1, passed: 0, failed: 1, notRun: 0 });
  });

  it('fails a run that did not complete even when nothing failed', () => {
    expect(buildRecord(input([outcome('walk', [WALKED])], { runStatus: 'timedout' }))).toMatchObject({
      verdict: 'failed',
      verdictReason: expect.stringMatching(/^the run did not complete \(timedout\)/),
    });
  });

  it('certifies nothing when no case ran', () => {
    expect(buildRecord(input([]))).toMatchObject({
      verdict: 'incomplete',
      verdictReason: 'no case ran, so nothing was certified',
    });
  });

  it('keeps the first evidence and counts the rest', () => {
    const findings = Array.from({ length: MAX_EVIDENCE + 3 }, (_, i) => finding(BROKEN, `item ${i}`));
    const requirement = verdictOf(buildRecord(input([outcome('list', [BROKEN], { findings })])), BROKEN);
    expect(requirement.evidence).toHaveLength(MAX_EVIDENCE);
    expect(requirement.evidenceOmitted).toBe(3);
  });

  it('lists every requirement of the catalogue, with a tally that adds up, in the documented format', () => {
    const record = buildRecord(
      input([
        outcome('walk', [WALKED], { findings: [finding(BROKEN, 'id is 7, a number')] }),
        outcome('x', ['AUTH-403-FORBIDDEN'], { status: 'skipped', skipReason: 'r' }),
      ]),
    );
    expect(record.requirements.map((r) => r.id)).toEqual(contract.requirements.map((r) => r.id));
    const counted = Object.values(record.tally)
      .flatMap((t) => Object.values(t))
      .reduce((a, b) => a + b, 0);
    expect(counted).toBe(contract.requirements.length);
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
  });
});

describe('the gate', () => {
  const failing = [everything(), outcome('walk', [WALKED], { findings: [finding(BROKEN, 'id is 7, a number')] })];
  const policy = (fields: Partial<GatePolicy>): GatePolicy => ({
    allowPartial: false,
    waivers: [],
    today: '2026-06-15',
    ...fields,
  });
  const waiver = (expires: string) => ({ requirement: BROKEN, reason: 'fix ships in 4.2', expires });

  it('an active waiver passes the gate; the verdict stays failed and the requirement says it is waived', () => {
    const record = buildRecord(input(failing, { gate: policy({ waivers: [waiver('2026-06-15')] }) }));
    expect(record.verdict).toBe('failed');
    expect(record.gate).toMatchObject({
      result: 'pass',
      waived: [BROKEN],
      expiredWaivers: [],
      reason: 'no failure left (1 failure waived)',
    });
    expect(verdictOf(record, BROKEN)).toMatchObject({
      verdict: 'failed',
      waiver: { reason: 'fix ships in 4.2', expires: '2026-06-15', active: true },
    });
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
  });

  it('an expired waiver hides nothing: the gate fails and says so', () => {
    const record = buildRecord(input(failing, { gate: policy({ waivers: [waiver('2026-06-14')] }) }));
    expect(record.gate).toMatchObject({
      result: 'fail',
      waived: [],
      expiredWaivers: [BROKEN],
      reason: `failing: ${BROKEN}; waiver expired for ${BROKEN}`,
    });
  });

  it('a waiver for a requirement that passes is recorded and changes nothing', () => {
    const record = buildRecord(input([everything()], { gate: policy({ waivers: [waiver('2026-06-14')] }) }));
    expect(record.gate).toMatchObject({ result: 'pass', waived: [], expiredWaivers: [] });
    expect(verdictOf(record, BROKEN).waiver).toMatchObject({ active: false });
  });

  it('with a baseline, only requirements that newly fail fail the gate', () => {
    const twoFailing = [...failing, outcome('x', [NEWLY], { findings: [finding(NEWLY, 'total is wrong')] })];
    const known = buildRecord(input(failing, { gate: policy({ baseline: { file: 'old.json', failing: [BROKEN] } }) }));
    expect(known.gate).toMatchObject({
      result: 'pass',
      baseline: { file: 'old.json', knownFailures: [BROKEN], newlyFailing: [] },
    });
    const regressed = buildRecord(
      input(twoFailing, { gate: policy({ baseline: { file: 'old.json', failing: [BROKEN] } }) }),
    );
    expect(regressed.gate).toMatchObject({
      result: 'fail',
      reason: `newly failing: ${NEWLY} (1 failure known from the baseline)`,
      baseline: { newlyFailing: [NEWLY] },
    });
  });

  it('--allow-partial passes an incomplete run, and the record says so', () => {
    const partial = [outcome('list', [SERVED])];
    expect(buildRecord(input(partial)).gate.result).toBe('incomplete');
    const record = buildRecord(input(partial, { gate: policy({ allowPartial: true }) }));
    expect(record).toMatchObject({
      verdict: 'incomplete',
      gate: { result: 'pass', allowPartial: true, reason: 'a partial run accepted (--allow-partial)' },
    });
  });

  it('--allow-partial never passes a failure', () => {
    expect(buildRecord(input(failing.slice(1), { gate: policy({ allowPartial: true }) })).gate.result).toBe('fail');
  });
});

describe('renderings', () => {
  const record = buildRecord(
    input([
      outcome('walk', [WALKED], { findings: [finding(BROKEN, 'id is 7 | not a string')] }),
      outcome('no credentials', ['AUTH-401-NO-CREDENTIALS'], {
        findings: [finding('AUTH-WWW-AUTHENTICATE', 'no WWW-Authenticate', 401)],
      }),
    ]),
  );

  it('summary.md opens with the verdict and tables what failed, did not run, and warned', () => {
    const markdown = summaryMarkdown(record);
    expect(markdown.split('\n')[0]).toBe('# Conformance verdict: FAILED');
    expect(markdown).toContain(
      `| ${BROKEN} | MUST | ${contract.requirement(BROKEN).section} | failed | 1 | 1 | id is 7 \\| not a string (\`GET ${FINDING_PATH}\` → 200) |`,
    );
    expect(markdown).toContain(`| MEDIA-TYPE-REQUEST | MUST | 4.2 | not run | 0 | 0 | ${PROXY_ONLY_REASON} |`);
    expect(markdown).toMatch(
      /## Warnings\n\n\| Requirement[^\n]*\n[^\n]*\n\| AUTH-WWW-AUTHENTICATE \| SHOULD \| 5 \| warning \| 1 \| 1 \| no WWW-Authenticate/,
    );
  });

  it('the console ends with the verdict first, the case count and every report file', () => {
    const files = ['conformance.json', 'summary.md', 'junit.xml', 'html/index.html'].map((f) => `/r/${f}`);
    const text = consoleSummary(record, { dir: '/r', files }, '/r');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(`Verdict: FAILED: 1 MUST requirement failed: ${BROKEN}`);
    expect(lines[1]).toBe('Cases: 2 cases: 2 passed, 0 failed, 0 not run (1.5 s)');
    expect(lines.slice(-5)).toEqual([
      'Reports:',
      '  conformance.json',
      '  summary.md',
      '  junit.xml',
      '  html/index.html',
    ]);
  });

  it('names the reports through the latest link when the run has one', () => {
    const dir = '/p/reports/2026-11-28T03-00-00Z';
    const files = [`${dir}/conformance.json`, `${dir}/conformance.intoto.jsonl`, `${dir}/html/index.html`];
    const lines = consoleSummary(record, { dir, files, link: '/p/reports/latest' }, '/p').trimEnd().split('\n');
    const listed = [
      'reports/latest/conformance.json',
      'reports/latest/conformance.intoto.jsonl',
      'reports/latest/html/index.html',
    ];
    expect(lines.slice(-4)).toEqual([
      'Reports, in reports/latest/ (reports/2026-11-28T03-00-00Z):',
      ...listed.map((f) => `  ${f}`),
    ]);
  });
});
