// `las-conformance run`: the conformance suite against a target, or against the embedded
// reference server when --reference-server asks for it (never in place of a target that is
// missing). Reads the target from --target FILE, then the LAS_* variables, then flags (later
// wins). Before the suite, a preflight asks the target's list operation with each token. The
// exit code is the record's gate (cli/exit-codes.ts).
import { EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK } from './exit-codes.ts';
import { collect, wholeNumber } from './options.ts';
import { randomInt } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import pino, { type Logger } from 'pino';
import { loadContract } from '../contract/index.ts';
import {
  DEFAULT_GENERATED_INPUTS,
  ENVELOPE_FILE,
  RUN_LOG_FILE,
  SUMMARY_FILE,
  type FailLevel,
  type GenerationSettings,
  type RunDescription,
} from '../run-protocol/index.ts';
import { shortSecretWarnings, targetSecrets } from '../run-protocol/secrets.ts';
import { reportToGithub } from '../reports/github.ts';
import { CHOICE_NAMES, FAULT_NAMES, INAPPLICABLE_CHOICES, INAPPLICABLE_FAULTS } from '../server/index.ts';
import { startEmbeddedTarget, type EmbeddedTarget } from '../suites/embedded.ts';
import { baselineFailing, comparableRecord, type ComparableRecord } from '../reports/diff.ts';
import { clearKitFiles, LATEST, pointLatestAt, timestampedReportDir } from '../reports/report-dirs.ts';
import { readSigningKey } from '../reports/attestation.ts';
import type { CertificationRecord, GateResult } from '../reports/record.ts';
import { contractSha256 } from '../reports/run-context.ts';
import { recordProblems } from '../reports/verify.ts';
import { readRecordFile } from './input-files.ts';
import { foundInputsOf, regressionCasesOfGenerated } from '../reports/generated.ts';
import { preflight, probeTarget } from '../suites/preflight.ts';
import { runSuite } from '../suites/runner.ts';
import {
  readRegressionCases,
  saveRegressionCases,
  targetFileRegressionCases,
  type RegressionCase,
} from '../targets/regression-cases.ts';
import { blobReportOf, DEFAULT_REPORT_DIR, RUN_ENVIRONMENT } from '../suites/settings.ts';
import { addSettingOptions, settingsFromFlags } from './setting-options.ts';
import {
  mergeSettings,
  settingSource,
  resolveTarget,
  TargetError,
  targetOnlySettingsGiven,
  type Target,
  type TargetSettings,
} from '../targets/target.ts';
import {
  loadTargetFile,
  targetFileGeneration,
  targetFileSettings,
  targetFileWaivers,
  type GenerationFileSettings,
  type TargetFile,
} from '../targets/target-file.ts';
import { emptyEnvironmentSettings, settingsFromEnvironment } from '../targets/target-environment.ts';

/**
 * The target settings' flags, by commander's attribute name of each row's flag (`baseUrl` for --base-url): text, or
 * every value of a repeatable one.
 */
export type SettingFlags = Record<string, unknown>;

export type RunFlags = RunOptions & SettingFlags;

interface RunOptions {
  target?: string;
  /** Absent: a new timestamped directory under reports/, with reports/latest pointing at it. */
  reportDir?: string;
  grep?: string;
  requirement: string[];
  workers?: number;
  level: FailLevel;
  fault: string[];
  choice: string[];
  allowPartial?: boolean;
  baseline?: string;
  readOnly?: boolean;
  /**
   * --generate N: random inputs per operation drawn from the contract after the boundary phase; 0 turns generation off.
   */
  generate?: number;
  seed?: number;
  /** Seconds. */
  generateBudget?: number;
  generateOperationBudget?: number;
  /** Test the kit's own reference server, started in this process, instead of a target. */
  referenceServer?: boolean;
  /** An Ed25519 private key file (PEM) to sign the record with. */
  signingKey?: string;
  /** A target file the generated failures that reproduced are appended to as regression cases. */
  saveCases?: string;
}

/** The time generation may take in all, and per operation, unless the flags or the target file say otherwise. */
export const DEFAULT_GENERATION_BUDGET_SECONDS = 300;
export const DEFAULT_OPERATION_BUDGET_SECONDS = 120;
const MAX_SEED = 2 ** 31 - 1;

