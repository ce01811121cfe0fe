// Who the reports blame, with one fault on that breaks a requirement most cases that see it judge
// as a side finding (meta-pages-rounded-down the page count of every list; with no list, a fault
// breaking a create's response shape): every red case in Playwright's HTML report and in
// junit-cases.xml (read by a JUnit consumer) is a case of it, and the cases that saw it on the side
// stay green with a note. `--requirement` with the requirement it breaks on the operation selects
// the cases that name it and those that judge it on the side, and fails it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, type CliResult } from '../cli/test-support.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { SIDE_FINDING_ANNOTATION } from '../run-protocol/index.ts';
import { junitCases, readJunit, redCases } from '../test-support/junit.ts';
import { caseTitle, SUITE_CASES } from './cases/index.ts';
import { casesJudging } from './selection.ts';
import { faultedOperation, reportFiles } from './test-support.ts';
import { describeWith } from '../contract/test-support.ts';

/** The titles of the cases that name one of the requirements, their own or one they cover. */
const naming = (...ids: string[]) =>
  new Set(
    SUITE_CASES.filter((c) => ids.some((id) => c.requirements.includes(id) || c.covers?.includes(id))).map(caseTitle),
  );

interface ReportTest {
  title: string;
  outcome: string;
  annotations: { type: string; description?: string }[];
}

/** The tests of Playwright's HTML report, from the data the page renders (its embedded archive). */
function htmlReportTests(dir: string): ReportTest[] {
  const files = reportFiles(join(dir, 'html')).filter((f) => /index\.html!(?!report\.json)[^/]+\.json$/.test(f.path));
  return files.flatMap((f) => (JSON.parse(f.bytes.toString('utf8')) as { tests?: ReportTest[] }).tests ?? []);
}

/** A list's page count, or with no list a create's response shape, as a fault of the reference server breaks it. */
const subject = faultedOperation({ list: 'metaPages', create: 'responseShape' });
const describeWithSubject = describeWith(subject?.operation, 'list or create with a fault judged on the side');

describeWithSubject('one fault that breaks a requirement judged on the side', () => {
  const FAULT = subject!.fault;
  /** The requirement the fault breaks on the first operation it applies to, which `--requirement` selects. */
  const BROKEN = FAULT.requirement;
  /** What it breaks on every operation it applies to, each one's own requirement for the role. */
  const BROKEN_ALL = FAULT.requirements;

  let root: string;
  const runs = new Map<string, { result: CliResult; dir: string; record: CertificationRecord }>();

  async function run(name: string, args: string[]): Promise<void> {
    const dir = join(root, name);
    const result = await runCli([
      'run',
      '--reference-server',
      '--fault',
      FAULT.name,
      '--generate',
      '0',
      '--report-dir',
      dir,
      '--workers',
      '1',
      ...args,
    ]);
    runs.set(name, {
      result,
      dir,
      record: JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as CertificationRecord,
    });
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'las-blame-'));
    await Promise.all([run('whole', []), run('requirement', ['--requirement', BROKEN])]);
  }, 600_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  describe(`one fault on (${FAULT.name}, breaking ${BROKEN})`, () => {
    it('fails the run for it: exit 1, the record fails it', () => {
      const { result, record } = runs.get('whole')!;
      expect(result.code).toBe(1);
      expect(
        record.requirements
          .filter((r) => r.verdict === 'failed')
          .map((r) => r.id)
          .sort(),
      ).toEqual([...BROKEN_ALL].sort());
    });

    it(`junit-cases.xml (a JUnit consumer): every red case is a case of ${BROKEN}, and there are some`, () => {
      const red = redCases(readJunit(join(runs.get('whole')!.dir, 'junit-cases.xml'))).map((c) => c.name);
      expect(red.length).toBeGreaterThan(0);
      expect(red.filter((title) => !naming(...BROKEN_ALL).has(title))).toEqual([]);
    });

    it(`Playwright's HTML report: every red case is a case of ${BROKEN}; a case that saw it on the side is green with a note`, () => {
      const { dir, record } = runs.get('whole')!;
      const tests = htmlReportTests(dir);
      expect(tests).toHaveLength(record.cases.total);
      const red = tests.filter((t) => t.outcome === 'unexpected').map((t) => t.title);
      expect(red.length).toBeGreaterThan(0);
      expect(red.filter((title) => !naming(...BROKEN_ALL).has(title))).toEqual([]);
      const sideWitnesses = record.requirements
        .find((r) => r.id === BROKEN)!
        .evidence.map((e) => e.case)
        .filter((title) => !naming(BROKEN).has(title));
      expect(sideWitnesses.length).toBeGreaterThan(0);
      const witness = tests.find((t) => t.title === sideWitnesses[0])!;
      expect(witness.outcome).toBe('expected');
      expect(
        witness.annotations.some(
          (a) => a.type === SIDE_FINDING_ANNOTATION && a.description?.startsWith(`${BROKEN} (MUST`),
        ),
      ).toBe(true);
    });
  });

  describe(`--requirement ${BROKEN}, a requirement judged on the side`, () => {
    it('selects the cases that name it and those that judge it on the side, and fails it (exit 1)', async () => {
      const { result, record, dir } = runs.get('requirement')!;
      expect(record.selection).toEqual({ whole: false, requirements: [BROKEN], readOnly: false });
      const selected = junitCases(readJunit(join(dir, 'junit-cases.xml'))).map((c) => c.name);
      expect(selected.sort()).toEqual((await casesJudging([BROKEN])).sort());
      expect(selected.filter((title) => !naming(BROKEN).has(title)).length).toBeGreaterThan(0);
      expect(record.requirements.find((r) => r.id === BROKEN)?.verdict).toBe('failed');
      expect(result.code).toBe(1);
    });
  });
});

describe('--requirement', () => {
  it('an id the catalogue does not have is a usage error: exit 2, one line', async () => {
    const result = await runCliInProcess(['run', '--requirement', 'NO-SUCH-REQUIREMENT']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'las-conformance: --requirement NO-SUCH-REQUIREMENT: no such requirement in the catalogue (see las-conformance contract)\n',
    );
  });
});
