// A failure the gate accepts (an active waiver, a --baseline failure) is shown as what the gate
// decided in every rendering: skipped with its reason in junit.xml (read by a JUnit consumer), a
// "waived" or "known failure" badge and count in certification.html, its own section in
// summary.md, its own list on the console and a notice on GitHub; never as a plain failure. A
// failure nothing accepts is still a failure everywhere.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { junitCases, readJunit, redCases } from '../test-support/junit.ts';
import { certificationHtml } from './certification-html.ts';
import { consoleSummary, failedRequirementsConsole, summaryMarkdown } from './console-summary.ts';
import { githubAnnotations } from './github.ts';
import type { CertificationRecord, GatePolicy } from './record.ts';
import {
  BROKEN,
  caseOutcome,
  failedRun,
  findingOf,
  GENERATED_OPERATION,
  generatedBreaking,
  OBSERVED,
  recordOf,
  SECOND_CASE_REQUIREMENT,
} from './test-support.ts';
import { requirementsJunit } from './requirements-junit.ts';

/** The JUnit case of the generated inputs that broke BROKEN. */
const GENERATED_CASE = `${GENERATED_OPERATION.operationId} · ${BROKEN.id}`;

const dir = mkdtempSync(join(tmpdir(), 'las-gate-renderings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TODAY = '2026-01-01';
const WAIVED: GatePolicy = {
  allowPartial: true,
  waivers: [{ requirement: BROKEN.id, reason: 'rounding fix ships in 4.2', expires: '2026-12-31' }],
  today: TODAY,
};
const BASELINE: GatePolicy = {
  allowPartial: true,
  waivers: [],
  baseline: { file: 'reports/last-release/conformance.json', failing: [BROKEN.id] },
  today: TODAY,
};
const EXPIRED: GatePolicy = { ...WAIVED, waivers: [{ ...WAIVED.waivers[0], expires: '2025-12-31' }] };

/** The reason of a test case's <skipped>, which the JUnit consumer does not read back. */
function skippedMessage(xml: string, testCase: string): string | undefined {
  const at = xml.indexOf(`<testcase name="${testCase}"`);
  return at < 0
    ? undefined
    : /^[^]*?<skipped message="([^"]*)"\/>/.exec(xml.slice(at, xml.indexOf('</testcase>', at)))?.[1];
}

function junitOf(record: CertificationRecord, name: string) {
  const file = join(dir, `${name}.xml`);
  writeFileSync(file, requirementsJunit(record));
  return readJunit(file);
}

const accepted: [string, GatePolicy, string, string][] = [
  ['waived', WAIVED, 'waived', 'waived until 2026-12-31: rounding fix ships in 4.2'],
  [
    'known from the baseline',
    BASELINE,
    'known failure',
    'known failure in the baseline reports/last-release/conformance.json',
  ],
];

for (const [name, gate, kind, why] of accepted) {
  describe(`the only failure ${name}`, () => {
    const record = failedRun({ gate });

    it('passes the gate', () => {
      expect(record).toMatchObject({ verdict: 'failed', gate: { result: 'pass' } });
    });

    it(`junit.xml: a JUnit consumer sees no red case; the requirement is skipped with one reason, "${why}"`, () => {
      const junit = junitOf(record, name.replace(/ /g, '-'));
      expect(redCases(junit).map((c) => c.name)).toEqual([]);
      const broken = junitCases(junit).find((c) => c.name.startsWith(`${BROKEN.id} `))!;
      expect(broken.status).toBe('SKIP');
      expect(broken.metadata).toMatchObject({ verdict: kind, gate: why });
      expect(requirementsJunit(record)).toContain(`<skipped message="${why}"/>`);
    });

    it('junit.xml with generated inputs that broke it too: no red case, the generated one skipped with the same reason', () => {
      const withGenerated = failedRun({ gate, generated: generatedBreaking(BROKEN.id) });
      const junit = junitOf(withGenerated, `${name.replace(/ /g, '-')}-generated`);
      expect(junit.failed).toBe(0);
      expect(redCases(junit).map((c) => c.name)).toEqual([]);
      const generated = junitCases(junit).find((c) => c.name === GENERATED_CASE)!;
      expect(generated.status).toBe('SKIP');
      expect(skippedMessage(requirementsJunit(withGenerated), generated.name)).toBe(why);
    });

    it('certification.html: its badge, count and reason say how the gate took it', () => {
      const html = certificationHtml(record);
      expect(html).toContain('<header id="verdict" class="banner accepted"><div><h1>FAILED</h1>');
      expect(html).toContain(
        `<p id="verdict-reason">1 MUST requirement failed: ${BROKEN.id} (${kind})</p><p id="gate">Gate: <strong>PASS</strong>`,
      );
      expect(html).toMatch(
        new RegExp(
          `<details class="requirement ${kind.replace(' ', '-')}" id="evidence-${BROKEN.id}" open><summary><span class="badge ${kind.replace(' ', '-')}">${kind}</span>`,
        ),
      );
      expect(html).toContain(`<p class="reason">${why}</p>`);
      expect(html).not.toContain('badge failed');
      expect(html).toMatch(
        new RegExp(`<tr><th scope="row">MUST</th><td class="number passed">\\d+</td><td class="number zero">0</td>`),
      );
    });

    it('summary.md: listed under the failures the gate accepts, not the failed ones', () => {
      const summary = summaryMarkdown(record);
      const failedSection = summary.slice(
        summary.indexOf('## Failed and not-run'),
        summary.indexOf('## Failures the gate accepts'),
      );
      expect(failedSection).not.toContain(BROKEN.id);
      expect(summary).toContain(`| ${BROKEN.id} | MUST | ${BROKEN.section} | ${kind} | ${why} |`);
      expect(summary).toContain(`1 MUST requirement failed: ${BROKEN.id}`);
      expect(summary).toContain(`${BROKEN.id} (${kind})`);
    });

    it('the console: no "Failed requirements", the failure listed as accepted with why', () => {
      const text =
        failedRequirementsConsole(record) +
        consoleSummary(record, { dir: '/r', files: ['/r/conformance.json', '/r/summary.md'] }, '/');
      expect(text).not.toContain('Failed requirements');
      expect(text).toContain(
        `Failures the gate accepts (1):\n  ${BROKEN.id} (MUST, section ${BROKEN.section}): ${why}`,
      );
      expect(text).not.toMatch(/^Verdict: FAILED/m);
      expect(text).toContain(
        `\nVerdict: PASSED by the gate, which sets the exit code: no failure left (1 failure ${kind === 'waived' ? 'waived' : 'known from the baseline'})\n`,
      );
      expect(text).toContain(
        `\n  before ${kind === 'waived' ? 'waivers' : 'the baseline'}: FAILED: 1 MUST requirement failed: ${BROKEN.id} (${kind})\n`,
      );
      expect(text).toMatch(/\nCases: \d+ cases: \d+ passed \(a failure the gate accepts fails no case\), /);
      expect(text).toMatch(/\nRequirements: MUST \d+ passed, 1 failed \(1 accepted by the gate\), /);
    });

    it('GitHub: a notice, no error', () => {
      const annotations = githubAnnotations(record);
      expect(annotations).not.toContain('::error');
      expect(annotations).toContain(`::notice title=${BROKEN.id}`);
    });
  });
}

