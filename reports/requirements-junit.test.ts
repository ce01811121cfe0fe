import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import {
  BROKEN,
  BROKEN_MESSAGE,
  caseOutcome,
  failedRun,
  FINDING_CURL,
  FINDING_PATH,
  findingOf,
  recordOf,
  SECOND_CASE,
  SECOND_FINDING_PATH,
  waivedIncompleteRun,
} from './test-support.ts';
import { requirementsJunit } from './requirements-junit.ts';

interface JunitCase {
  name: string;
  classname: string;
  body: string;
}

const contract = loadContract();

function testcases(xml: string): JunitCase[] {
  return [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map(
    ([, name, classname, body]) => ({ name, classname, body }),
  );
}

const idOf = (c: JunitCase) => c.name.split(' · ')[0];
const failing = (xml: string) =>
  testcases(xml)
    .filter((c) => c.body.includes('<failure'))
    .map(idOf);

describe('the per-requirement JUnit file', () => {
  const xml = requirementsJunit(failedRun());

  it('has one test case per requirement of the catalogue, named by id and text, classed by section', () => {
    const cases = testcases(xml);
    const catalogue = contract.requirements;
    expect(cases.map(idOf).sort()).toEqual(catalogue.map((r) => r.id).sort());
    const broken = cases.find((c) => idOf(c) === BROKEN.id)!;
    expect(broken.name).toBe(`${BROKEN.id} · ${BROKEN.text}`);
    expect(broken.classname).toBe(`section ${BROKEN.section}`);
  });

  it('gives each requirement the exchanges judged and broken as properties', () => {
    const body = testcases(xml).find((c) => idOf(c) === BROKEN.id)!.body;
    expect(body).toContain('<property name="judged" value="3"/>');
    expect(body).toContain('<property name="broken" value="2"/>');
  });

  it('fails exactly the requirements that failed, not the cases that saw them', () => {
    expect(failing(xml)).toEqual([BROKEN.id]);
    expect(xml).toMatch(/^<testsuites [^>]*tests="\d+" failures="1" errors="0"/m);
  });

  it('puts the first finding, its pointer and its curl line in the failure message, every finding in its text', () => {
    const body = testcases(xml).find((c) => idOf(c) === BROKEN.id)!.body;
    const message = /<failure message="([^"]*)" type="MUST">/.exec(body)?.[1];
    expect(message).toBe(
      `${BROKEN.id}: ${BROKEN_MESSAGE} at /data/0/id (expected 3, actual 2) in GET ${FINDING_PATH} → 200 | reproduce: ${FINDING_CURL.replaceAll('"', '&quot;')}`,
    );
    expect(body).toContain(`case: ${SECOND_CASE}`);
    expect(body).toContain(SECOND_FINDING_PATH.replaceAll('&', '&amp;'));
  });

  it('reports a requirement not run as skipped with its reason', () => {
    const body = testcases(xml).find((c) => idOf(c) === 'AUTH-403-FORBIDDEN')!.body;
    expect(body).toContain('<skipped message="not run: no forbidden credential configured"/>');
  });

  it('shows a SHOULD warning without failing it, and fails it under --level should', () => {
    const warned = testcases(xml).find((c) => idOf(c) === 'AUTH-WWW-AUTHENTICATE')!.body;
    expect(warned).not.toContain('<failure');
    expect(warned).toContain('<system-out>warning:');
    expect(failing(requirementsJunit(failedRun({ failLevel: 'should' })))).toEqual([
      BROKEN.id,
      'AUTH-WWW-AUTHENTICATE',
    ]);
  });

  it('reports a waived requirement as skipped, with its waiver', () => {
    const body = testcases(requirementsJunit(waivedIncompleteRun())).find((c) => idOf(c) === BROKEN.id)!.body;
    expect(body).toContain('<skipped message="waived: reason: fixed in release 4.2; expires: 2027-03-01"/>');
  });

  it('escapes what a target sent, so the file stays well-formed XML', () => {
    const hostile = recordOf([
      caseOutcome('ERR-ENVELOPE · hostile', ['ERR-ENVELOPE'], {
        status: 'failed',
        findings: [findingOf('ERR-ENVELOPE', 'title was "<b>&\u0001</b>"', { pointer: '/errors/0/title' })],
      }),
    ]);
    const out = requirementsJunit(hostile);
    expect(out).toContain('title was &quot;&lt;b&gt;&amp;\uFFFD&lt;/b&gt;&quot;');
    expect(out).not.toContain('<b>');
  });
});
