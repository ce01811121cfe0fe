// The browser the tests that look at a page use: Debian's Chromium, or the one LAS_CHROMIUM names,
// launched through Playwright without downloading one. Without a browser those tests are skipped
// (the global setup prints one line saying how to enable them); with LAS_REQUIRE_BROWSER=1 they
// run anyway, so a missing browser fails them.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from '@playwright/test';

type Environment = Record<string, string | undefined>;

export const BROWSER_ENVIRONMENT = { executable: 'LAS_CHROMIUM', required: 'LAS_REQUIRE_BROWSER' } as const;
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

// Headless in a container: no sandbox (it needs user namespaces), and nothing that phones home.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

export interface BrowserChoice {
  /** The executable to launch, when one exists. */
  executablePath?: string;
  /** LAS_REQUIRE_BROWSER is set: the browser tests run (and fail) even without a browser. */
  required: boolean;
  /** Where it was looked for, for the messages. */
  lookedAt: string;
}

/** Which browser the tests would use, from the environment and what exists on disk. */
export function chooseBrowser(env: Environment, exists: (path: string) => boolean = existsSync): BrowserChoice {
  const named = env[BROWSER_ENVIRONMENT.executable];
  const candidate = named || DEBIAN_CHROMIUM;
  const required = ['1', 'true', 'yes'].includes((env[BROWSER_ENVIRONMENT.required] ?? '').toLowerCase());
  return { ...(exists(candidate) ? { executablePath: candidate } : {}), required, lookedAt: named ? `${BROWSER_ENVIRONMENT.executable}=${named}` : DEBIAN_CHROMIUM };
}

/** The one line a run without a browser prints. */
export function browserMissingLine(choice: BrowserChoice): string {
  return `Browser tests skipped: no Chromium at ${choice.lookedAt}. To run them, install Debian's chromium (apt-get install chromium) or set ${BROWSER_ENVIRONMENT.executable} to a Chromium executable; ${BROWSER_ENVIRONMENT.required}=1 makes a missing browser fail the tests.`;
}

export const browserChoice = chooseBrowser(process.env);

/** True when the browser tests run: a browser exists, or one is required (and its absence fails them). */
export const browserTestsRun = browserChoice.executablePath !== undefined || browserChoice.required;

export async function launchBrowser(choice: BrowserChoice = browserChoice): Promise<Browser> {
  if (choice.executablePath === undefined) throw new Error(`${BROWSER_ENVIRONMENT.required} is set but there is no Chromium at ${choice.lookedAt}`);
  return chromium.launch({ executablePath: choice.executablePath, headless: true, args: CHROMIUM_ARGS });
}
