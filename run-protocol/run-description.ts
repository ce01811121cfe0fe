// The run as the suite's processes are told it, and what the conformance reporter sends back.
import type { RegressionCase } from '../targets/regression-cases.ts';
import type { TargetSettings } from '../targets/target.ts';
import type { TargetSecrets } from '../targets/target-environment.ts';
import type { FailLevel } from './levels.ts';
import type { GenerationSettings } from './generation.ts';
import type { Baseline, WaiverSetting } from './waivers.ts';

/**
 * The run as the suite's processes (configuration, workers, reporters) are told it, in one piece:
 * what the run command decided, or what a suite started without it reads from the environment.
 * No secrets, no values of optional inputs.
 */
export interface RunDescription {
  /** What fails a case and the run. */
  failLevel: FailLevel;
  /** Where the reports go, an absolute path; absent: the default report directory. */
  reportDir?: string;
  /**
   * The link the run command points at reportDir when the run ends (reports/latest), an absolute
   * path: the console names the reports through it.
   */
  latestLink?: string;
  /**
   * The regression cases of the target file, which run alongside the suite: read once, by the
   * process that describes the run, and carried here as data.
   */
  regressionCases?: RegressionCase[];
  /** The private key file (PEM) the record is signed with, an absolute path: a path, not the key. */
  signingKeyFile?: string;
  /**
   * The target's settings but its secrets (tokens, header values), which travel beside the description (RunMessage);
   * absent or without a base URL: the embedded reference server.
   */
  target?: TargetSettings;
  /** The target is the kit's reference server, started for this run, with these faults and choices. */
  embedded?: { faults: string[]; choices: string[] };
  /** Requests that could create records are not sent (--read-only). */
  readOnly: boolean;
  /** The run command's --grep (Playwright does not tell reporters about it). */
  grep?: string;
  /** The run command's --requirement: the cases that can judge these were selected (`selectedCases`). */
  requirements?: string[];
  /** The titles of the cases that can judge `requirements`, as the run command found them: the ones to run. */
  selectedCases?: string[];
  allowPartial: boolean;
  waivers: WaiverSetting[];
  /** --baseline: the file and the requirements failing in it. */
  baseline?: Baseline;
  /** Generated inputs for each operation: the boundary phase, then random ones (absent: none). */
  generate?: GenerationSettings;
  /** `run --generate 0` turned generation off: the record says so. */
  generationOff?: boolean;
  /** Also write a blob report (LAS_BLOB_REPORT), for merging shards with `npx playwright merge-reports`. */
  blobReport?: boolean;
  /**
   * A file descriptor the run command opened for the suite's process: the conformance reporter
   * sends the record it built there (a RecordMessage), so the run command has the verdict without
   * reading back the files written for people.
   */
  recordPipe?: number;
}

/**
 * What the suite's processes are sent, in LAS_RUN: the run's description and, beside it, its
 * target's secrets (tokens, header values), so that a process reads its run from this alone. Each
 * takes the secrets out as it reads it (suites/process-settings.ts): the description it hands on,
 * to the reporters and the record, holds none, and the message itself is never written out.
 */
export interface RunMessage {
  run: RunDescription;
  secrets: TargetSecrets;
}

/** What the conformance reporter sends on the record pipe: the record as built, or why there is none. */
export type RecordMessage<Record> = { record: Record } | { noVerdict: string };

export const DEFAULT_RUN: RunDescription = { failLevel: 'must', readOnly: false, allowPartial: false, waivers: [] };