/** The exit code of each gate result. */
export const GATE_EXIT_CODES: Record<GateResult, number> = {
  pass: EXIT_OK,
  fail: EXIT_FAILED,
  incomplete: EXIT_INCOMPLETE,
};

export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description(
      'run the conformance suite against a target (or, with --reference-server, the embedded reference server) and write its reports',
    )
    .option('--target <file>', 'YAML target file (see targets/example.yaml); variables and flags override it');
  addSettingOptions(command);
  command
    .option(
      '--report-dir <dir>',
      `where the reports go (default: a new timestamped directory under reports/, with ${DEFAULT_REPORT_DIR} pointing at the newest); a directory used before loses the files a run writes there, and keeps any other`,
    )
    .option(
      '--grep <pattern>',
      'run only the cases whose title matches, e.g. a requirement id such as AUTH-401 (the verdict is then incomplete)',
    )
    .option(
      '--requirement <id>',
      'repeatable: run only the cases that can judge this requirement, including those that judge it on the side (the verdict is then incomplete)',
      collect,
      [],
    )
    .option(
      '--allow-partial',
      'exit 0 when nothing failed though requirements were not run (--grep, --read-only, no forbidden token or fixtures); the record says so',
    )
    .option('--baseline <file>', 'a previous conformance.json: only requirements failing now and not then fail the run')
    .option(
      '--read-only',
      'send no request that could create a record on the target; creation cases are reported not run',
    )
    .option('--workers <n>', 'parallel Playwright workers (default: one per core)', wholeNumber(1))
    .option(
      '--generate <n>',
      `after the fixed cases, a boundary phase and then N random inputs per operation drawn from the contract's schemas, valid and near-valid; a failure is shrunk to a minimal input with its curl line; 0 turns generation off (default ${DEFAULT_GENERATED_INPUTS}; target file: generate.inputs)`,
      wholeNumber(0),
    )
    .option(
      '--seed <n>',
      'the seed generated inputs are drawn from: the same seed draws the same inputs (default: a new one, printed and written in the record)',
      wholeNumber(0, MAX_SEED),
    )
    .option(
      '--generate-budget <seconds>',
      `the most generation may take in all, shared out between the operations (default ${DEFAULT_GENERATION_BUDGET_SECONDS})`,
      wholeNumber(1),
    )
    .option(
      '--generate-operation-budget <seconds>',
      `the most one operation's generation may take (default ${DEFAULT_OPERATION_BUDGET_SECONDS})`,
      wholeNumber(1),
    )
    .option(
      '--save-cases <file>',
      'append each generated failure that reproduced to this target file as a regression case, which later runs with --target FILE send before anything else',
    )
    .option(
      '--signing-key <file>',
      `sign the record with this Ed25519 private key (PEM): ${ENVELOPE_FILE} beside conformance.json, checked by verify --key (${RUN_ENVIRONMENT.signingKey})`,
    )
    .addOption(
      new Option('--level <level>', 'what fails the run: must, or should for MUST and SHOULD')
        .choices(['must', 'should'])
        .default('must'),
    )
    .option(
      '--reference-server',
      "test the kit's own reference server, started in this process, instead of a target (what npm start runs); never chosen when target settings are missing, so a gate whose settings are unset fails",
    )
    .option(
      '--fault <name>',
      `embedded reference server only, repeatable: switch on a fault (${FAULT_NAMES.length} known, e.g. ${FAULT_NAMES[0]})`,
      collect,
      [],
    )
    .option(
      '--choice <name>',
      `embedded reference server only, repeatable: switch on a legal choice (${CHOICE_NAMES.length} known, e.g. ${CHOICE_NAMES[0]})`,
      collect,
      [],
    )
    .action(async (flags: RunFlags) => {
      process.exitCode = await runCommand(flags, process.env);
    });
}

/** The flag of a RunFlags key, e.g. `--base-url` for baseUrl. */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** The flags given an empty value (`--base-url "$UNSET"`), by name. */
function emptyFlags(flags: RunFlags): string[] {
  return Object.entries(flags)
    .filter(([, value]) => value === '' || (Array.isArray(value) && value.includes('')))
    .map(([key]) => flagName(key));
}

