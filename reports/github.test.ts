import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeRegExp } from '../contract/index.ts';
import { failedRequirementsConsole } from './console-summary.ts';
import { githubAnnotations, reportToGithub } from './github.ts';
import {
  BROKEN,
  BROKEN_MESSAGE,
  caseOutcome,
  failedRun,
  FINDING_CURL,
  FINDING_PATH,
  findingOf,
  recordOf,
} from './test-support.ts';

/** Text as a regular expression matching it literally. */

describe('the console list of failed requirements', () => {
  it('names each requirement that fails the run, with its first finding and curl line', () => {
    const lines = failedRequirementsConsole(failedRun()).trimEnd().split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Failed requirements (1):',
      `  ${BROKEN.id} (MUST, section ${BROKEN.section}; judged on 3 exchanges, 2 broke it): ${BROKEN.text}`,
      `    ${BROKEN_MESSAGE} at /data/0/id (expected 3, actual 2) in GET ${FINDING_PATH} → 200`,
      `    ${FINDING_CURL}`,
      '    and 1 more finding in conformance.json',
    ]);
    expect(lines.at(-1)).toMatch(/^To reproduce a finding, export LAS_BASE_URL/);
  });

  it('is empty when nothing fails the run', () => {
    expect(failedRequirementsConsole(recordOf([], { runStatus: 'passed' }))).toBe('');
  });
});

describe('GitHub Actions', () => {
  it('annotates each failed requirement as an error and each SHOULD warning as a warning, escaped as workflow commands', () => {
    const lines = githubAnnotations(failedRun()).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `::warning title=AUTH-WWW-AUTHENTICATE (SHOULD%2C section 5)::A 401 response carries a WWW-Authenticate header (HTTP semantics).%0Aa 401 response should carry a WWW-Authenticate header at WWW-Authenticate (expected 3, actual 2) in GET ${FINDING_PATH} → 401%0A${FINDING_CURL}`,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^::error title=${escapeRegExp(`${BROKEN.id} (MUST%2C section ${BROKEN.section})::${BROKEN.text}`)}` +
          `%0A${escapeRegExp(BROKEN_MESSAGE)} .*%0Acurl -i -g `,
      ),
    );
  });

  it('escapes a percent sign and line breaks in a finding, so one annotation stays one line', () => {
    const record = recordOf([
      caseOutcome('ERR-ENVELOPE · odd', ['ERR-ENVELOPE'], {
        status: 'failed',
        findings: [findingOf('ERR-ENVELOPE', 'detail was "100%\nsure"')],
      }),
    ]);
    const line = githubAnnotations(record).trimEnd();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('detail was "100%25%0Asure"');
  });

  it('writes the annotations and appends summary.md to the step summary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'las-github-'));
    try {
      const summaryFile = join(dir, 'summary.md');
      const stepSummaryFile = join(dir, 'step-summary.md');
      writeFileSync(summaryFile, '# Conformance verdict: FAILED\n');
      writeFileSync(stepSummaryFile, '# an earlier step\n');
      let written = '';
      reportToGithub(failedRun(), { summaryFile, stepSummaryFile, write: (text) => (written += text) });
      expect(written).toContain(`::error title=${BROKEN.id}`);
      expect(readFileSync(stepSummaryFile, 'utf8')).toBe('# an earlier step\n# Conformance verdict: FAILED\n\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
