import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAjv, loadContract } from '../contract/index.ts';
import type { Evidence } from '../suites/evidence.ts';
import { buildRecord, consoleSummary, MAX_EVIDENCE, PROXY_ONLY_REASON, summaryMarkdown, UNCOVERED_REASON, type CaseOutcome, type RecordInput } from './record.ts';

const contract = loadContract();
const validateRecord = createAjv().compile(JSON.parse(readFileSync(new URL('conformance.schema.json', import.meta.url), 'utf8')) as object);

function finding(requirement: string, message: string, status = 200): Evidence {
  return {
    ...contract.finding(requirement, 'response', { pointer: '/data', message, expected: 'x', actual: 'y' }),
    exchange: { method: 'GET', path: '/notification-groups?filter[type]=portal', status, curl: 'curl -i -g -X GET "$LAS_BASE_URL/notification-groups"' },
  };
}

function outcome(title: string, requirements: string[], fields: Partial<CaseOutcome> = {}): CaseOutcome {
  return { title, requirements, status: 'passed', findings: [], ...fields };
}

function input(cases: CaseOutcome[], fields: Partial<RecordInput> = {}): RecordInput {
  return { contract, kit: { name: 'las-conformance', version: '0.1.0' }, target: 'http://127.0.0.1:1/v3', failLevel: 'must', startedAt: new Date('2026-01-01T00:00:00Z'), durationMs: 1500, runStatus: 'passed', cases, ...fields };
}

const verdictOf = (record: ReturnType<typeof buildRecord>, id: string) => record.requirements.find((r) => r.id === id)!;

describe('buildRecord', () => {
  it('fails the run when a MUST requirement has a finding, whichever case found it', () => {
    const record = buildRecord(input([outcome('walk', ['NG-PAGE-WALK'], { findings: [finding('MEDIA-TYPE-RESPONSE', 'response Content-Type must be application/vnd.api+json')] })]));
    expect(record.verdict).toBe('failed');
    expect(record.verdictReason).toBe('1 MUST requirement failed: MEDIA-TYPE-RESPONSE');
    expect(verdictOf(record, 'MEDIA-TYPE-RESPONSE')).toMatchObject({ verdict: 'failed', cases: 0, evidence: [{ case: 'walk', method: 'GET', status: 200, pointer: '/data', curl: expect.stringMatching(/^curl /) }] });
    expect(verdictOf(record, 'NG-PAGE-WALK')).toMatchObject({ verdict: 'passed', cases: 1 });
  });

  it('warns for a SHOULD finding and fails on it only at --level should', () => {
    const cases = [outcome('no credentials', ['AUTH-401-NO-CREDENTIALS'], { findings: [finding('AUTH-WWW-AUTHENTICATE', 'a 401 response should carry a WWW-Authenticate header', 401)] })];
    const atMust = buildRecord(input(cases));
    expect(atMust).toMatchObject({ verdict: 'passed', verdictReason: 'no MUST requirement failed; 1 SHOULD requirement warned' });
    expect(verdictOf(atMust, 'AUTH-WWW-AUTHENTICATE').verdict).toBe('warning');
    expect(buildRecord(input(cases, { failLevel: 'should' }))).toMatchObject({ verdict: 'failed', failLevel: 'SHOULD' });
  });

  it('records INFO findings as observations, never as failures', () => {
    const record = buildRecord(input([outcome('fractional', ['NG-PAGE-FRACTIONAL'], { findings: [finding('NG-PAGE-FRACTIONAL', 'answered 400', 400)] })]));
    expect(record.verdict).toBe('passed');
    expect(verdictOf(record, 'NG-PAGE-FRACTIONAL')).toMatchObject({ verdict: 'passed', evidence: [{ message: 'answered 400' }] });
  });

  it('says why a requirement was not run: a skip, the proxy, an unfinished run, no case', () => {
    const record = buildRecord(
      input([
        outcome('forbidden', ['AUTH-403-FORBIDDEN'], { status: 'skipped', skipReason: 'no forbidden credential configured' }),
        outcome('walk', ['NG-PAGE-WALK'], { status: 'not-started' }),
        outcome('list', ['NG-FILTER-ACCEPTED']),
      ]),
    );
    expect(verdictOf(record, 'AUTH-403-FORBIDDEN')).toMatchObject({ verdict: 'not-run', reason: 'no forbidden credential configured', cases: 0 });
    expect(verdictOf(record, 'MEDIA-TYPE-REQUEST')).toMatchObject({ verdict: 'not-run', reason: PROXY_ONLY_REASON });
    expect(verdictOf(record, 'NG-PAGE-WALK')).toMatchObject({ verdict: 'not-run', reason: 'the run ended before its cases ran' });
    expect(verdictOf(record, 'HL-CREATE-201')).toMatchObject({ verdict: 'not-run', reason: UNCOVERED_REASON });
    expect(record.verdict).toBe('passed');
  });

  it('fails the own requirement of a case that failed without a finding to explain it', () => {
    const record = buildRecord(input([outcome('crashed', ['NG-PAGE-WALK', 'NG-META-TOTAL'], { status: 'timedOut', error: 'Test timeout of 60000ms exceeded.' })]));
    expect(verdictOf(record, 'NG-PAGE-WALK')).toMatchObject({ verdict: 'failed', evidence: [{ case: 'crashed', message: 'the case failed: Test timeout of 60000ms exceeded.' }] });
    expect(verdictOf(record, 'NG-META-TOTAL').verdict).toBe('passed');
    expect(record.cases).toEqual({ total: 1, passed: 0, failed: 1, notRun: 0 });
  });

  it('fails a run that did not complete even when nothing failed', () => {
    expect(buildRecord(input([outcome('walk', ['NG-PAGE-WALK'])], { runStatus: 'timedout' }))).toMatchObject({ verdict: 'failed', verdictReason: expect.stringMatching(/^the run did not complete \(timedout\)/) });
  });

  it('certifies nothing when no case ran', () => {
    expect(buildRecord(input([]))).toMatchObject({ verdict: 'failed', verdictReason: 'no case ran, so nothing was certified' });
  });

  it('keeps the first evidence and counts the rest', () => {
    const findings = Array.from({ length: MAX_EVIDENCE + 3 }, (_, i) => finding('NG-ITEM-SHAPE', `item ${i}`));
    const requirement = verdictOf(buildRecord(input([outcome('list', ['NG-ITEM-SHAPE'], { findings })])), 'NG-ITEM-SHAPE');
    expect(requirement.evidence).toHaveLength(MAX_EVIDENCE);
    expect(requirement.evidenceOmitted).toBe(3);
  });

  it('lists every requirement of the catalogue, with a tally that adds up, in the documented format', () => {
    const record = buildRecord(input([outcome('walk', ['NG-PAGE-WALK'], { findings: [finding('NG-META-PAGES', 'meta.pages is 2')] }), outcome('x', ['AUTH-403-FORBIDDEN'], { status: 'skipped', skipReason: 'r' })]));
    expect(record.requirements.map((r) => r.id)).toEqual(contract.requirements.map((r) => r.id));
    const counted = Object.values(record.tally).flatMap((t) => Object.values(t)).reduce((a, b) => a + b, 0);
    expect(counted).toBe(contract.requirements.length);
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
  });
});