/**
 * A setting present but empty is a variable or secret the job never got: the run stops on it,
 * naming it, instead of running without it (or, without a base URL, against nothing that was asked for).
 */
function refuseEmptySettings(flags: RunFlags, env: Record<string, string | undefined>): void {
  const empty = [...emptyFlags(flags), ...emptyEnvironmentSettings(env)];
  if (empty.length > 0)
    throw new TargetError(
      `${empty.join(', ')} ${empty.length === 1 ? 'is' : 'are'} set but empty: give ${empty.length === 1 ? 'it a value' : 'them values'} or leave ${empty.length === 1 ? 'it' : 'them'} out (an empty setting is a variable or secret the job did not get)`,
    );
}

/**
 * Without a base URL the run tests nothing unless --reference-server asks for the embedded server; with one, that flag
 * contradicts it.
 */
function checkTargetChosen(settings: TargetSettings, flags: RunFlags): void {
  const embeddedOnly = [flags.fault.length > 0 && '--fault', flags.choice.length > 0 && '--choice'].filter(
    (name): name is string => typeof name === 'string',
  );
  if (flags.referenceServer) {
    if (settings.baseUrl !== undefined)
      throw new TargetError(
        `--reference-server tests the kit's own server, but a target base URL is given (${settingSource('baseUrl')}); give one or the other`,
      );
    const stray = targetOnlySettingsGiven(settings);
    if (stray.length > 0)
      throw new TargetError(
        `${stray.join(', ')} given with --reference-server, which brings its own credentials and records; leave them out, or give a target base URL instead`,
      );
    return;
  }
  if (embeddedOnly.length > 0)
    throw new TargetError(
      `${embeddedOnly.join(' and ')} ${embeddedOnly.length === 1 ? 'applies' : 'apply'} to the embedded reference server only; add --reference-server${settings.baseUrl !== undefined ? ' and leave out the target base URL' : ''}`,
    );
  if (settings.baseUrl !== undefined) return;
  const given = targetOnlySettingsGiven(settings);
  if (given.length > 0)
    throw new TargetError(`${given.join(', ')} given without a target base URL; give ${settingSource('baseUrl')}`);
  throw new TargetError(
    `no target base URL: give ${settingSource('baseUrl')}, or --reference-server to test the kit's own reference server`,
  );
}

/** The run's target file (--target), read and checked on first use and kept: a run reads it once. */
export function targetFileReader(path: string | undefined): () => TargetFile | undefined {
  let file: TargetFile | undefined;
  return () => (path === undefined ? undefined : (file ??= loadTargetFile(path)));
}

/** The merged settings, checked for contradictions before anything starts. */
export function runSettings(
  flags: RunFlags,
  env: Record<string, string | undefined>,
  targetFile = targetFileReader(flags.target),
): TargetSettings {
  refuseEmptySettings(flags, env);
  const file = targetFile();
  const settings = mergeSettings(
    file ? targetFileSettings(file) : {},
    settingsFromEnvironment(env),
    settingsFromFlags(flags),
  );
  const inapplicable = flags.fault.find((name) => INAPPLICABLE_FAULTS.has(name));
  if (inapplicable !== undefined)
    throw new TargetError(
      `fault ${inapplicable} does not apply to this contract: ${INAPPLICABLE_FAULTS.get(inapplicable)}`,
    );
  const inapplicableChoice = flags.choice.find((name) => INAPPLICABLE_CHOICES.has(name));
  if (inapplicableChoice !== undefined)
    throw new TargetError(
      `choice ${inapplicableChoice} does not apply to this contract: ${INAPPLICABLE_CHOICES.get(inapplicableChoice)}`,
    );
  const unknown = flags.fault.filter((name) => !FAULT_NAMES.includes(name));
  if (unknown.length > 0)
    throw new TargetError(`unknown fault ${unknown.join(', ')}; known faults: ${FAULT_NAMES.join(', ')}`);
  const unknownChoices = flags.choice.filter((name) => !CHOICE_NAMES.includes(name));
  if (unknownChoices.length > 0)
    throw new TargetError(`unknown choice ${unknownChoices.join(', ')}; known choices: ${CHOICE_NAMES.join(', ')}`);
  if (flags.grep !== undefined && flags.requirement.length > 0)
    throw new TargetError('give --grep or --requirement, not both');
  const unknownRequirements = flags.requirement.filter((id) => !loadContract().requirements.some((r) => r.id === id));
  if (unknownRequirements.length > 0)
    throw new TargetError(
      `--requirement ${unknownRequirements.join(', ')}: no such requirement in the catalogue (see las-conformance contract)`,
    );
  checkTargetChosen(settings, flags);
  return settings;
}

