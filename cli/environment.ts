// The environment of the suite's Playwright processes, read here and only here, once per process:
// playwright.config.ts and the proofs' configuration import it and hand what it says to the
// workers (`use: { suiteOptions }`) and to the reporters (their options). The run command
// describes the run once, in LAS_RUN, and gives the secrets (LAS_SESSION_TOKEN, LAS_PAT, ...) in
// their own variables; a person running `npx playwright test` sets the LAS_* variables instead, or
// none, for the embedded reference server, and the same description is built from them, once, by
// the runner, which hands it to its workers in LAS_RUN.
import { fileURLToPath } from 'node:url';
import { loadContract } from '../contract/index.ts';
import type { ConformanceReporterOptions, SecretScrubberOptions } from '../run-protocol/index.ts';
import { inputsOf } from '../run-protocol/index.ts';
import { gateAccepted, type RunDescription } from '../run-protocol/index.ts';
import { EMBEDDED_SETTINGS } from '../suites/embedded-settings.ts';
import type { SuiteOptions } from '../suites/fixtures.ts';
import { proofTargetsOf, type ProofTarget } from '../suites/proof-targets.ts';
import { credentialSecrets, environmentSecrets, type Secret } from '../run-protocol/secrets.ts';
import { describedRun, RUN_ENVIRONMENT, runDescriptionOf, runLayout, type RunLayout } from '../suites/settings.ts';
import { mergeSettings, type TargetSettings } from '../targets/target.ts';
import { secretsOnly, settingsFromEnvironment } from '../targets/target-environment.ts';

type Environment = Record<string, string | undefined>;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SuiteProcessSettings {
  layout: RunLayout;
  /**
   * The target as the variables give it; with no base URL, the embedded server's credentials and fixtures (the global
   * setup adds its address).
   */
  settings: TargetSettings;
  /** What every worker is told. */
  suiteOptions: SuiteOptions;
  /** What the secret scrubber replaces. */
  scrubbing: SecretScrubberOptions;
  /** What the certification record is told about the run, but where it goes. */
  recording: Omit<ConformanceReporterOptions, 'outputDir'>;
  /** The targets of a proof run (LAS_PROOF_TARGETS); only the proofs' configuration asks. */
  proofTargets: () => ProofTarget[];
  /** The run as this process found it described, or described it from the variables; the record pipe left out. */
  described: RunDescription;
}

/** What an environment tells the suite's processes; `command` is Playwright's (`test`, `merge-reports`, ...). */
export function suiteProcessSettingsOf(
  env: Environment,
  command: string | undefined,
  root = ROOT,
): SuiteProcessSettings {
  // The record pipe is the conformance reporter's alone: the proofs' reporters and the record never see it.
  const { recordPipe, ...described } = runDescriptionOf(env, root);
  const layout = runLayout(env, described, root);
  const given = mergeSettings(described.target ?? {}, secretsOnly(settingsFromEnvironment(env)));
  const settings = layout.embedded ? mergeSettings(given, EMBEDDED_SETTINGS) : given;
  // Without a target, `playwright test` starts the reference server in its global setup: the record
  // says so. Merging reports starts nothing.
  const run: RunDescription =
    layout.embedded && command === 'test' ? { ...described, embedded: { faults: [], choices: [] } } : described;
  const secrets: Secret[] = [
    ...environmentSecrets(env),
    ...(layout.embedded ? credentialSecrets(EMBEDDED_SETTINGS) : []),
  ];
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
    proofTargets: () => proofTargetsOf(env),
    described,
  };
}

/** This process's: `node <playwright cli> <command> ...`. */
export const suiteProcessSettings = suiteProcessSettingsOf(process.env, process.argv[2]);

// A suite started without the run command: its runner describes the run here, once, and the
// processes it starts (its workers) inherit the description and read it as it is.
if (process.argv[2] === 'test' && describedRun(process.env) === undefined) {
  process.env[RUN_ENVIRONMENT.run] = JSON.stringify(suiteProcessSettings.described);
}
