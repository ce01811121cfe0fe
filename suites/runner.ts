// Running the suite from code: probe the target, start Playwright as a child process with the
// run told once in its environment (LAS_RUN: the description, the target's secrets beside it;
// never on its command line), and take the certification record its conformance reporter sends back on an
// inherited pipe (RECORD_PIPE), as built: the files it writes are for people and are not read back.
// The run command and the benchmark use this; `npx playwright test` is the same suite.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CertificationRecord } from '../reports/record.ts';
import type { RegressionCase } from '../targets/regression-cases.ts';
import {
  CERTIFICATION_FILE,
  DEFAULT_RUN,
  NO_VERDICT_FILE,
  RECORD_FILE,
  REQUIREMENTS_JUNIT_FILE,
  SUMMARY_FILE,
  type FailLevel,
  type RecordMessage,
  type RunDescription,
} from '../run-protocol/index.ts';
import { type Target } from '../targets/target.ts';
import { targetVariables } from '../targets/settings.ts';
import { RUN_ENVIRONMENT, runMessageFor, runMessageText } from './settings.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONFIG_FILE = join(ROOT, 'playwright.config.ts');
/**
 * The suite process's file descriptor on which its conformance reporter sends the record: the first after stdin, stdout
 * and stderr.
 */
export const RECORD_PIPE = 3;
const PLAYWRIGHT_CLI = join(dirname(createRequire(import.meta.url).resolve('@playwright/test/package.json')), 'cli.js');

export interface SuiteRun {
  target: Target;
  reportDir: string;
  failLevel: FailLevel;
  workers?: number;
  grep?: string;
  /** The Playwright configuration; default playwright.config.ts (the proofs use suites/proof.config.ts). */
  config?: string;
  /** The environment the child starts from (PATH and the like); the run's LAS_* variables are left out of it. */
  baseEnvironment: Record<string, string | undefined>;
  /** 'inherit' shows Playwright's progress on this console; 'ignore' keeps it quiet (tests, benchmarks). */
  output: 'inherit' | 'ignore';
  /** What the record says about the run beyond the target: embedded server, read-only, the gate's inputs. */
  run?: RunDescription;
  /** The target file's regression cases, read by the caller: they run alongside the suite. */
  regressionCases?: RegressionCase[];
  /** The private key file the record is signed with, an absolute path. */
  signingKeyFile?: string;
}

export interface SuiteOutcome {
  playwrightExitCode: number | null;
  /** Absent when the suite did not get far enough to write it. */
  record?: CertificationRecord;
  /** Why the run has no verdict, when the reporters said (a case file that failed to load, say). */
  noVerdict?: string;
}

/**
 * Installed as a package the kit's TypeScript lies under node_modules, which Playwright's own
 * loader leaves as it is: the suite's processes (workers inherit NODE_OPTIONS) then load it through
 * tsx's loader, as bin/las-conformance.js does. In a checkout Playwright's loader does it alone.
 */
export function typeScriptLoaderOptions(root: string, nodeOptions: string | undefined): Record<string, string> {
  if (!root.split(sep).includes('node_modules')) return {};
  return { NODE_OPTIONS: [nodeOptions, `--import ${import.meta.resolve('tsx')}`].filter(Boolean).join(' ') };
}

/** The environment of the Playwright child: the base one without the run's variables, plus this run's message. */
export function playwrightChildEnvironment(run: SuiteRun): Record<string, string> {
  const ours = new Set<string>([...targetVariables(), ...Object.values(RUN_ENVIRONMENT)]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(run.baseEnvironment))
    if (value !== undefined && !ours.has(name)) env[name] = value;
  // --ca: Node reads extra authorities from this variable when the process starts; Playwright's requests use them.
  const ca: Record<string, string> = run.target.caFile ? { NODE_EXTRA_CA_CERTS: run.target.caFile } : {};
  const description: RunDescription = {
    ...(run.run ?? DEFAULT_RUN),
    failLevel: run.failLevel,
    reportDir: run.reportDir,
    ...(run.regressionCases?.length ? { regressionCases: run.regressionCases } : {}),
    ...(run.signingKeyFile ? { signingKeyFile: run.signingKeyFile } : {}),
    recordPipe: RECORD_PIPE,
  };
  // The secrets travel in the message beside the description, which is handed on without them; no other variable.
  return {
    ...env,
    ...ca,
    ...typeScriptLoaderOptions(ROOT, env.NODE_OPTIONS),
    [RUN_ENVIRONMENT.run]: runMessageText(runMessageFor(description, run.target)),
  };
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

/** The record message the reporter sent, or undefined when it sent none (the suite ended before its reporters did). */
export function recordMessageOf(text: string): RecordMessage<CertificationRecord> | undefined {
  if (text === '') return undefined;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new Error(
      `the suite's record message is not JSON (${text.length} characters; was the suite stopped while sending it?)`,
    );
  }
  if (
    typeof message === 'object' &&
    message !== null &&
    ('record' in message || typeof (message as { noVerdict?: unknown }).noVerdict === 'string')
  )
    return message as RecordMessage<CertificationRecord>;
  throw new Error('the suite sent a record message that is neither a record nor a reason for none');
}

export async function runSuite(run: SuiteRun): Promise<SuiteOutcome> {
  // The renderings an earlier run left here must not sit beside this one's as if they were its own.
  for (const file of [RECORD_FILE, SUMMARY_FILE, REQUIREMENTS_JUNIT_FILE, CERTIFICATION_FILE, NO_VERDICT_FILE])
    rmSync(join(run.reportDir, file), { force: true });
  const child = spawn(process.execPath, suiteArguments(run), {
    cwd: ROOT,
    env: playwrightChildEnvironment(run),
    stdio: ['ignore', run.output, run.output, 'pipe'],
  });
  const sent: Buffer[] = [];
  child.stdio[RECORD_PIPE]!.on('data', (chunk: Buffer) => sent.push(chunk));
  // 'close': the child has exited and the pipe has ended, so the message is whole.
  const playwrightExitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  const message = recordMessageOf(Buffer.concat(sent).toString('utf8'));
  return {
    playwrightExitCode,
    ...(message && 'record' in message ? { record: message.record } : {}),
    ...(message && 'noVerdict' in message ? { noVerdict: message.noVerdict } : {}),
  };
}
