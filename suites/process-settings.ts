// What a Playwright process of the suite (its runner, each worker) learns of its run, once per
// process: playwright.config.ts and the proofs' configuration import it and hand what it says to
// the workers (`use: { suiteOptions }`) and to the reporters (their options). It reads the one
// message of the run, LAS_RUN, as it is, and no other variable: the run command writes it, with
// the target's secrets beside the description. A suite started without it (`npx playwright test`
// with the LAS_* variables, or none for the embedded reference server) has its first process
// describe the run from the variables (suites/run-from-variables.ts), write the message into its
// environment, which the workers inherit, and take the variables out of it.
import { fileURLToPath } from 'node:url';
import { loadContract } from '../contract/index.ts';
import { gateAccepted, type RunDescription, type RunMessage } from '../run-protocol/index.ts';
import type { ConformanceReporterOptions, SecretScrubberOptions } from '../run-protocol/reporter-options.ts';
import { inputsOf } from '../run-protocol/run-inputs.ts';
import { settingsSecrets } from '../run-protocol/secrets.ts';
import { mergeSettings, type TargetSettings } from '../targets/target.ts';
import type { SuiteOptions } from './fixtures.ts';
import { RUN_ENVIRONMENT, runLayout, runMessageOf, runMessageText, type RunLayout } from './settings.ts';

type Environment = Record<string, string | undefined>;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SuiteProcessSettings {
  layout: RunLayout;
  /**
   * The target, secrets included; with no base URL, the embedded server's credentials and fixtures (the global setup
   * adds its address).
   */
  settings: TargetSettings;
  /** What every worker is told. */
  suiteOptions: SuiteOptions;
  /** What the secret scrubber replaces. */
  scrubbing: SecretScrubberOptions;
  /** What the certification record is told about the run, but where it goes. */
  recording: Omit<ConformanceReporterOptions, 'outputDir'>;
  /** The run as this process was told it, without its secrets and without the record pipe: what may be handed on. */
  described: RunDescription;
}

/** What a run's message tells a process of the suite; `command` is Playwright's (`test`, `merge-reports`, ...). */
export function suiteProcessSettingsOf(
  message: RunMessage,
  command: string | undefined,
  root = ROOT,
): SuiteProcessSettings {
  // The secrets and the record pipe are taken out here: the description handed on holds neither, and the record pipe
  // is the conformance reporter's alone (the proofs' reporters and the record never see it).
  const { recordPipe, ...described } = message.run;
  const layout = runLayout(described, root);
  const settings = mergeSettings(described.target ?? {}, message.secrets);
  // Without a target, `playwright test` starts the reference server in its global setup: the record
  // says so. Merging reports starts nothing.
  const run: RunDescription =
    layout.embedded && command === 'test' ? { ...described, embedded: { faults: [], choices: [] } } : described;
  const secrets = settingsSecrets(message.secrets);
  const baseUrl = described.target?.baseUrl;
  const signingKeyFile = run.signingKeyFile;
  return {
    layout,
    settings,
    suiteOptions: {
      settings,
      failLevel: run.failLevel,
      accepted: Object.fromEntries(gateAccepted(run, new Date().toISOString().slice(0, 10))),
      readOnly: run.readOnly,
      ...(run.generate ? { generate: run.generate } : {}),
    },
    scrubbing: { secrets },
    recording: {
      run,
      inputs: inputsOf(settings, loadContract().legacyHeader),
      secrets,
      ...(baseUrl ? { baseUrl } : {}),
      ...(signingKeyFile ? { signingKeyFile } : {}),
      ...(recordPipe === undefined ? {} : { recordPipe }),
    },
    described,
  };
}

/**
 * The run's message in this process: LAS_RUN as it is; else, described from the variables, and
 * for `playwright test` written into `env` in their place, for the processes it starts. A run
 * without a base URL gets the embedded server's credentials and fixtures.
 */
export async function processRunMessage(
  env: Environment,
  command: string | undefined,
  root = ROOT,
): Promise<RunMessage> {
  const given = runMessageOf(env);
  if (given && given.run.target?.baseUrl !== undefined) return given;
  const { runFromVariables, runVariables, withEmbeddedTarget } = await import('./run-from-variables.ts');
  if (given) return withEmbeddedTarget(given);
  const message = runFromVariables(env, root);
  if (command === 'test') {
    for (const variable of runVariables()) delete env[variable];
    env[RUN_ENVIRONMENT.run] = runMessageText(message);
  }
  return message;
}

/** This process's: `node <playwright cli> <command> ...`. */
export const suiteProcessSettings = suiteProcessSettingsOf(
  await processRunMessage(process.env, process.argv[2]),
  process.argv[2],
);
