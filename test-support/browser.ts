// The browser the tests that look at a page use: Debian's Chromium, or the one LAS_CHROMIUM names,
// launched through Playwright without downloading one. Without a browser those tests are skipped
// (the global setup prints one line saying how to enable them); with LAS_REQUIRE_BROWSER=1 they
// run anyway, so a missing browser fails them.
import { chromium, type Browser } from '@playwright/test';
import { chooseExecutable, type Environment, type ExecutableChoice } from './executable.ts';

export const BROWSER_ENVIRONMENT = { executable: 'LAS_CHROMIUM', required: 'LAS_REQUIRE_BROWSER' } as const;
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

// Headless in a container: no sandbox (it needs user namespaces), and nothing that phones home.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export type BrowserChoice = ExecutableChoice;

/** Which browser the tests would use, from the environment and what exists on disk. */
export function chooseBrowser(env: Environment, exists?: (path: string) => boolean): BrowserChoice {
  return chooseExecutable(
    {
      executable: BROWSER_ENVIRONMENT.executable,
      debianPath: DEBIAN_CHROMIUM,
      required: [BROWSER_ENVIRONMENT.required],
    },
    env,
    exists,
  );
}

/** The one line a run without a browser prints. */
export function browserMissingLine(choice: BrowserChoice): string {
  return `Browser tests skipped: no Chromium at ${choice.lookedAt}. To run them, install Debian's chromium (apt-get install chromium) or set ${BROWSER_ENVIRONMENT.executable} to a Chromium executable; ${BROWSER_ENVIRONMENT.required}=1 makes a missing browser fail the tests.`;
}

export const browserChoice = chooseBrowser(process.env);

/** True when the browser tests run: a browser exists, or one is required (and its absence fails them). */
export const browserTestsRun = browserChoice.executablePath !== undefined || browserChoice.required;

export async function launchBrowser(choice: BrowserChoice = browserChoice): Promise<Browser> {
  if (choice.executablePath === undefined)
    throw new Error(`${BROWSER_ENVIRONMENT.required} is set but there is no Chromium at ${choice.lookedAt}`);
  return chromium.launch({ executablePath: choice.executablePath, headless: true, args: CHROMIUM_ARGS });
}
