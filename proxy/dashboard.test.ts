// The dashboard in a real browser (test-support/browser.ts): it shows counts at a glance, and a
// finding produced by proxied traffic appears on the open page without a reload.
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { contract, credentials, itWith, list, unallowedFilter } from '../contract/test-support.ts';
import { browserTestsRun, launchBrowser } from '../test-support/browser.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, send, startUpstream, type TestServer } from './test-support.ts';

describe.skipIf(!browserTestsRun)('the dashboard in a browser', () => {
  let upstream: TestServer;
  let proxy: StartedProxy;
  let browser: Browser;

  beforeAll(async () => {
    const source = list === undefined ? {} : { parameter: unallowedFilter(list)!.parameter };
    upstream = await startUpstream(
      answering(400, JSON.stringify({ errors: [{ status: '400', title: 'Bad Request', source }] })),
    );
    proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3` });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await upstream?.close();
  });

  itWith(list, 'list')('a finding from proxied traffic appears on the open dashboard', async (list) => {
    const { target } = unallowedFilter(list)!;
    const rule = list.roles.filterRequired!;
    const page = await browser.newPage();
    await page.goto(proxy.adminUrl);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    expect(await page.locator('#latest tbody').textContent()).toContain('no findings yet');

    await send(`${proxy.baseUrl}${target}`, { headers: credentials });

    const row = page.locator('#latest tbody tr', { hasText: rule });
    await row.waitFor();
    expect(await row.textContent()).toContain(`GET ${contract.basePath}${target}`);
    expect(await page.locator('#rules tbody tr', { hasText: rule }).locator('td.number').textContent()).toBe('1');
    expect(
      await page
        .locator('#operations tbody tr', { hasText: list.operationId })
        .locator('td.number')
        .first()
        .textContent(),
    ).toBe('1');
    expect(await page.locator('#count-MUST').textContent()).toBe('1');
    await page.close();
  });
});
