// The dashboard in a real browser (test-support/browser.ts): it shows counts at a glance, and a
// finding produced by proxied traffic appears on the open page without a reload.
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { browserTestsRun, launchBrowser } from '../test-support/browser.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, send, startUpstream, type TestServer } from './test-support.ts';

describe.skipIf(!browserTestsRun)('the dashboard in a browser', () => {
  let upstream: TestServer;
  let proxy: StartedProxy;
  let browser: Browser;

  beforeAll(async () => {
    upstream = await startUpstream(
      answering(400, '{"errors":[{"status":"400","title":"Bad Request","source":{"parameter":"filter[type]"}}]}'),
    );
    proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3` });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await upstream?.close();
  });

  test('a finding from proxied traffic appears on the open dashboard', async () => {
    const page = await browser.newPage();
    await page.goto(proxy.adminUrl);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    expect(await page.locator('#latest tbody').textContent()).toContain('no findings yet');

    await send(`${proxy.baseUrl}/notification-groups?filter[type]=everyone`, {
      headers: { authorization: 'Bearer r:dashboard-token' },
    });

    const row = page.locator('#latest tbody tr', { hasText: 'NG-FILTER-REQUIRED' });
    await row.waitFor();
    expect(await row.textContent()).toContain('GET /v3/notification-groups?filter[type]=everyone');
    expect(
      await page.locator('#rules tbody tr', { hasText: 'NG-FILTER-REQUIRED' }).locator('td.number').textContent(),
    ).toBe('1');
    expect(
      await page
        .locator('#operations tbody tr', { hasText: 'listNotificationGroups' })
        .locator('td.number')
        .first()
        .textContent(),
    ).toBe('1');
    expect(await page.locator('#count-MUST').textContent()).toBe('1');
    await page.close();
  });
});
