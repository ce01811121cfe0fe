// The verdict never fails open. The reporters run in their configured order (scrubber, case
// verdict, record) over results shaped as the cases leave them, with tokens that are one letter or
// a common word: the scrubber rewrites every text people read, the verdict still comes out of the
// findings, and data the verdict step cannot read ends the run without a record.
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { loadContract } from '../contract/index.ts';
import {
  CASE_FINDINGS_ATTACHMENT,
  CASE_OUTCOME_ATTACHMENT,
  CASE_OUTCOME_REPORTER,
  DEFAULT_RUN,
  SECRET_SCRUBBER_REPORTER,
  FORGIVEN_ANNOTATION,
  REQUIREMENT_ANNOTATION,
  SIDE_FINDING_ANNOTATION,
  type CaseFinding,
  type RunDescription,
} from '../run-protocol/index.ts';
import { scrubber, credentialSecrets, scrubValues, type Secret } from '../run-protocol/secrets.ts';
import CaseOutcomeReporter from './case-outcome.ts';
import ConformanceReporter from './conformance-reporter.ts';
import { inputsOf } from '../run-protocol/run-inputs.ts';
import type { CertificationRecord } from './record.ts';
import SecretScrubber from './secret-scrubber.ts';

const contract = loadContract();
/**
 * The requirements of the made-up cases: rules every operation shares, so the cases are the same whatever operations
 * the contract holds. The walk case names WALKED and finds BROKEN broken; the other case names SERVED.
 */
const BROKEN = 'RES-ID-STRING';
const WALKED = 'ERR-NO-5XX';
const SERVED = 'AUTH-SESSION-ACCEPTED';
const WALK_TITLE = `${WALKED} · walk`;

let dir: string;
/** What the reporter writes to stderr, kept instead of written. */
let stderrWrites: MockInstance<typeof process.stderr.write>;

/** The reporters as playwright.config.ts lists them, before the renderings. */
const CONFIGURED_REPORTERS = [[SECRET_SCRUBBER_REPORTER], [CASE_OUTCOME_REPORTER], ['html'], ['junit']];
const CONFIGURED = {
  metadata: {},
  reporter: CONFIGURED_REPORTERS,
  grep: /.*/,
  grepInvert: null,
  shard: null,
} as unknown as FullConfig;

