// A HAR exported by a real browser (Debian's Chromium through Playwright's recordHar, see
// test-support/browser.ts) from fetch calls against the reference server: `judge` finds nothing in
// it, and the same HAR with one response edited to break a MUST gives exactly that finding. The
// server makes the legal choice of sending only the required meta members: the deprecated ones it
// sends by default draw an INFO observation (legal, but a finding).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support.ts';
import { MEDIA_TYPE, type Operation } from '../contract/index.ts';
import { contract, creates, describeWith, list, listQuery, lists } from '../contract/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  INAPPLICABLE_CHOICES,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { completeDocument } from '../suites/documents.ts';
import { browserTestsRun, launchBrowser } from '../test-support/browser.ts';

interface Fetched {
  path: string;
  method?: string;
  headers: Record<string, string>;
  body?: unknown;
}

const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
const pat = { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` };
const legacy = { [contract.legacyHeader]: DEFAULT_CREDENTIALS.sessionToken };
const json = { 'content-type': MEDIA_TYPE };

/** The first page of three of a list: the answer the second test edits. */
const FIRST_PAGE_OF_THREE = { limit: 3, offset: 0 };

/** A list asked for three ways, one per credential scheme. */
const listFetches = (operation: Operation): Fetched[] => [
  { path: `${operation.pathTemplate}?${listQuery(operation, FIRST_PAGE_OF_THREE)}`, headers: session },
  { path: `${operation.pathTemplate}?${listQuery(operation)}`, headers: legacy },
  { path: `${operation.pathTemplate}?${listQuery(operation, { limit: 5, offset: 20 })}`, headers: pat },
];

/** A create sent a complete document naming the records the reference server holds. */
const createFetch = (operation: Operation, index: number): Fetched => ({
  path: operation.pathTemplate,
  method: 'POST',
  headers: { ...(index % 2 === 0 ? pat : session), ...json },
  body: completeDocument(operation, REFERENCE_FIXTURES, 'browser'),
});

/**
 * What the page asks: every operation of the contract, with each credential scheme. Only requests a client may send:
 * one without credentials or with a bad query is a finding about the client.
 */
const fetches: Fetched[] = [...lists.flatMap(listFetches), ...creates.map(createFetch)];
/** The server sends only the required meta members, where the contract gives it a list to make that choice in. */
const CHOICES = ['meta-required-members-only'].filter((name) => !INAPPLICABLE_CHOICES.has(name));

describe.skipIf(!browserTestsRun)('judge: a HAR recorded by a real browser', () => {
  let dir: string;
  let reference: StartedReferenceServer;
  let browser: Browser;
  let harFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'las-browser-har-'));
    reference = await startReferenceServer({ host: '127.0.0.1', port: 0, choices: CHOICES });
    browser = await launchBrowser();
    harFile = join(dir, 'browser.har');
    const context = await browser.newContext({ recordHar: { path: harFile, mode: 'full', content: 'embed' } });
    const page = await context.newPage();
    // Same origin as the API, so the fetch calls need no CORS; the page itself is outside the API (counted, not
    // judged).
    await page.goto(new URL('/', reference.baseUrl).href);
    const statuses = await page.evaluate(
      async ({ base, calls }) => {
        const answered: number[] = [];
        for (const call of calls) {
          const response = await fetch(`${base}${call.path}`, {
            method: call.method ?? 'GET',
            headers: call.headers,
            ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
          });
          await response.text();
          answered.push(response.status);
        }
        return answered;
      },
      { base: reference.baseUrl, calls: fetches },
    );
    expect(statuses).toEqual(fetches.map((call) => (call.method === 'POST' ? 201 : 200)));
    await context.close();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await reference?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('judges every exchange of the browser session and finds nothing: exit 0', async () => {
    const violations = join(dir, 'clean.ndjson');
    const result = await runCli(['judge', harFile, '--violations', violations, '--include-client']);
    expect(result.stderr).toMatch(
      new RegExp(
        `entries: ${fetches.length} judged, [1-9]\\d* outside the API \\(counted, not judged\\), 0 malformed; 0 findings`,
      ),
    );
    expect(readFileSync(violations, 'utf8')).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  describeWith(list, 'list')('the same HAR with meta.pages edited in one list answer', (list) => {
    const metaPages = contract.requirementOf(list, 'metaPages')!.id;
    const edited = listQuery(list, FIRST_PAGE_OF_THREE);

    it(`gives exactly ${metaPages}: exit 1`, async () => {
      const har = JSON.parse(readFileSync(harFile, 'utf8')) as {
        log: { entries: { request: { url: string }; response: { content: { text: string } } }[] };
      };
      const listed = har.log.entries.find((e) =>
        decodeURIComponent(e.request.url).endsWith(`${list.pathTemplate}?${edited}`),
      )!;
      const document = JSON.parse(listed.response.content.text) as { meta: { pages: number } };
      document.meta.pages += 1;
      listed.response.content.text = JSON.stringify(document);
      const editedFile = join(dir, 'edited.har');
      writeFileSync(editedFile, JSON.stringify(har));
      const violations = join(dir, 'edited.ndjson');
      const result = await runCli(['judge', editedFile, '--violations', violations]);
      const findings = readFileSync(violations, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { rule: string; party: string; level: string });
      expect(findings.map(({ rule, party, level }) => ({ rule, party, level }))).toEqual([
        { rule: metaPages, party: 'service', level: 'MUST' },
      ]);
      expect(result.stdout).toContain(metaPages);
      expect(result.code).toBe(1);
    }, 60_000);
  });
});
