// The HTML certification report: what it says as text, and how it reads in a real browser
// (test-support/browser.ts): the verdict at the top, every requirement in the table, the failed
// one's evidence open with its curl line, and a copy button that copies exactly that line.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { browserTestsRun, launchBrowser } from '../test-support/browser.ts';
import { certificationHtml, wrappedCurl } from './certification-html.ts';
import type { CertificationRecord } from './record.ts';
import { caseOutcome, failedRun, findingOf, recordOf, waivedIncompleteRun } from './test-support.ts';

const CURL = 'curl -i -g -X GET "$LAS_BASE_URL/notification-groups?filter[type]=portal" -H "authorization: Bearer r:$LAS_SESSION_TOKEN"';

describe('the certification report as text', () => {
  it('shows per requirement the exchanges judged and broken', () => {
    const html = certificationHtml(failedRun());
    const row = /<tr class="failed" data-requirement="NG-META-PAGES">(.*?)<\/tr>/.exec(html)?.[1] ?? '';
    expect(row).toMatch(/<td class="number[^"]*"[^>]*>\d+<\/td><td class="number col-judged"[^>]*>3<\/td><td class="number col-broken"[^>]*>2<\/td>/);
    expect(html).toContain('<th title="exchanges a check that can break it judged">Judged</th>');
  });

  it('escapes everything a target sent', () => {
    const record = recordOf([caseOutcome('ERR-ENVELOPE · hostile', ['ERR-ENVELOPE'], { status: 'failed', findings: [findingOf('ERR-ENVELOPE', '<img src=x onerror=alert(1)>', { pointer: '/errors/0/<b>' })] })]);
    const html = certificationHtml(record);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('/errors/0/&lt;b&gt;');
  });

  it('lays out the run as people read it, never as name: value pairs', () => {
    const record = { ...failedRun(), kit: { name: 'las-conformance', version: '0.2.0', commit: '4b3e1e0' }, selection: { whole: false, grep: 'AUTH-401', readOnly: true } };
    const html = certificationHtml(record);
    expect(html).toContain('las-conformance 0.2.0 (commit <code>4b3e1e0</code>)');
    expect(html).toContain('<dt>Selection</dt><dd>the cases whose titles match <code>AUTH-401</code> (--grep)<br>read-only: no request that could create a record was sent</dd>');
    expect(html).toContain('<dt>Optional inputs</dt><dd>none of the optional inputs<br>not given: forbidden token, collection item id, owner user id, legacy header name, certificate authorities</dd>');
    expect(html).toContain('<dt>Gate</dt><dd><strong>fail</strong>: failing: NG-META-PAGES</dd>');
    const facts = /<dl class="facts">.*?<\/dl>/s.exec(html)?.[0] ?? '';
    expect(facts).toContain('<dt>Checked by</dt>');
    expect(facts).not.toMatch(/\w: [^<;]*; \w+: /);
  });

  it('shows a member a newer record adds as a nested list', () => {
    const record = { ...failedRun(), attestation: { signer: 'Example Labs', scope: ['MUST'] } } as unknown as CertificationRecord;
    expect(certificationHtml(record)).toContain('<dt>attestation</dt><dd><span class="more-fact"><dl class="nested"><dt>signer</dt><dd>Example Labs</dd><dt>scope</dt><dd><ul class="nested"><li>MUST</li></ul></dd></dl></span></dd>');
  });

  it('wraps a long curl line one option a line, and keeps it one shell command', () => {
    const long = `curl -i -g -X POST "$LAS_BASE_URL/highlights" -H "authorization: Bearer r:$LAS_SESSION_TOKEN" -H "content-type: application/vnd.api+json" --data-binary '{"data":{"type":"Highlight","attributes":{"summary":"a -H b"}}}'`;
    expect(wrappedCurl(long)).toBe(`curl -i -g -X POST "$LAS_BASE_URL/highlights" \\\n  -H "authorization: Bearer r:$LAS_SESSION_TOKEN" \\\n  -H "content-type: application/vnd.api+json" \\\n  --data-binary '{"data":{"type":"Highlight","attributes":{"summary":"a -H b"}}}'`);
  });

  it('shows the shortest reproducer of a requirement first', () => {
    const post = { ...findingOf('ERR-ENVELOPE', 'no errors member'), exchange: { method: 'POST', path: '/highlights', status: 400, curl: `curl -i -g -X POST "$LAS_BASE_URL/highlights" --data-binary '${'x'.repeat(500)}'` } };
    const get = findingOf('ERR-ENVELOPE', 'no errors member', { status: 400 });
    const html = certificationHtml(recordOf([caseOutcome('ERR-ENVELOPE · two', ['ERR-ENVELOPE'], { status: 'failed', findings: [post, get] })]));
    const evidence = html.slice(html.indexOf('id="evidence-ERR-ENVELOPE"'));
    expect(evidence.indexOf('GET /notification-groups')).toBeLessThan(evidence.indexOf('POST /highlights'));
  });

  it('shows a run verdict of incomplete and a waived requirement with its waiver', () => {
    const html = certificationHtml(waivedIncompleteRun());
    expect(html).toContain('<header id="verdict" class="banner incomplete"><div><h1>INCOMPLETE</h1>');
    expect(html).toMatch(/<details class="requirement waived" id="evidence-NG-META-PAGES" open><summary><span class="badge waived">waived<\/span>/);
    expect(html).toContain('reason: fixed in release 4.2; expires: 2027-03-01');
  });
});

