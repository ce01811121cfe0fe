// What the suite's processes (Playwright config, workers, reporters) are told of their run: one
// message, LAS_RUN (a RunMessage: the description and the target's secrets beside it), which the
// run command writes, or, for a suite started without it, the first process writes from the LAS_*
// variables (suites/run-from-variables.ts). Every process reads its run from the message as it is,
// and no other variable. Also the shape of the configuration the description gives.
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_RUN, type FailLevel, type RunDescription, type RunMessage } from '../run-protocol/index.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, type Target } from '../targets/target.ts';
import { describedTarget, targetSecretsOf } from '../targets/target-environment.ts';

type Environment = Record<string, string | undefined>;

export const RUN_ENVIRONMENT = {
  failLevel: 'LAS_FAIL_LEVEL',
  reportDir: 'LAS_REPORT_DIR',
  blobReport: 'LAS_BLOB_REPORT',
  /** JSON of a RunMessage: the run as the suite's processes are told it, its secrets beside the description. */
  run: 'LAS_RUN',
  /** A target file whose regressionCases the suite runs alongside its own cases. */
  regressionCases: 'LAS_REGRESSION_CASES',
  /** An Ed25519 private key file (PEM): the record is signed with it. */
  signingKey: 'LAS_SIGNING_KEY',
} as const;

/** LAS_RUN as the process that described the run wrote it, or undefined when none did. */
export function runMessageOf(env: Environment): RunMessage | undefined {
  const text = env[RUN_ENVIRONMENT.run];
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${RUN_ENVIRONMENT.run} is not JSON`);
  }
  const isObject = (member: unknown): member is object =>
    typeof member === 'object' && member !== null && !Array.isArray(member);
  if (!isObject(value) || !('run' in value) || !isObject(value.run))
    throw new Error(`${RUN_ENVIRONMENT.run} is not a JSON object with a run`);
  const secrets = 'secrets' in value && isObject(value.secrets) ? value.secrets : {};
  return { run: { ...DEFAULT_RUN, ...(value.run as Partial<RunDescription>) }, secrets };
}

/** The message that tells the suite's processes a run against a resolved target: its secrets beside the description. */
export function runMessageFor(run: RunDescription, target: Target): RunMessage {
  return { run: { ...run, target: describedTarget(target) }, secrets: targetSecretsOf(target) };
}

/** LAS_RUN's text; it holds the secrets, so it goes into a child's environment and nowhere else. */
export function runMessageText(message: RunMessage): string {
  return JSON.stringify(message);
}

/** Whether LAS_BLOB_REPORT asks for a blob report. */
export function blobReportOf(env: Environment): boolean {
  return ['1', 'true', 'yes'].includes((env[RUN_ENVIRONMENT.blobReport] ?? '').toLowerCase());
}

export const DEFAULT_REPORT_DIR = 'reports/latest';

/** The spec file of generated inputs: a configuration runs it only when the run asks for generation (--generate). */
export const GENERATED_SPEC = '**/generated.spec.ts';

/** What a configuration leaves out: the generated inputs, unless asked for. */
export function ignoredSpecs(generate: unknown): string[] {
  return generate === undefined ? [GENERATED_SPEC] : [];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A `grep` that selects the cases of exactly these titles (Playwright matches the title path, the title last): the
 * cases the run command found for --requirement, a proof's narrowed target.
 */
export function titlesGrep(titles: string[]): RegExp {
  return new RegExp(titles.map((title) => ` ${escapeRegExp(title)}$`).join('|'));
}

export interface RunLayout {
  reportDir: string;
  failLevel: FailLevel;
  /** Also write a blob report, for merging shards with `npx playwright merge-reports`. */
  blobReport: boolean;
  /** True when no target is configured: the global setup starts the embedded reference server. */
  embedded: boolean;
  workers: number;
  testTimeoutMs: number;
  runTimeoutMs: number;
}

/** The shape of a run, for playwright.config.ts, from its description. */
export function runLayout(run: RunDescription, root: string): RunLayout {
  const requestTimeoutMs = run.target?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return {
    reportDir: resolve(root, run.reportDir || DEFAULT_REPORT_DIR),
    failLevel: run.failLevel,
    blobReport: run.blobReport === true,
    embedded: run.target?.baseUrl === undefined,
    workers: cpus().length,
    // A case's requests each end within the request timeout; the case gets room for several, a
    // page walk for many. The run as a whole is bounded too, whatever the target does.
    testTimeoutMs: Math.max(60_000, requestTimeoutMs * 4),
    runTimeoutMs: Math.max(20 * 60_000, requestTimeoutMs * 60),
  };
}