describe('a failure nothing accepts, found by fixed cases and by generated inputs', () => {
  it("junit.xml: a JUnit consumer finds exactly one failure, the requirement's; the generated case points at it", () => {
    const record = failedRun({ generated: generatedBreaking(BROKEN.id) });
    const junit = junitOf(record, 'unwaived-generated');
    expect(junit.failed).toBe(1);
    expect(redCases(junit).map((c) => c.name.split(' ')[0])).toEqual([BROKEN.id]);
    const generated = junitCases(junit).find((c) => c.name === GENERATED_CASE)!;
    expect(generated.status).toBe('SKIP');
    const reason = skippedMessage(requirementsJunit(record), generated.name);
    expect(reason).toMatch(
      new RegExp(`^counted once, as the failure of ${BROKEN.id} · .* in the suite MUST requirements$`),
    );
  });
});

describe('a failure whose waiver has expired', () => {
  const record = failedRun({ gate: EXPIRED });

  it('fails the gate and is a failure in every rendering', () => {
    expect(record.gate.result).toBe('fail');
    const junit = junitOf(record, 'expired');
    expect(redCases(junit).map((c) => c.name.split(' ')[0])).toEqual([BROKEN.id]);
    expect(certificationHtml(record)).toContain(
      `<span class="badge failed blocking">failed</span> <strong>${BROKEN.id}</strong>`,
    );
    expect(failedRequirementsConsole(record)).toContain('Failed requirements (1):');
    expect(githubAnnotations(record)).toContain(`::error title=${BROKEN.id}`);
  });
});

describe('JUnit times and observations', () => {
  it("each requirement's time is the time its cases took, read back by the JUnit consumer", () => {
    const record = failedRun();
    const withTimes = {
      ...record,
      requirements: record.requirements.map((r) => (r.id === SECOND_CASE_REQUIREMENT ? { ...r, durationMs: 1234 } : r)),
    };
    const walk = junitCases(junitOf(withTimes, 'times')).find((c) => c.name.startsWith(`${SECOND_CASE_REQUIREMENT} `))!;
    expect(walk.duration).toBe(1234);
  });

  it("a requirement's time in the record is the time of the cases that ran and exercise it, added up", () => {
    const record = recordOf([
      caseOutcome(`${SECOND_CASE_REQUIREMENT} · a`, [SECOND_CASE_REQUIREMENT], { durationMs: 700 }),
      caseOutcome(`${SECOND_CASE_REQUIREMENT} · b`, [SECOND_CASE_REQUIREMENT], { durationMs: 534 }),
    ]);
    expect(record.requirements.find((r) => r.id === SECOND_CASE_REQUIREMENT)?.durationMs).toBe(1234);
  });

  it('an observation seen by 25 cases is written once, with its count', () => {
    const cases = Array.from({ length: 25 }, (_, i) =>
      caseOutcome(`${OBSERVED.id} · case ${i}`, [OBSERVED.id], {
        findings: [findingOf(OBSERVED.id, 'the same observation each time')],
      }),
    );
    const xml = requirementsJunit(recordOf(cases));
    const out = new RegExp(`<testcase name="${OBSERVED.id} [\\s\\S]*?<system-out>([\\s\\S]*?)</system-out>`).exec(
      xml,
    )![1];
    expect(out.match(/the same observation each time/g)).toHaveLength(1);
    expect(out).toContain('observation: 25 findings:');
    expect(out).toContain('(seen 25 times)');
  });
});
