// No silent green: the two reporters that change results (the secret scrubber, the case-outcome
// reporter) fail the run with one line naming them when they throw or are left out, and a case the
// record fails is never left passed for the renderings after them. The reporters run in their
// configured order through a dispatcher that does what Playwright's does with a reporter's
// exception: it passes the error to every reporter's onError and goes on.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadContract } from '../contract/index.ts';
import {
  CASE_FINDINGS_ATTACHMENT,
  CASE_OUTCOME,
  CASE_OUTCOME_ATTACHMENT,
  DEFAULT_RUN,
  NO_VERDICT_FILE,
  RECORD_FILE,
  REQUIREMENT_ANNOTATION,
  RESULT_CHANGING_REPORTERS,
  SECRET_SCRUBBER,
  type CaseFinding,
} from '../run-protocol/index.ts';
import { credentialSecrets } from '../run-protocol/secrets.ts';
import CaseOutcomeReporter from './case-outcome.ts';
import ConformanceReporter from './conformance-reporter.ts';
import { inputsOf } from '../run-protocol/run-inputs.ts';
import SecretScrubber from './secret-scrubber.ts';

const contract = loadContract();
const secrets = credentialSecrets({ sessionToken: 'session-token-value', pat: 'pat-value' });
const CASE_REQUIREMENT = 'RES-ID-STRING';
const SIDE_REQUIREMENT = 'AUTH-SESSION-ACCEPTED';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-result-changing-'));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

type ReporterList = [string, unknown?][];

const CONFIGURED: ReporterList = [[SECRET_SCRUBBER.file], [CASE_OUTCOME.file], ['html'], ['junit']];

function finding(requirement: string): CaseFinding {
  return contract.finding(requirement, 'response', {
    pointer: '/data/0/id',
    message: `${requirement} broken on purpose`,
  });
}

/** A case naming CASE_REQUIREMENT whose findings are these; `frozenAnnotations`: its annotations cannot be added to. */
function caseOf(findings: CaseFinding[], frozenAnnotations = false): TestCase {
  const annotations = [{ type: REQUIREMENT_ANNOTATION, description: CASE_REQUIREMENT }];
  return {
    title: `${CASE_REQUIREMENT} · case`,
    annotations: frozenAnnotations ? Object.freeze(annotations) : annotations,
    expectedStatus: 'passed',
  } as unknown as TestCase;
}

