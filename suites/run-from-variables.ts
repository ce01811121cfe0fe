// A suite started without the run command (`npx playwright test` with LAS_* variables, or none for
// the embedded reference server): its first process describes the run from the variables, once,
// into the message the run command would have sent (LAS_RUN), and every process it starts reads
// that. Only that process loads this file (suites/process-settings.ts imports it when LAS_RUN is
// absent), so a worker loads neither the target file's reader nor the reference server's defaults.
import { resolve } from 'node:path';
import { loadContract } from '../contract/index.ts';
import { DEFAULT_RUN, type FailLevel, type RunMessage } from '../run-protocol/index.ts';
import { readRegressionCases } from '../targets/regression-cases.ts';
import { mergeSettings, TARGET_ENVIRONMENT } from '../targets/target.ts';
import { secretsOnly, settingsFromEnvironment, withoutSecrets } from '../targets/target-environment.ts';
import { targetVariables } from '../targets/settings.ts';
import { EMBEDDED_SETTINGS } from './embedded-settings.ts';
import { blobReportOf, DEFAULT_REPORT_DIR, RUN_ENVIRONMENT } from './settings.ts';

type Environment = Record<string, string | undefined>;

/**
 * The run the variables describe: LAS_FAIL_LEVEL, LAS_REPORT_DIR, LAS_BLOB_REPORT, LAS_REGRESSION_CASES (whose file is
 * read here), LAS_SIGNING_KEY, and the target's variables, its secrets beside the description.
 */
export function runFromVariables(environment: Environment, root: string): RunMessage {
  // Each variable read once, here.
  const env: Environment = Object.fromEntries(runVariables().map((name) => [name, environment[name]]));
  // An empty base URL is a variable the job did not get, never a request for the embedded server.
  if (env[TARGET_ENVIRONMENT.baseUrl] === '')
    throw new Error(
      `${TARGET_ENVIRONMENT.baseUrl} is set but empty: give it a value, or leave it unset to test the embedded reference server`,
    );
  const regressionCasesFile = env[RUN_ENVIRONMENT.regressionCases] || undefined;
  const signingKey = env[RUN_ENVIRONMENT.signingKey] || undefined;
  const requirementIds = () => loadContract().requirements.map((r) => r.id);
  const regressionCases = () => readRegressionCases(resolve(root, regressionCasesFile!), requirementIds());
  const settings = settingsFromEnvironment(env);
  return withEmbeddedTarget({
    run: {
      ...DEFAULT_RUN,
      failLevel: failLevelOf(env),
      reportDir: resolve(root, env[RUN_ENVIRONMENT.reportDir] || DEFAULT_REPORT_DIR),
      target: withoutSecrets(settings),
      ...(blobReportOf(env) ? { blobReport: true } : {}),
      ...(regressionCasesFile ? { regressionCases: regressionCases() } : {}),
      ...(signingKey ? { signingKeyFile: resolve(root, signingKey) } : {}),
    },
    secrets: secretsOnly(settings),
  });
}

/** A run without a base URL tests the embedded reference server: its credentials and fixtures over the given ones. */
export function withEmbeddedTarget(message: RunMessage): RunMessage {
  if (message.run.target?.baseUrl !== undefined) return message;
  const settings = mergeSettings(message.run.target ?? {}, message.secrets, EMBEDDED_SETTINGS);
  return { run: { ...message.run, target: withoutSecrets(settings) }, secrets: secretsOnly(settings) };
}

/** Every variable a description from the variables reads: once it is written, no process needs them. */
export function runVariables(): string[] {
  return [...targetVariables(), ...Object.values(RUN_ENVIRONMENT).filter((name) => name !== RUN_ENVIRONMENT.run)];
}

export function failLevelOf(env: Environment): FailLevel {
  const value = (env[RUN_ENVIRONMENT.failLevel] ?? 'must').toLowerCase();
  if (value !== 'must' && value !== 'should')
    throw new Error(`${RUN_ENVIRONMENT.failLevel} must be "must" or "should", got "${value}"`);
  return value;
}