/** The run's log, run.log in the report directory, and how to close its file. */
function runLog(reportDir: string): { log: Logger; close: () => void } {
  const file = pino.destination({ dest: resolve(reportDir, RUN_LOG_FILE), mkdir: true, sync: true });
  // Tokens are never handed to the logger; the redaction guards against that changing.
  const log = pino(
    {
      base: { command: 'run' },
      redact: {
        paths: ['*.sessionToken', '*.pat', '*.forbiddenToken', 'sessionToken', 'pat', 'forbiddenToken'],
        censor: '[redacted]',
      },
    },
    file,
  );
  return { log, close: () => file.end() };
}

function describeTarget(target: Target, embedded: boolean, faults: string[]) {
  // Header names only, never their values.
  return {
    baseUrl: target.baseUrl,
    embedded,
    faults,
    legacyHeader: target.legacyHeader,
    forbiddenTokenGiven: target.credentials.forbiddenToken !== undefined,
    fixtures: Object.keys(target.fixtures),
    limits: target.limits,
    caGiven: target.caFile !== undefined,
    headers: Object.keys(target.extraHeaders ?? {}),
  };
}

/**
 * What --generate and its companions (over the target file's `generate`) ask for: by default the
 * boundary phase and DEFAULT_GENERATED_INPUTS random inputs per operation; undefined when
 * `--generate 0` (or generate.inputs: 0) turns generation off.
 */
export function generationSettings(flags: RunFlags, file: GenerationFileSettings): GenerationSettings | undefined {
  const inputs = flags.generate ?? file.inputs ?? DEFAULT_GENERATED_INPUTS;
  if (inputs === 0) {
    const stray = [
      flags.seed !== undefined && '--seed',
      flags.generateBudget !== undefined && '--generate-budget',
      flags.generateOperationBudget !== undefined && '--generate-operation-budget',
    ].filter(Boolean);
    if (stray.length > 0)
      throw new TargetError(
        `${stray.join(', ')} given with --generate 0 (or generate.inputs: 0), which turns generation off`,
      );
    return undefined;
  }
  return {
    inputs,
    seed: flags.seed ?? file.seed ?? randomInt(0, MAX_SEED),
    totalBudgetMs: 1000 * (flags.generateBudget ?? file.budgetSeconds ?? DEFAULT_GENERATION_BUDGET_SECONDS),
    operationBudgetMs:
      1000 * (flags.generateOperationBudget ?? file.operationBudgetSeconds ?? DEFAULT_OPERATION_BUDGET_SECONDS),
  };
}

/** The record --baseline names, read as `diff` reads one. */
function readBaseline(file: string): { file: string; record: ComparableRecord } {
  return { file, record: comparableRecord(readRecordFile(file, 'the baseline'), file) };
}

/** What the record is told about the run: waivers from the target file, the baseline's failures, the switches. */
export function runDescription(flags: RunFlags, targetFile = targetFileReader(flags.target)): RunDescription {
  const ids = loadContract().requirements.map((r) => r.id);
  const file = targetFile();
  const waivers = file ? targetFileWaivers(file, ids) : [];
  // Read once, and whole only as a regular file within the size verify allows (input-files.ts).
  const baselineRecord = flags.baseline === undefined ? undefined : readBaseline(flags.baseline);
  const baseline = baselineRecord && { file: baselineRecord.file, failing: baselineFailing(baselineRecord.record) };
  const settings = generationSettings(flags, file ? targetFileGeneration(file) : {});
  // A gate that failed on a generated input keeps failing until the service is fixed, whatever the new seed draws.
  const foundBefore = foundInputsOf((baselineRecord?.record as Partial<CertificationRecord> | undefined)?.generated);
  const generate = settings && foundBefore.length > 0 ? { ...settings, foundBefore } : settings;
  return {
    failLevel: flags.level,
    readOnly: flags.readOnly === true,
    ...(flags.grep !== undefined ? { grep: flags.grep } : {}),
    ...(flags.requirement.length > 0 ? { requirements: flags.requirement } : {}),
    allowPartial: flags.allowPartial === true,
    waivers,
    ...(baseline ? { baseline } : {}),
    ...(generate ? { generate } : { generationOff: true }),
  };
}

