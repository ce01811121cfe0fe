// What the configuration tells the reporters it lists: the shapes of their options, here so that
// the configuration and the suite's processes can say them without loading a reporter.
import type { Secret } from '../contract/credential-policy.ts';
import type { RunDescription } from './run-description.ts';
import type { InputsGiven } from './run-inputs.ts';

export interface SecretScrubberOptions {
  /** The tokens and header values to replace, each with its placeholder. */
  secrets: Secret[];
}

export interface ConformanceReporterOptions {
  outputDir: string;
  /** What the run command says about the run: embedded server, read-only, the gate's inputs. Never its secrets. */
  run: RunDescription;
  /** Which optional inputs the target had (inputsOf). */
  inputs: InputsGiven;
  /** The tokens and header values no text of the record may hold. */
  secrets: Secret[];
  /**
   * The target's base URL; absent, the one the cases report (the embedded server's, started after the configuration was
   * read).
   */
  baseUrl?: string;
  /** An Ed25519 private key file (PEM): the record is signed with it (ENVELOPE_FILE beside it). */
  signingKeyFile?: string;
  /** The run command's record pipe (RunDescription.recordPipe): the record, or why there is none, is sent there too. */
  recordPipe?: number;
}