/** The conformance reporter's options for a run against a target with these secrets. */
function recording(secrets: Secret[]) {
  return {
    outputDir: dir,
    run: DEFAULT_RUN,
    inputs: inputsOf({}, contract.legacyHeader),
    secrets,
    baseUrl: 'http://127.0.0.1:1/v3',
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-verdict-path-'));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  stderrWrites = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

interface CaseShape {
  title: string;
  requirements: string[];
  findings: CaseFinding[];
  /** Replaces the verdict attachment's body. */
  verdictBody?: string;
}

function finding(requirement: string, message: string, token: string): CaseFinding {
  return {
    ...contract.finding(requirement, 'response', { pointer: '/data/0/id', message, expected: '3', actual: '2' }),
    exchange: {
      method: 'GET',
      path: '/records?filter[kind]=a',
      status: 200,
      curl: `curl -i -g -X GET "$LAS_BASE_URL/records" -H "authorization: Bearer r:${token}"`,
    },
  };
}

function testCase(shape: CaseShape): TestCase {
  const annotations = shape.requirements.flatMap((id) => [
    { type: REQUIREMENT_ANNOTATION, description: id },
    { type: 'level', description: contract.requirement(id).level },
  ]);
  return { title: shape.title, annotations, expectedStatus: 'passed', id: shape.title } as unknown as TestCase;
}

/** A result as ConformanceCase.finish leaves it: the evidence scrubbed in the worker, the verdict data as found. */
function testResult(shape: CaseShape, scrub: (text: string) => string): TestResult {
  const report = { target: 'http://127.0.0.1:1/v3', findings: shape.findings.map((f) => scrubValues(f, scrub)) };
  const exercised = shape.requirements.map((requirement) => ({
    requirement,
    judged: 1,
    broken: shape.findings.some((f) => f.requirement === requirement) ? 1 : 0,
  }));
  const verdict = {
    findings: shape.findings.map(({ requirement, level, location }) => ({ requirement, level, location })),
    notRun: [],
    exercised,
    unexercised: [],
  };
  return {
    status: 'passed',
    attachments: [
      { name: CASE_FINDINGS_ATTACHMENT, contentType: 'application/json', body: Buffer.from(JSON.stringify(report)) },
      {
        name: CASE_OUTCOME_ATTACHMENT,
        contentType: 'application/json',
        body: Buffer.from(shape.verdictBody ?? JSON.stringify(verdict)),
      },
    ],
    errors: [],
    annotations: [],
    steps: [],
    stdout: [],
    stderr: [],
    startTime: new Date(),
    duration: 1,
  } as unknown as TestResult;
}

interface Outcome {
  record?: CertificationRecord;
  tests: TestCase[];
  results: TestResult[];
  status?: FullResult['status'];
}

/** The configured reporters in order, over the given cases, with the given tokens as the run's secrets. */
async function runReporters(
  tokens: { session: string; pat: string },
  cases: CaseShape[],
  run: RunDescription = DEFAULT_RUN,
): Promise<Outcome> {
  const secrets = credentialSecrets({ sessionToken: tokens.session, pat: tokens.pat });
  const scrub = scrubber(secrets);
  const tests = cases.map(testCase);
  const results = cases.map((c) => testResult(c, scrub));
  const config = CONFIGURED;
  const suite = { allTests: () => tests } as unknown as Suite;
  const reporters: Reporter[] = [
    new SecretScrubber({ secrets }),
    new CaseOutcomeReporter({ run }),
    new ConformanceReporter({ ...recording(secrets), run }),
  ];
  for (const reporter of reporters) reporter.onBegin?.(config, suite);
  tests.forEach((test, i) => {
    for (const reporter of reporters) reporter.onTestEnd?.(test, results[i]);
  });
  const full = { status: 'passed', startTime: new Date('2026-01-01T00:00:00Z'), duration: 10 } as FullResult;
  let status: FullResult['status'] | undefined;
  for (const reporter of reporters) status = (await reporter.onEnd?.(full))?.status ?? status;
  const path = join(dir, 'conformance.json');
  return {
    tests,
    results,
    status,
    ...(existsSync(path) ? { record: JSON.parse(readFileSync(path, 'utf8')) as CertificationRecord } : {}),
  };
}

const TOKENS = [
  { name: 'one-letter tokens', session: 's', pat: 'p' },
  { name: 'other one-letter tokens', session: 'e', pat: 'M' },
  { name: 'tokens that are common words', session: 'data', pat: 'type' },
  { name: 'tokens that are the words the verdict data is made of', session: 'requirement', pat: 'MUST' },
];

describe('a failing case, whatever the tokens look like', () => {
  for (const tokens of TOKENS) {
    it(`fails the run with ${tokens.name} (${tokens.session}, ${tokens.pat})`, async () => {
      const cases = [
        {
          title: WALK_TITLE,
          requirements: [WALKED, BROKEN],
          findings: [finding(BROKEN, 'id is 7, a number', tokens.session)],
        },
        { title: `${SERVED} · list`, requirements: [SERVED], findings: [] },
      ];
      const { record, results } = await runReporters(tokens, cases);
      expect(results[0].status).toBe('failed');
      expect(results[1].status).toBe('passed');
      expect(record?.verdict).toBe('failed');
      expect(record?.requirements.find((r) => r.id === BROKEN)).toMatchObject({
        verdict: 'failed',
        evidence: [{ case: WALK_TITLE }],
      });
      expect(record?.requirements.find((r) => r.id === SERVED)).toMatchObject({
        verdict: 'passed',
        cases: 1,
      });
      // What people read was scrubbed: the curl line names the variable, not the token.
      expect(record?.requirements.find((r) => r.id === BROKEN)?.evidence[0].curl).toContain('$LAS_SESSION_TOKEN');
    });
  }
});

const LONG_TOKENS = { session: 'session-token-long', pat: 'pat-token-long' };

describe('a case fails only for its own requirements', () => {
  const walk = {
    title: WALK_TITLE,
    requirements: [WALKED],
    findings: [finding(BROKEN, 'id is 7, a number', 's')],
  };

  it('a side finding (a requirement the case does not name) leaves the case passed with a note, and fails its requirement in the record and the run', async () => {
    const { record, results, tests, status } = await runReporters(LONG_TOKENS, [walk]);
    expect(results[0].status).toBe('passed');
    expect(status).toBe('failed');
    expect(tests[0].annotations.filter((a) => a.type === SIDE_FINDING_ANNOTATION)).toEqual([
      {
        type: SIDE_FINDING_ANNOTATION,
        description: `${BROKEN} (MUST, recorded on its requirement): id is 7, a number`,
      },
    ]);
    expect(record?.requirements.find((r) => r.id === BROKEN)).toMatchObject({
      verdict: 'failed',
      evidence: [{ case: WALK_TITLE }],
    });
    expect(record?.verdict).toBe('failed');
  });

  it('a failure of its own requirement that a waiver accepts leaves the case passed, noting the waiver', async () => {
    const run = {
      ...DEFAULT_RUN,
      waivers: [{ requirement: BROKEN, reason: 'fix in 4.2', expires: '2999-12-31' }],
    };
    const { record, results, tests, status } = await runReporters(
      LONG_TOKENS,
      [{ ...walk, requirements: [WALKED, BROKEN] }],
      run,
    );
    expect(results[0].status).toBe('passed');
    expect(tests[0].annotations.filter((a) => a.type === FORGIVEN_ANNOTATION)).toEqual([
      {
        type: FORGIVEN_ANNOTATION,
        description: `${BROKEN} (waived until 2999-12-31: fix in 4.2): id is 7, a number`,
      },
    ]);
    expect(record?.gate).toMatchObject({ result: 'pass', waived: [BROKEN] });
    expect(status).toBeUndefined();
  });

  it('an expired waiver accepts nothing: the case fails', async () => {
    const run = {
      ...DEFAULT_RUN,
      waivers: [{ requirement: BROKEN, reason: 'fix in 4.2', expires: '2001-01-01' }],
    };
    const { results } = await runReporters(LONG_TOKENS, [{ ...walk, requirements: [WALKED, BROKEN] }], run);
    expect(results[0].status).toBe('failed');
  });

  it('a failure the --baseline record already had leaves the case passed, noting the baseline', async () => {
    const run = { ...DEFAULT_RUN, baseline: { file: 'old/conformance.json', failing: [BROKEN] } };
    const { results, tests } = await runReporters(LONG_TOKENS, [{ ...walk, requirements: [WALKED, BROKEN] }], run);
    expect(results[0].status).toBe('passed');
    expect(tests[0].annotations.find((a) => a.type === FORGIVEN_ANNOTATION)).toMatchObject({
      type: FORGIVEN_ANNOTATION,
      description: expect.stringContaining('known failure in the baseline old/conformance.json'),
    });
  });
});

describe('verdict data the verdict step cannot read', () => {
  const unreadable: [string, string][] = [
    ['not JSON', '{"findings": ['],
    [
      'a requirement the catalogue does not have',
      JSON.stringify({
        findings: [{ requirement: `${BROKEN.slice(0, -1)}$LAS_PAT`, level: 'MUST', location: 'response' }],
        notRun: [],
      }),
    ],
    [
      "a level that is not the catalogue's",
      JSON.stringify({ findings: [{ requirement: BROKEN, level: 'INFO', location: 'response' }], notRun: [] }),
    ],
    ['fewer findings than the evidence', JSON.stringify({ findings: [], notRun: [] })],
  ];
  for (const [problem, body] of unreadable) {
    it(`${problem}: the case fails, no record is written, the run fails`, async () => {
      const cases = [
        {
          title: WALK_TITLE,
          requirements: [WALKED],
          findings: [finding(BROKEN, 'id is 7, a number', 's')],
          verdictBody: body,
        },
      ];
      const { record, results, status } = await runReporters(
        { session: 'session-token-long', pat: 'pat-token-long' },
        cases,
      );
      expect(results[0].status).toBe('failed');
      expect(results[0].errors[0].message).toMatch(/^the verdict of this case cannot be read: /);
      expect(record).toBeUndefined();
      expect(status).toBe('failed');
    });
  }

  it('a case that passed without leaving verdict data: no record, the run fails', async () => {
    const shape = { title: WALK_TITLE, requirements: [WALKED], findings: [] };
    const reporter = new ConformanceReporter(recording([]));
    const test = testCase(shape);
    reporter.onBegin(CONFIGURED, { allTests: () => [test] } as unknown as Suite);
    reporter.onTestEnd(test, { ...testResult(shape, (text) => text), attachments: [] });
    expect(await reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 })).toEqual({
      status: 'failed',
    });
    expect(existsSync(join(dir, 'conformance.json'))).toBe(false);
  });
});