/**
 * What the console says of generation before the suite starts: the seed to draw the same inputs again, or that it is
 * off.
 */
export function generationLine(generate: GenerationSettings | undefined): string {
  if (!generate) return 'Generated inputs: off (--generate 0); the record says so';
  return `Generating inputs per operation: the boundary phase, then ${generate.inputs} random inputs from seed ${generate.seed} (--seed ${generate.seed} draws them again; --generate 0 turns generation off)`;
}

/**
 * The titles of the cases that can judge these requirements, the target file's regression cases for them included;
 * building the case tables costs other runs nothing.
 */
async function casesSelectedFor(ids: string[], regressionCases: RegressionCase[]): Promise<string[]> {
  const { casesJudging } = await import('../suites/selection.ts');
  const { regressionSuiteCases } = await import('../suites/cases/regression.ts');
  const { caseTitle } = await import('../suites/cases/suite-case.ts');
  const regressions = regressionSuiteCases(regressionCases.filter((c) => ids.includes(c.requirement)));
  return [...(await casesJudging(ids)), ...regressions.map(caseTitle)];
}

/** Appends the run's generated failures that reproduced to a target file's regression cases, and says so. */
function saveFoundCases(file: string, record: CertificationRecord): void {
  const contract = loadContract();
  const found = regressionCasesOfGenerated(record, contract);
  const added = saveRegressionCases(
    file,
    found,
    contract.requirements.map((r) => r.id),
  );
  const ids = [...new Set(added.map((c) => c.requirement))];
  const kept = found.length - added.length;
  process.stdout.write(
    `${file}: ${added.length} regression case${added.length === 1 ? '' : 's'} added from generated inputs${ids.length > 0 ? ` (${ids.join(', ')})` : ''}${kept > 0 ? `; ${kept} already there` : ''}\n`,
  );
}

/**
 * The record the suite left, as runSuite read it, checked: a record that does not hold its own shape or verdict is no
 * verdict.
 */
function checkedRecord(value: unknown): CertificationRecord {
  const problems = recordProblems(value, loadContract(), contractSha256());
  if (problems.length > 0) throw new Error(`the record the suite wrote cannot be read as a verdict: ${problems[0]}`);
  return value as CertificationRecord;
}

/**
 * The signing key file (--signing-key, else LAS_SIGNING_KEY) as an absolute path, checked before anything starts;
 * undefined when the record is not to be signed.
 */
function signingKeyOf(flags: RunFlags, env: Record<string, string | undefined>): string | undefined {
  const file = flags.signingKey ?? (env[RUN_ENVIRONMENT.signingKey] || undefined);
  if (file === undefined) return undefined;
  readSigningKey(resolve(file));
  return resolve(file);
}

