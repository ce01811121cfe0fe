// Running the suite from code: probe the target, start Playwright as a child process with the
// target in its environment (never on its command line), and read the certification record it
// leaves. The run command and the benchmark use this; `npx playwright test` is the same suite.
import { spawn } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../contract/index.ts';
import { RECORD_FILE, SUMMARY_FILE } from '../reports/conformance-reporter.ts';
import type { ConformanceRecord } from '../reports/record.ts';
import { TARGET_ENVIRONMENT, targetEnvironment, type Target } from '../targets/target.ts';
import { RUN_ENVIRONMENT, type FailLevel } from './settings.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONFIG_FILE = join(ROOT, 'playwright.config.ts');
const PLAYWRIGHT_CLI = join(dirname(createRequire(import.meta.url).resolve('@playwright/test/package.json')), 'cli.js');

/** The target answered nothing: the run cannot start (exit code 2). */
export class UnreachableTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreachableTargetError';
  }
}

export interface SuiteRun {
  target: Target;
  reportDir: string;
  failLevel: FailLevel;
  workers?: number;
  grep?: string;
  /** The Playwright configuration; default playwright.config.ts (the proofs use suites/proof.config.ts). */
  config?: string;
  /** The environment the child starts from (PATH and the like); LAS_* variables in it are replaced. */
  baseEnvironment: Record<string, string | undefined>;
  /** 'inherit' shows Playwright's progress on this console; 'ignore' keeps it quiet (tests, benchmarks). */
  output: 'inherit' | 'ignore';
}

export interface SuiteOutcome {
  playwrightExitCode: number | null;
  /** Absent when the suite did not get far enough to write it. */
  record?: ConformanceRecord;
}

/**
 * One GET, without credentials, to the list operation: any HTTP answer proves the target is
 * there. No answer within the request timeout, or no connection, is UnreachableTargetError.
 */
export async function probeTarget(target: Target): Promise<number> {
  const url = new URL(`${target.baseUrl}${loadContract().operation('listNotificationGroups').pathTemplate}`);
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  try {
    return await new Promise<number>((resolve, reject) => {
      const request = get(url, { timeout: target.limits.requestTimeoutMs }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.once('timeout', () => request.destroy(new Error(`no answer within ${target.limits.requestTimeoutMs} ms`)));
      request.once('error', reject);
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code && !message.includes(code) ? `${code} (${message})` : message;
    throw new UnreachableTargetError(`target ${target.baseUrl} is unreachable: ${reason}`);
  }
}

/** The environment of the Playwright child: the base one without stale target settings, plus this run's. */
export function suiteEnvironment(run: SuiteRun): Record<string, string> {
  // LAS_BLOB_REPORT passes through: it changes what is written, not what is tested.
  const ours = new Set<string>([...Object.values(TARGET_ENVIRONMENT), RUN_ENVIRONMENT.failLevel, RUN_ENVIRONMENT.reportDir]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(run.baseEnvironment)) if (value !== undefined && !ours.has(name)) env[name] = value;
  return { ...env, ...targetEnvironment(run.target), [RUN_ENVIRONMENT.failLevel]: run.failLevel, [RUN_ENVIRONMENT.reportDir]: run.reportDir };
}

export function suiteArguments(run: SuiteRun): string[] {
  return [
    PLAYWRIGHT_CLI,
    'test',
    '--config',
    run.config ?? CONFIG_FILE,
    ...(run.workers === undefined ? [] : ['--workers', String(run.workers)]),
    ...(run.grep === undefined ? [] : ['--grep', run.grep]),
  ];
}

export async function runSuite(run: SuiteRun): Promise<SuiteOutcome> {
  const recordPath = join(run.reportDir, RECORD_FILE);
  // A record left by an earlier run must never stand in for this one's.
  rmSync(recordPath, { force: true });
  rmSync(join(run.reportDir, SUMMARY_FILE), { force: true });
  const child = spawn(process.execPath, suiteArguments(run), { cwd: ROOT, env: suiteEnvironment(run), stdio: ['ignore', run.output, run.output] });
  const playwrightExitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  const record = existsSync(recordPath) ? (JSON.parse(readFileSync(recordPath, 'utf8')) as ConformanceRecord) : undefined;
  return { playwrightExitCode, ...(record ? { record } : {}) };
}