describe('renderings', () => {
  const record = buildRecord(
    input([
      outcome('walk', ['NG-PAGE-WALK'], { findings: [finding('NG-META-PAGES', 'meta.pages is 2 | not 3')] }),
      outcome('no credentials', ['AUTH-401-NO-CREDENTIALS'], { findings: [finding('AUTH-WWW-AUTHENTICATE', 'no WWW-Authenticate', 401)] }),
    ]),
  );

  it('summary.md opens with the verdict and tables what failed, did not run, and warned', () => {
    const markdown = summaryMarkdown(record);
    expect(markdown.split('\n')[0]).toBe('# Conformance verdict: FAILED');
    expect(markdown).toContain('| NG-META-PAGES | MUST | 4.1 | failed | meta.pages is 2 \\| not 3 (`GET /notification-groups?filter[type]=portal` → 200) |');
    expect(markdown).toContain(`| MEDIA-TYPE-REQUEST | MUST | 4.2 | not run | ${PROXY_ONLY_REASON} |`);
    expect(markdown).toMatch(/## Warnings\n\n\| Requirement[^\n]*\n[^\n]*\n\| AUTH-WWW-AUTHENTICATE \| SHOULD \| 5 \| warning \| no WWW-Authenticate/);
  });

  it('the console ends with the verdict first, the case count and the report paths', () => {
    const text = consoleSummary(record, { conformance: '/r/conformance.json', summary: '/r/summary.md', junit: '/r/junit.xml', html: '/r/html/index.html' }, '/r');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('Verdict: FAILED: 1 MUST requirement failed: NG-META-PAGES');
    expect(lines[2]).toBe('Cases: 2 cases: 2 passed, 0 failed, 0 not run (1.5 s)');
    expect(lines.slice(-4)).toEqual(['  conformance.json', '  summary.md', '  junit.xml', '  html/index.html']);
  });
});