describe('the fail level comes from the run description alone', () => {
  const should = contract.requirements.find((r) => r.level === 'SHOULD' && r.checkedBy?.includes('suite') !== false)!;
  const shouldCase = {
    title: `${should.id} · case`,
    requirements: [should.id],
    findings: [finding(should.id, 'broken on purpose', 's')],
  };

  for (const { failLevel, caseStatus, recordLevel } of [
    { failLevel: 'must', caseStatus: 'passed', recordLevel: 'MUST' },
    { failLevel: 'should', caseStatus: 'failed', recordLevel: 'SHOULD' },
  ] as const) {
    it(`a SHOULD finding with fail level ${failLevel}: the case ${caseStatus}, the record's fail level ${recordLevel}`, async () => {
      const { record, results } = await runReporters(LONG_TOKENS, [shouldCase], { ...DEFAULT_RUN, failLevel });
      expect(results[0].status).toBe(caseStatus);
      expect(record?.failLevel).toBe(recordLevel);
    });
  }
});

describe('the record pipe', () => {
  const shape = { title: WALK_TITLE, requirements: [WALKED], findings: [] };

  async function endWith(recordPipe: number, data: 'kept' | 'none'): Promise<FullResult['status'] | undefined> {
    const reporter = new ConformanceReporter({ ...recording([]), recordPipe });
    const test = testCase(shape);
    reporter.onBegin(CONFIGURED, { allTests: () => [test] } as unknown as Suite);
    const result = testResult(shape, (text) => text);
    reporter.onTestEnd(test, data === 'kept' ? result : { ...result, attachments: [] });
    return (await reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 }))?.status;
  }

  it('carries the record as built, as conformance.json holds it', async () => {
    const pipe = join(dir, 'pipe');
    const fd = openSync(pipe, 'w');
    await endWith(fd, 'kept');
    const sent = JSON.parse(readFileSync(pipe, 'utf8')) as { record: CertificationRecord };
    expect(sent.record).toEqual(JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')));
  });

  it('carries the reason when there is no record', async () => {
    const pipe = join(dir, 'pipe');
    const fd = openSync(pipe, 'w');
    expect(await endWith(fd, 'none')).toBe('failed');
    expect(JSON.parse(readFileSync(pipe, 'utf8'))).toEqual({
      noVerdict: expect.stringMatching(/left no verdict data/),
    });
  });

  it('a pipe this process does not have leaves the files as they are, with a line saying so', async () => {
    const fd = openSync(join(dir, 'closed'), 'w');
    closeSync(fd);
    await endWith(fd, 'kept');
    expect(existsSync(join(dir, 'conformance.json'))).toBe(true);
    expect(stderrWrites.mock.calls.map(([text]) => String(text)).join('')).toMatch(
      /could not be sent to the run command/,
    );
  });
});
