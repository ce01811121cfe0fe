// Vitest global setup: prints, once for the whole run, why the browser tests (and the promtool
// and fleet tests) are skipped.
import { browserChoice, browserMissingLine, browserTestsRun } from './browser.ts';
import { fleetChoice, fleetMissingLine, fleetTestRunsHere } from './fleet.ts';
import { promtoolChoice, promtoolMissingLine, promtoolTestRuns } from './promtool.ts';

export default function browserNotice(): void {
  if (!browserTestsRun) process.stdout.write(`${browserMissingLine(browserChoice)}\n`);
  if (!promtoolTestRuns) process.stdout.write(`${promtoolMissingLine(promtoolChoice)}\n`);
  if (!fleetTestRunsHere) process.stdout.write(`${fleetMissingLine(fleetChoice)}\n`);
}
