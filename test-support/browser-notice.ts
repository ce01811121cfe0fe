// Vitest global setup: prints, once for the whole run, why the browser tests are skipped.
import { browserChoice, browserMissingLine, browserTestsRun } from './browser.ts';

export default function browserNotice(): void {
  if (!browserTestsRun) process.stdout.write(`${browserMissingLine(browserChoice)}\n`);
}