describe.skipIf(!browserTestsRun)('the certification report in a browser', () => {
  let server: Server;
  let url: string;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    const html = certificationHtml(failedRun());
    server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url.slice(0, -1) });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('reads at a glance: the verdict and its reason first, then the target', async () => {
    const page = await context.newPage();
    await page.goto(url);
    expect(await page.title()).toBe('FAILED: Learning and Assessment Service API 3.0.0 at http://127.0.0.1:4010/v3');
    const banner = page.locator('#verdict');
    expect(await banner.locator('h1').textContent()).toBe('FAILED');
    expect(await page.locator('#verdict-reason').textContent()).toBe('1 MUST requirement failed: NG-META-PAGES');
    expect(await page.locator('#target').textContent()).toBe('http://127.0.0.1:4010/v3');
    // The banner is the first thing on the page, in the failure colour.
    expect(await banner.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(179, 38, 30)');
    expect((await banner.boundingBox())?.y).toBe(0);
    await page.close();
  });

  it('lists every requirement of the catalogue, the failed one with its first finding', async () => {
    const page = await context.newPage();
    await page.goto(url);
    expect(await page.locator('#requirements tbody tr').count()).toBe(loadContract().requirements.length);
    const failed = page.locator('#requirements tbody tr.failed');
    expect(await failed.count()).toBe(1);
    expect(await failed.getAttribute('data-requirement')).toBe('NG-META-PAGES');
    expect(await failed.locator('td').last().textContent()).toBe('meta.pages is 2, ceil(total 27 / limit 10) is 3 GET /notification-groups?filter[type]=portal → 200 +1');
    expect(await page.locator('#requirements tr[data-requirement="AUTH-403-FORBIDDEN"] td').last().textContent()).toBe('no forbidden credential configured');
    expect(await page.locator('#tally tbody tr', { hasText: 'MUST' }).locator('td.failed').textContent()).toBe('1');
    await page.close();
  });

  it('shows the failed requirement\'s evidence open, and its copy button copies the curl line', async () => {
    const page = await context.newPage();
    await page.goto(url);
    const evidence = page.locator('#attention #evidence-NG-META-PAGES');
    expect(await evidence.getAttribute('open')).toBe('');
    const first = evidence.locator('li.finding').first();
    expect(await first.locator('.exchange tr', { hasText: 'Request' }).locator('td').textContent()).toBe('GET /notification-groups?filter[type]=portal');
    expect(await first.locator('.exchange tr', { hasText: 'Response' }).locator('td').textContent()).toBe('200');
    expect(await first.locator('.exchange tr', { hasText: 'Where' }).locator('td').textContent()).toBe('/meta/pages');
    expect(await first.locator('pre').textContent()).toBe(wrappedCurl(CURL));
    await first.locator('button.copy').click();
    await expect.poll(() => first.locator('button.copy').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(wrappedCurl(CURL));
    // The second finding waits behind one click.
    const second = evidence.locator('li.rest li.finding');
    expect(await second.isVisible()).toBe(false);
    await evidence.locator('li.rest summary').click();
    expect(await second.locator('.exchange tr', { hasText: 'Request' }).locator('td').textContent()).toBe('GET /notification-groups?filter[type]=user&page[limit]=10&page[offset]=20');
    await page.close();
  });

  it('reads on a phone (390 px) and a laptop (1366 px): nothing wider than the screen, the run laid out as terms and values', async () => {
    for (const width of [390, 1366]) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 844 });
      await page.goto(url);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${width} px`).toBe(0);
      expect(await page.locator('#run dl.facts dt').allTextContents()).toEqual(['Target', 'Specification', 'Checked by', 'Selection', 'Optional inputs', 'Fails the run', 'Run', 'Cases', 'Gate']);
      // On a phone each requirement is a card of its own, without the table's header row.
      expect(await page.locator('#requirements thead').isVisible(), `${width} px`).toBe(width > 640);
      await page.close();
    }
  });
});
