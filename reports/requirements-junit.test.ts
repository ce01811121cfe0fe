import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { failedRun, findingOf, caseOutcome, recordOf, waivedIncompleteRun } from './test-support.ts';
import { requirementsJunit } from './requirements-junit.ts';

interface JunitCase {
  name: string;
  classname: string;
  body: string;
}

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
    const catalogue = loadContract().requirements;
    expect(cases.map(idOf).sort()).toEqual(catalogue.map((r) => r.id).sort());
    const pages = cases.find((c) => idOf(c) === 'NG-META-PAGES')!;
    expect(pages.name).toBe('NG-META-PAGES · `meta.pages` is ceil(total / limit); an empty result may report 0 or 1.');
    expect(pages.classname).toBe('section 4.1');
  });

  it('gives each requirement the exchanges judged and broken as properties', () => {
    const body = testcases(xml).find((c) => idOf(c) === 'NG-META-PAGES')!.body;
    expect(body).toContain('<property name="judged" value="3"/>');
    expect(body).toContain('<property name="broken" value="2"/>');
  });

  it('fails exactly the requirements that failed, not the cases that saw them', () => {
    expect(failing(xml)).toEqual(['NG-META-PAGES']);
    expect(xml).toMatch(/^<testsuites [^>]*tests="\d+" failures="1" errors="0"/m);
  });

  it('puts the first finding, its pointer and its curl line in the failure message, every finding in its text', () => {
    const body = testcases(xml).find((c) => idOf(c) === 'NG-META-PAGES')!.body;
    const message = /<failure message="([^"]*)" type="MUST">/.exec(body)?.[1];
    expect(message).toBe(
      'NG-META-PAGES: meta.pages is 2, ceil(total 27 / limit 10) is 3 at /meta/pages (expected 3, actual 2) in GET /notification-groups?filter[type]=portal → 200 | reproduce: curl -i -g -X GET &quot;$LAS_BASE_URL/notification-groups?filter[type]=portal&quot; -H &quot;authorization: Bearer r:$LAS_SESSION_TOKEN&quot;',
    );
    expect(body).toContain('case: NG-PAGE-WALK · walk');
    expect(body).toContain('filter[type]=user');
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
      'NG-META-PAGES',
      'AUTH-WWW-AUTHENTICATE',
    ]);
  });

  it('reports a waived requirement as skipped, with its waiver', () => {
    const body = testcases(requirementsJunit(waivedIncompleteRun())).find((c) => idOf(c) === 'NG-META-PAGES')!.body;
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
