// What the suite's processes (Playwright config, workers, reporters) learn from the environment
// the run command, or a person running `npx playwright test`, gives them: the variables' names and
// how to read them. The run is described once, in LAS_RUN, by the run command, or, for a suite
// started without it, by the first process that reads the variables (cli/environment.ts writes
// the description into its environment, which the workers inherit); every other process reads
// LAS_RUN as it is.
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_RUN, type FailLevel, type RunDescription } from '../run-protocol/index.ts';
import { loadContract } from '../contract/index.ts';
import { readRegressionCases } from '../targets/regression-cases.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, TARGET_ENVIRONMENT } from '../targets/target.ts';
import { settingsFromEnvironment, withoutSecrets } from '../targets/target-environment.ts';

type Environment = Record<string, string | undefined>;

export const RUN_ENVIRONMENT = {
  failLevel: 'LAS_FAIL_LEVEL',
  reportDir: 'LAS_REPORT_DIR',
  blobReport: 'LAS_BLOB_REPORT',
  /** JSON of a RunDescription: what the run command knows of the run that the suite's processes do not. */
  run: 'LAS_RUN',
  /** A target file whose regressionCases the suite runs alongside its own cases. */
  regressionCases: 'LAS_REGRESSION_CASES',
  /** An Ed25519 private key file (PEM) the record is signed with. */
  signingKey: 'LAS_SIGNING_KEY',
} as const;

/**
 * The run's description: LAS_RUN as it is, when a process described the run (the run command, or
 * the first process of a suite started without it); else what the variables say (LAS_FAIL_LEVEL,
 * LAS_REPORT_DIR, LAS_REGRESSION_CASES, whose file is read here, LAS_SIGNING_KEY, the target's
 * LAS_* variables but its secrets, which are read from their variables either way).
 */
export function runDescriptionOf(env: Environment, root: string): RunDescription {
  return describedRun(env) ?? runDescriptionFromVariables(env, root);
}

function runDescriptionFromVariables(env: Environment, root: string): RunDescription {
  const regressionCasesFile = env[RUN_ENVIRONMENT.regressionCases] || undefined;
  const signingKey = env[RUN_ENVIRONMENT.signingKey] || undefined;
  const requirementIds = () => loadContract().requirements.map((r) => r.id);
  const regressionCases = () => readRegressionCases(resolve(root, regressionCasesFile!), requirementIds());
  return {
    ...DEFAULT_RUN,
    failLevel: failLevelOf(env),
    reportDir: resolve(root, env[RUN_ENVIRONMENT.reportDir] || DEFAULT_REPORT_DIR),
    target: withoutSecrets(settingsFromEnvironment(env)),
    ...(regressionCasesFile ? { regressionCases: regressionCases() } : {}),
    ...(signingKey ? { signingKeyFile: resolve(root, signingKey) } : {}),
  };
}

/** LAS_RUN as a process that described the run wrote it, or undefined when none did. */
export function describedRun(env: Environment): RunDescription | undefined {
  const text = env[RUN_ENVIRONMENT.run];
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${RUN_ENVIRONMENT.run} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${RUN_ENVIRONMENT.run} is not a JSON object`);
  return { ...DEFAULT_RUN, ...(value as Partial<RunDescription>) };
}

export const DEFAULT_REPORT_DIR = 'reports/latest';

/** The spec file of generated inputs: a configuration runs it only when the run asks for generation (--generate). */
export const GENERATED_SPEC = '**/generated.spec.ts';

/** What a configuration leaves out: the generated inputs, unless asked for. */
export function ignoredSpecs(generate: unknown): string[] {
  return generate === undefined ? [GENERATED_SPEC] : [];
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

export function failLevelOf(env: Environment): FailLevel {
  const value = (env[RUN_ENVIRONMENT.failLevel] ?? 'must').toLowerCase();
  if (value !== 'must' && value !== 'should')
    throw new Error(`${RUN_ENVIRONMENT.failLevel} must be "must" or "should", got "${value}"`);
  return value;
}

/** The shape of a run, for playwright.config.ts, from its description. */
export function runLayout(
  env: Environment,
  run: Pick<RunDescription, 'failLevel' | 'reportDir' | 'target'>,
  root: string,
): RunLayout {
  // An empty base URL is a variable the job did not get, never a request for the embedded server.
  if (env[TARGET_ENVIRONMENT.baseUrl] === '')
    throw new Error(
      `${TARGET_ENVIRONMENT.baseUrl} is set but empty: give it a value, or leave it unset to test the embedded reference server`,
    );
  const requestTimeoutMs = run.target?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return {
    reportDir: resolve(root, run.reportDir || DEFAULT_REPORT_DIR),
    failLevel: run.failLevel,
    blobReport: ['1', 'true', 'yes'].includes((env[RUN_ENVIRONMENT.blobReport] ?? '').toLowerCase()),
    embedded: run.target?.baseUrl === undefined,
    workers: cpus().length,
    // A case's requests each end within the request timeout; the case gets room for several, a
    // page walk for many. The run as a whole is bounded too, whatever the target does.
    testTimeoutMs: Math.max(60_000, requestTimeoutMs * 4),
    runTimeoutMs: Math.max(20 * 60_000, requestTimeoutMs * 60),
  };
}
