// What every rendering of one record agrees on: it names the target in its first lines, and it
// shows the same first finding of a requirement (the shortest reproducer), whatever order the
// record keeps its evidence in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificationHtml } from './certification-html.ts';
import { consoleHeading, consoleSummary, failedRequirementsConsole, summaryMarkdown } from './console-summary.ts';
import { diffMarkdown, diffRecords } from './diff.ts';
import { reportToGithub } from './github.ts';
import type { CertificationRecord } from './record.ts';
import {
  BROKEN,
  caseOutcome,
  findingOf,
  OBSERVED,
  recordOf,
  SECOND_CASE,
  SECOND_CASE_REQUIREMENT,
} from './test-support.ts';
import { requirementsJunit } from './requirements-junit.ts';

/** A long reproducer: a POST with a long body (made up: a rendering shows a path, whatever it is). */
const LONG = {
  message: 'id is 1 after a long POST',
  method: 'POST',
  path: '/records',
  status: 201,
  curl: `curl -i -g -X POST "$LAS_BASE_URL/records" --data-binary '${'x'.repeat(300)}'`,
};
const SHORT_MESSAGE = 'id is 2 on a plain GET';

/** BROKEN failed twice, the longer reproducer first in the record; an observation likewise. */
function record(): CertificationRecord {
  const long = {
    ...findingOf(BROKEN.id, LONG.message),
    exchange: { method: LONG.method, path: LONG.path, status: LONG.status, curl: LONG.curl },
  };
  const observedLong = {
    ...findingOf(OBSERVED.id, 'observed after a long POST'),
    exchange: { method: LONG.method, path: LONG.path, status: LONG.status, curl: LONG.curl },
  };
  return recordOf([
    caseOutcome(SECOND_CASE, [SECOND_CASE_REQUIREMENT], {
      status: 'failed',
      findings: [long, findingOf(BROKEN.id, SHORT_MESSAGE)],
    }),
    caseOutcome(`${OBSERVED.id} · seen`, [OBSERVED.id], {
      findings: [observedLong, findingOf(OBSERVED.id, 'observed on a plain GET')],
    }),
  ]);
}

let dir: string;
let renderings: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-renderings-'));
  const failed = record();
  const before = recordOf([], { runStatus: 'passed' });
  writeFileSync(join(dir, 'summary.md'), summaryMarkdown(failed));
  const stepSummary = join(dir, 'step-summary.md');
  let annotations = '';
  reportToGithub(failed, {
    stepSummaryFile: stepSummary,
    summaryFile: join(dir, 'summary.md'),
    write: (text) => (annotations += text),
  });
  renderings = {
    console: `${consoleHeading(failed)}${failedRequirementsConsole(failed)}\n${consoleSummary(failed, { dir: '/r', files: ['/r/conformance.json', '/r/summary.md'] }, '/r')}`,
    'summary.md': summaryMarkdown(failed),
    'certification.html': certificationHtml(failed),
    'junit.xml': requirementsJunit(failed),
    'GitHub job summary': readFileSync(stepSummary, 'utf8'),
    'GitHub annotations': annotations,
    diff: diffMarkdown(diffRecords(before, failed, { old: 'before.json', new: 'after.json' })),
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every rendering of a record', () => {
  const FIRST_LINES: Record<string, number> = {
    console: 1,
    'summary.md': 3,
    'certification.html': 8,
    'junit.xml': 2,
    'GitHub job summary': 3,
    diff: 4,
  };
  for (const [name, lines] of Object.entries(FIRST_LINES)) {
    it(`${name} names the target in its first ${lines} line${lines === 1 ? '' : 's'}`, () => {
      expect(renderings[name].split('\n').slice(0, lines).join('\n')).toContain('http://127.0.0.1:4010/v3');
    });
  }

  it('the certificate says in its header that the record is unsigned (self-reported)', () => {
    const header = /<header id="verdict".*?<\/header>/s.exec(renderings['certification.html'])?.[0] ?? '';
    expect(header).toContain('<p id="signature" class="unsigned">Unsigned (self-reported): ');
    expect(renderings['summary.md'].split('\n').slice(0, 3).join('\n')).toContain('**unsigned (self-reported): ');
    expect(renderings.console.split('\n')[1]).toMatch(/^Record: unsigned \(self-reported\): /);
  });

  const SHOWING_THE_FAILURE = [
    'console',
    'summary.md',
    'certification.html',
    'junit.xml',
    'GitHub annotations',
    'diff',
  ];
  for (const name of SHOWING_THE_FAILURE) {
    it(`${name} shows the shortest reproducer as the failed requirement's first finding`, () => {
      const text = renderings[name];
      // Where the failure is shown first: after its id, the first of the two messages must be the short one.
      const from = text.indexOf(BROKEN.id);
      const shown = [text.indexOf(SHORT_MESSAGE, from), text.indexOf(LONG.message, from)];
      expect(shown[0]).toBeGreaterThan(-1);
      expect(shown[1] === -1 || shown[0] < shown[1]).toBe(true);
    });
  }

  it("summary.md and certification.html show the shortest reproducer as an observation's first too", () => {
    expect(renderings['summary.md']).toContain(
      `- ${OBSERVED.id} (section ${OBSERVED.section}): observed on a plain GET`,
    );
    const html = renderings['certification.html'];
    const observation = html.slice(html.indexOf(`id="evidence-${OBSERVED.id}"`));
    expect(observation.indexOf('observed on a plain GET')).toBeLessThan(
      observation.indexOf('observed after a long POST'),
    );
  });
});