/** A passed result as a worker leaves it; `extra`: attachments besides the case's two. */
function resultOf(findings: CaseFinding[], extra: TestResult['attachments'] = []): TestResult {
  const requirements = [...new Set([CASE_REQUIREMENT, ...findings.map((f) => f.requirement)])];
  const exercised = requirements.map((requirement) => ({
    requirement,
    judged: 1,
    broken: findings.some((f) => f.requirement === requirement) ? 1 : 0,
  }));
  const outcome = {
    findings: findings.map(({ requirement, level, location }) => ({ requirement, level, location })),
    notRun: [],
    exercised,
    unexercised: [],
  };
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  return {
    status: 'passed',
    attachments: [
      {
        name: CASE_FINDINGS_ATTACHMENT,
        contentType: 'application/json',
        body: json({ target: 'http://127.0.0.1:1/v3', findings }),
      },
      { name: CASE_OUTCOME_ATTACHMENT, contentType: 'application/json', body: json(outcome) },
      ...extra,
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

/** Calls one hook on every reporter in order; what one throws goes to every reporter's onError, as Playwright does. */
function dispatch(reporters: Reporter[], hook: (reporter: Reporter) => void): void {
  for (const reporter of reporters) {
    try {
      hook(reporter);
    } catch (thrown) {
      const error: TestError = { message: (thrown as Error).message, stack: (thrown as Error).stack };
      for (const each of reporters) each.onError?.(error);
    }
  }
}

interface RunEnd {
  result: TestResult;
  status?: FullResult['status'];
  noVerdict?: string;
  recordWritten: boolean;
}

/** The scrubber, the case-outcome and the conformance reporter over one case, the configuration listing `listed`. */
async function runOne(test: TestCase, result: TestResult, listed: ReporterList = CONFIGURED): Promise<RunEnd> {
  const recording = {
    outputDir: dir,
    run: DEFAULT_RUN,
    inputs: inputsOf({}, contract.legacyHeader),
    secrets,
    baseUrl: 'http://127.0.0.1:1/v3',
  };
  const reporters: Reporter[] = [
    new SecretScrubber({ secrets }),
    new CaseOutcomeReporter(),
    new ConformanceReporter(recording),
  ];
  const config = { metadata: {}, reporter: listed, grep: /.*/, grepInvert: null, shard: null } as unknown as FullConfig;
  dispatch(reporters, (reporter) => reporter.onBegin?.(config, { allTests: () => [test] } as unknown as Suite));
  dispatch(reporters, (reporter) => reporter.onTestEnd?.(test, result));
  let status: FullResult['status'] | undefined;
  const full = { status: 'passed', startTime: new Date(), duration: 1 } as FullResult;
  for (const reporter of reporters) status = (await reporter.onEnd?.(full))?.status ?? status;
  const noVerdictFile = join(dir, NO_VERDICT_FILE);
  const noVerdict = existsSync(noVerdictFile) ? readFileSync(noVerdictFile, 'utf8').trim() : undefined;
  return {
    result,
    status,
    ...(noVerdict === undefined ? {} : { noVerdict }),
    recordWritten: existsSync(join(dir, RECORD_FILE)),
  };
}

describe('a result-changing reporter that throws', () => {
  it('the case-outcome reporter: the case is failed for every rendering, and the run has no verdict', async () => {
    // A blocking finding of its own and a side finding: the note for the side finding cannot be added.
    const findings = [finding(CASE_REQUIREMENT), finding(SIDE_REQUIREMENT)];
    const end = await runOne(caseOf(findings, true), resultOf(findings));
    expect(end.result.status).toBe('failed');
    expect(end.result.errors.map((e) => e.message)).toContainEqual(
      expect.stringMatching(new RegExp(`^${escaped(CASE_OUTCOME.name)} failed: .* on this case$`)),
    );
    expect(end.noVerdict).toMatch(new RegExp(`^${escaped(CASE_OUTCOME.name)} failed: `));
    expect(end.noVerdict).not.toContain('\n');
    expect(end.recordWritten).toBe(false);
    expect(end.status).toBe('failed');
  });

  it('the secret scrubber: the run has no verdict, the line naming it', async () => {
    const gone = { name: 'log', contentType: 'text/plain', path: join(dir, 'removed-before-the-scrubber-read-it.txt') };
    const end = await runOne(caseOf([]), resultOf([], [gone]));
    expect(end.noVerdict).toMatch(new RegExp(`^${escaped(SECRET_SCRUBBER.name)} failed: .*ENOENT`));
    expect(end.recordWritten).toBe(false);
    expect(end.status).toBe('failed');
  });

  it('neither throws on the same cases with nothing wrong: the record is written', async () => {
    const findings = [finding(CASE_REQUIREMENT), finding(SIDE_REQUIREMENT)];
    const end = await runOne(caseOf(findings), resultOf(findings));
    expect(end.noVerdict).toBeUndefined();
    expect(end.recordWritten).toBe(true);
    expect(end.result.status).toBe('failed');
  });
});

describe('a result-changing reporter left out of the configuration', () => {
  const cases = RESULT_CHANGING_REPORTERS.flatMap((reporter) => [
    { name: `${reporter.name} not listed`, reporter, listed: CONFIGURED.filter(([name]) => name !== reporter.file) },
    {
      name: `${reporter.name} listed after the renderings`,
      reporter,
      listed: [...CONFIGURED.filter(([name]) => name !== reporter.file), [reporter.file] as [string]],
    },
  ]);
  for (const { name, reporter, listed } of cases) {
    it(`${name}: no verdict, one line naming it`, async () => {
      const end = await runOne(caseOf([]), resultOf([]), listed);
      expect(end.noVerdict).toMatch(new RegExp(`^the configuration leaves out ${escaped(reporter.name)}, `));
      expect(end.noVerdict).not.toContain('\n');
      expect(end.recordWritten).toBe(false);
      expect(end.status).toBe('failed');
    });
  }
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