export async function runCommand(flags: RunFlags, env: Record<string, string | undefined>): Promise<number> {
  const targetFile = targetFileReader(flags.target);
  const settings = runSettings(flags, env, targetFile);
  const description = runDescription(flags, targetFile);
  // A regression case naming no requirement of the catalogue is a usage error before anything starts.
  // Read here, once: the suite's processes get the cases as data in the run's description.
  const file = targetFile();
  const regressionCases = file
    ? targetFileRegressionCases(
        file,
        loadContract().requirements.map((r) => r.id),
      )
    : [];
  // A file that cannot take the cases is a usage error before anything is sent.
  if (flags.saveCases !== undefined && existsSync(flags.saveCases))
    readRegressionCases(
      flags.saveCases,
      loadContract().requirements.map((r) => r.id),
    );
  const signingKeyFile = signingKeyOf(flags, env);
  const timestamped = flags.reportDir === undefined;
  const reportDir = resolve(flags.reportDir ?? timestampedReportDir(resolve(DEFAULT_REPORT_DIR, '..'), new Date()));
  const cleared = timestamped ? [] : clearKitFiles(reportDir);
  if (cleared.length > 0) process.stdout.write(`Cleared the earlier run's ${cleared.join(', ')} from ${reportDir}\n`);
  const { log, close: closeLog } = runLog(reportDir);
  let embedded: EmbeddedTarget | undefined;
  let suiteStarted = false;
  try {
    if (flags.referenceServer) {
      embedded = await startEmbeddedTarget(flags.fault, flags.choice);
      process.stdout.write(
        `Embedded reference server at ${embedded.settings.baseUrl}${flags.fault.length ? ` with fault ${flags.fault.join(', ')}` : ''}${flags.choice.length ? ` with choice ${flags.choice.join(', ')}` : ''}\n`,
      );
    }
    const target = resolveTarget(mergeSettings(settings, embedded?.settings ?? {}), loadContract().legacyHeader);
    log.info({ target: describeTarget(target, embedded !== undefined, flags.fault) }, 'target');
    for (const warning of shortSecretWarnings(targetSecrets(target))) process.stderr.write(`${warning}\n`);
    if (embedded) log.info({ status: await probeTarget(target) }, 'probe answered');
    else {
      await preflight(target, { readOnly: flags.readOnly === true });
      log.info('preflight passed');
    }
    // The link is pointed here when the suite ends; the console names the reports through it.
    const latest = timestamped ? { latestLink: join(dirname(reportDir), LATEST) } : {};
    const embeddedRun = embedded ? { embedded: { faults: flags.fault, choices: flags.choice } } : {};
    process.stdout.write(`${generationLine(description.generate)}\n`);
    suiteStarted = true;
    // --requirement travels as data: the titles of the cases that can judge them, which the configuration selects.
    const selected =
      flags.requirement.length > 0 ? { selectedCases: await casesSelectedFor(flags.requirement, regressionCases) } : {};
    // LAS_BLOB_REPORT: also a blob report, for merging shards; told in the description like the rest of the run.
    const blob = blobReportOf(env) ? { blobReport: true } : {};
    const run = { ...description, ...latest, ...selected, ...embeddedRun, ...blob };
    const outcome = await runSuite({
      target,
      reportDir,
      failLevel: flags.level,
      workers: flags.workers,
      grep: flags.grep,
      baseEnvironment: env,
      output: 'inherit',
      run,
      regressionCases,
      ...(signingKeyFile ? { signingKeyFile } : {}),
    });
    if (timestamped) pointLatestAt(reportDir);
    log.info(
      { playwrightExitCode: outcome.playwrightExitCode, verdict: outcome.record?.verdict, gate: outcome.record?.gate },
      'suite finished',
    );
    if (!outcome.record)
      throw new Error(
        outcome.noVerdict ??
          `the suite ended without a verdict (Playwright exit code ${outcome.playwrightExitCode}); see the output above`,
      );
    const record = checkedRecord(outcome.record);
    if (record.cases.total === 0)
      throw new Error(
        `no case matches --grep "${flags.grep ?? ''}"; case titles start with their own requirement ids, e.g. AUTH-401-MALFORMED; --requirement ID selects every case that can judge a requirement`,
      );
    if (flags.saveCases !== undefined) saveFoundCases(flags.saveCases, record);
    if (env.GITHUB_ACTIONS === 'true')
      reportToGithub(record, {
        stepSummaryFile: env.GITHUB_STEP_SUMMARY,
        summaryFile: join(reportDir, SUMMARY_FILE),
        write: (text) => process.stdout.write(text),
      });
    return GATE_EXIT_CODES[record.gate.result];
  } catch (error) {
    log.error({ error: (error as Error).message }, 'run failed');
    throw error;
  } finally {
    closeLog();
    // A run stopped before its suite (a preflight, an unreachable target) leaves no folder behind:
    // its one line on the console says what to check.
    if (timestamped && !suiteStarted) rmSync(reportDir, { recursive: true, force: true });
    await embedded?.close();
  }
}
