// The Playwright reporter that writes the certification record: it collects each case's findings
// and outcome, and at the end writes conformance.json (signed beside it when the run was given a
// key: attestation.ts), summary.md and the renderings, and prints the verdict. It
// renders what the cases found; it never re-checks. The verdict comes from each case's verdict
// data, which no scrubber touches (reports/case-data.ts); when a case's data cannot be read the
// run gets no record at all, so nothing can read it as a pass. So does a run whose configuration
// leaves out a reporter that changes results (or lists it after one that reads them), and a run in
// which one of them failed: the one line names it (run-protocol/result-changing-reporters.ts).
// It changes no case; it fails the run's status when there is no verdict, so that `npx playwright
// test` started without the run command exits non-zero as well.
import { closeSync, existsSync, mkdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { loadContract } from '../contract/index.ts';
import { scrubber } from '../run-protocol/secrets.ts';
import {
  blockingLevels,
  failedReporterOf,
  reportersLeftOut,
  ENVELOPE_FILE,
  GENERATION_OFF,
  NO_VERDICT_FILE,
  ownFindings,
  RECORD_FILE,
  REQUIREMENT_ANNOTATION,
  RUN_LOG_FILE,
  SUMMARY_FILE,
  type FailLevel,
  type GeneratedOperation,
  type RecordMessage,
  type RunDescription,
} from '../run-protocol/index.ts';
import type { ConformanceReporterOptions } from '../run-protocol/reporter-options.ts';
import { generatedOperationOf, generatedRecord } from './generated.ts';
import { readCaseData } from './case-data.ts';
import {
  consoleHeading,
  consoleSummary,
  failedRequirementsConsole,
  notRunConsole,
  summaryMarkdown,
  type ReportFiles,
} from './console-summary.ts';
import {
  envelopeText,
  keyId,
  readSigningKey,
  signRecord,
  UNSIGNED_RECORD,
  type DsseEnvelope,
  type RecordSignature,
} from './attestation.ts';
import {
  buildRecord,
  type CertificationRecord,
  type CaseOutcome,
  type GatePolicy,
  type RunContext,
  type Selection,
} from './record.ts';
import { writeRecordRenderings, type RenderingPaths } from './record-renderings.ts';
import { printableLines } from './terminal-text.ts';
import { contractSha256, environmentVersions, kitIdentity } from './run-context.ts';

export type { ConformanceReporterOptions };

interface RecordPaths {
  conformance: string;
  summary: string;
}

function requirementsOf(test: TestCase): string[] {
  return test.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION).map((a) => String(a.description));
}

function reporterOption(config: FullConfig, name: string, option: string): string | undefined {
  const entry = config.reporter.find(([reporter]) => reporter === name);
  const value = (entry?.[1] as Record<string, unknown> | undefined)?.[option];
  return typeof value === 'string' ? value : undefined;
}

const EVERYTHING = /.*/;

function patternText(pattern: RegExp | RegExp[] | null | undefined): string | undefined {
  if (!pattern) return undefined;
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const given = patterns.filter((p) => p.source !== EVERYTHING.source);
  return given.length === 0 ? undefined : given.map((p) => p.source).join('|');
}

const VALUE_OPTIONS = new Set([
  '--config',
  '-c',
  '--workers',
  '-j',
  '--reporter',
  '--shard',
  '--timeout',
  '--retries',
  '--repeat-each',
  '--max-failures',
  '--output',
  '--global-timeout',
  '--project',
  '--test-list',
  '--test-list-invert',
  '--only-changed',
  '--grep',
  '-g',
  '--grep-invert',
]);
const FILTER_FLAGS = new Set(['--last-failed', '--only-changed', '--test-list', '--test-list-invert', '--project']);

/**
 * What `playwright test` was asked to select on its command line: Playwright keeps --grep and file filters out of the
 * configuration reporters see.
 */
export function commandLineSelection(argv: string[]): { grep?: string; grepInvert?: string; filters: string[] } {
  const at = argv.indexOf('test');
  const args = at < 0 ? [] : argv.slice(at + 1);
  const found: { grep?: string; grepInvert?: string; filters: string[] } = { filters: [] };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] =
      args[i].startsWith('--') && args[i].includes('=')
        ? [args[i].slice(0, args[i].indexOf('=')), args[i].slice(args[i].indexOf('=') + 1)]
        : [args[i], undefined];
    const value = () => inline ?? args[++i];
    if (flag === '--grep' || flag === '-g') found.grep = value();
    else if (flag === '--grep-invert') found.grepInvert = value();
    else if (FILTER_FLAGS.has(flag))
      found.filters.push(VALUE_OPTIONS.has(flag) && flag !== '--only-changed' ? `${flag} ${value()}` : flag);
    else if (VALUE_OPTIONS.has(flag)) {
      if (inline === undefined) i++;
    } else if (!flag.startsWith('-')) found.filters.push(flag);
  }
  return found;
}

/**
 * The selection: the run description's (the run command's --requirement or --grep, carried as
 * data), else Playwright's command line and configuration (grep, shard), for a suite started
 * without the run command. The command line is read only then: what the run command selected is
 * never parsed back out of the arguments it gave Playwright.
 */
export function selectionOf(
  config: Pick<FullConfig, 'grep' | 'grepInvert' | 'shard'>,
  run: Pick<RunDescription, 'readOnly' | 'grep' | 'requirements'>,
  argv: string[],
): Selection {
  // --requirement selects by a --grep of titles: the record names the requirements, not the pattern.
  if (run.requirements?.length) return { whole: false, requirements: run.requirements, readOnly: run.readOnly };
  if (run.grep !== undefined) return { whole: false, grep: run.grep, readOnly: run.readOnly };
  const line = commandLineSelection(argv);
  const grep = line.grep ?? patternText(config.grep);
  const grepInvert = line.grepInvert ?? patternText(config.grepInvert);
  const shard =
    config.shard && config.shard.total > 1 ? { current: config.shard.current, total: config.shard.total } : undefined;
  const filters = line.filters;
  const whole = !grep && !grepInvert && !shard && !run.readOnly && filters.length === 0;
  return {
    whole,
    ...(grep ? { grep } : {}),
    ...(grepInvert ? { grepInvert } : {}),
    ...(shard ? { shard } : {}),
    ...(filters.length > 0 ? { filters } : {}),
    readOnly: run.readOnly,
  };
}

function gatePolicy(run: RunDescription, today: string): GatePolicy {
  return {
    allowPartial: run.allowPartial,
    waivers: run.waivers,
    ...(run.baseline ? { baseline: run.baseline } : {}),
    today,
  };
}

/** The one line of a run whose configuration leaves out a reporter that changes results (`names`). */
function leftOutReason(names: string): string {
  const why = 'no case may be rendered before its tokens are replaced and its outcome decided';
  return `the configuration leaves out ${names}, or lists it after a reporter that reads results: ${why}`;
}

/** Playwright's error when a selection matches no test. */
const NO_TESTS_FOUND = 'No tests found';

const firstLine = (text: string) =>
  text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim() ?? text;

export default class ConformanceReporter implements Reporter {
  private readonly outputDir: string;
  private readonly options: ConformanceReporterOptions;
  private readonly outcomes = new Map<TestCase, CaseOutcome>();
  private readonly unreadable: string[] = [];
  private readonly generated: GeneratedOperation[] = [];
  /** Errors outside any case (a case file that failed to load, a failed global setup): the run has no verdict. */
  private readonly runErrors: string[] = [];
  /** What a result-changing reporter threw, naming it: the run has no verdict. */
  private readonly reporterFailures: string[] = [];
  private leftOut: string[] = [];
  private config?: FullConfig;
  private target?: string;

  constructor(options: ConformanceReporterOptions) {
    this.outputDir = resolve(options.outputDir);
    this.options = options;
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.leftOut = reportersLeftOut(config.reporter).map((reporter) => reporter.name);
    // Requirements are read here, before any reporter has had a chance to rewrite annotations.
    for (const test of suite.allTests())
      this.outcomes.set(test, {
        title: test.title,
        requirements: requirementsOf(test),
        status: 'not-started',
        findings: [],
      });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const contract = loadContract();
    const known = this.outcomes.get(test);
    const requirements = known?.requirements ?? requirementsOf(test);
    const data = readCaseData(result, contract);
    if (data.kind === 'unreadable') this.unreadable.push(`${test.title}: ${data.problem}`);
    if (data.kind === 'absent' && result.status === 'passed')
      this.unreadable.push(`${test.title}: it passed but left no verdict data`);
    const findings = data.kind === 'read' ? data.findings : [];
    if (data.kind === 'read') this.target ??= data.target;
    const generated = generatedOperationOf(result);
    if (generated) this.generated.push(generated);
    const blocking = blockingLevels(this.failLevel());
    const failed = result.status === 'failed' || result.status === 'timedOut';
    const explained = ownFindings(findings, requirements).some((f) => blocking.includes(f.level));
    this.outcomes.set(test, {
      title: known?.title ?? test.title,
      requirements,
      status: result.status,
      skipReason:
        result.status === 'skipped'
          ? [...result.annotations, ...test.annotations].find((a) => a.type === 'skip')?.description
          : undefined,
      error: failed && !explained ? (result.errors[0]?.message ?? 'failed').split('\n')[0] : undefined,
      findings,
      ...(data.kind === 'read' && data.notRun.length > 0 ? { notRun: data.notRun } : {}),
      durationMs: result.duration,
      ...(data.kind === 'read' ? { exercised: data.exercised, unexercised: data.unexercised } : {}),
    });
  }

  onError(error: TestError): void {
    // Playwright's own "No tests found" is a selection that matched nothing: the record says so (no case ran).
    const message = firstLine(error.message ?? error.value ?? 'an error outside any case');
    if (message.replace(/^Error: /, '') === NO_TESTS_FOUND) return;
    if (failedReporterOf(message)) {
      this.reporterFailures.push(message.replace(/^Error: /, ''));
      return;
    }
    const where = error.location ? `${relative(process.cwd(), error.location.file)}:${error.location.line}: ` : '';
    this.runErrors.push(`${where}${message}`);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    const leftOut = this.leftOut.join(' and ');
    if (leftOut) return this.noVerdict(leftOutReason(leftOut));
    if (this.reporterFailures.length > 0) return this.noVerdict(this.reporterFailures[0]);
    if (this.runErrors.length > 0)
      return this.noVerdict(
        `the suite could not be run: ${this.runErrors[0]}${this.runErrors.length > 1 ? ` (and ${this.runErrors.length - 1} more error${this.runErrors.length === 2 ? '' : 's'} above)` : ''}`,
      );
    if (this.unreadable.length > 0)
      return this.noVerdict(
        `the data of ${this.unreadable.length} case${this.unreadable.length === 1 ? '' : 's'} cannot be read, so no record was written. First: ${this.unreadable[0]}`,
      );
    const contract = loadContract();
    const { run } = this.options;
    const context: Omit<RunContext, 'kit'> = {
      contractSha256: contractSha256(),
      environment: environmentVersions(),
      target: {
        baseUrl: '',
        embedded: run.embedded !== undefined,
        faults: run.embedded?.faults ?? [],
        choices: run.embedded?.choices ?? [],
      },
      selection: selectionOf(this.config ?? { grep: EVERYTHING, grepInvert: null, shard: null }, run, process.argv),
      inputs: this.options.inputs,
    };
    const record = buildRecord({
      contract,
      kit: kitIdentity(),
      target: this.options.baseUrl ?? this.target ?? 'unknown',
      context,
      gate: gatePolicy(run, new Date().toISOString().slice(0, 10)),
      scrub: scrubber(this.options.secrets),
      failLevel: this.failLevel(),
      startedAt: result.startTime,
      durationMs: result.duration,
      runStatus: result.status,
      cases: [...this.outcomes.values()],
      ...(run.generate ? { generated: generatedRecord(run.generate, this.generated) } : {}),
      ...(run.generationOff ? { generationOff: GENERATION_OFF } : {}),
    });
    const paths = this.paths();
    const recordBytes = Buffer.from(`${JSON.stringify(record, null, 2)}\n`);
    let signed: { envelope: DsseEnvelope; signature: RecordSignature } | undefined;
    try {
      signed = this.sign(recordBytes, record);
    } catch (error) {
      return this.noVerdict(`the record cannot be signed: ${(error as Error).message}`);
    }
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(paths.conformance, recordBytes);
    // An envelope an earlier run left here signs another record: it goes with it.
    if (signed) writeFileSync(join(this.outputDir, ENVELOPE_FILE), envelopeText(signed.envelope));
    else rmSync(join(this.outputDir, ENVELOPE_FILE), { force: true });
    const signature = signed?.signature ?? UNSIGNED_RECORD;
    writeFileSync(paths.summary, summaryMarkdown(record, signature));
    const renderings = writeRecordRenderings(record, this.outputDir, signature);
    const failures = `${notRunConsole(record)}${failedRequirementsConsole(record)}`;
    const reports = this.reportFiles(paths, signed !== undefined, renderings);
    const closing = consoleSummary(record, reports, process.cwd());
    // Waiver reasons, regression cases, a target's values and findings are text from files and the target: shown,
    // never obeyed by the terminal.
    const text = `\n${consoleHeading(record, signature)}${failures}${failures ? '\n' : ''}${closing}`;
    process.stdout.write(printableLines(text));
    this.send(Buffer.concat([Buffer.from('{"record":'), recordBytes, Buffer.from('}')]));
    return undefined;
  }

  /** A RecordMessage on the run command's pipe, when it gave one; the pipe is closed after it. */
  private send(message: Buffer): void {
    const fd = this.options.recordPipe;
    if (fd === undefined) return;
    try {
      for (let written = 0; written < message.length;) written += writeSync(fd, message, written);
      closeSync(fd);
    } catch (error) {
      // A description copied from another run names a pipe this process does not have: the files stand alone.
      process.stderr.write(
        `\nThe record could not be sent to the run command (file descriptor ${fd}: ${(error as Error).message}); the files above hold it.\n`,
      );
    }
  }

  /** The record's envelope, when the run was given a signing key. */
  private sign(
    recordBytes: Buffer,
    record: CertificationRecord,
  ): { envelope: DsseEnvelope; signature: RecordSignature } | undefined {
    if (this.options.signingKeyFile === undefined) return undefined;
    const key = readSigningKey(this.options.signingKeyFile);
    return {
      envelope: signRecord(recordBytes, record, key),
      signature: { signed: true, envelope: ENVELOPE_FILE, keyId: keyId(key) },
    };
  }

  /**
   * No record: the reason, on stderr, in NO_VERDICT_FILE and on the record pipe (the run command shows it as its one
   * line).
   */
  private noVerdict(reason: string): { status: FullResult['status'] } {
    process.stderr.write(`\nNo verdict: ${printableLines(reason)}\n`);
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, NO_VERDICT_FILE), `${reason}\n`);
    const message: RecordMessage<CertificationRecord> = { noVerdict: reason };
    this.send(Buffer.from(JSON.stringify(message)));
    return { status: 'failed' };
  }

  private failLevel(): FailLevel {
    return this.options.run.failLevel;
  }

  private paths(): RecordPaths {
    return { conformance: join(this.outputDir, RECORD_FILE), summary: join(this.outputDir, SUMMARY_FILE) };
  }

  /** Every file of the run: the record, its envelope, the renderings, Playwright's JUnit and HTML, the run's log. */
  private reportFiles(paths: RecordPaths, signed: boolean, renderings: RenderingPaths): ReportFiles {
    const junit = this.config && reporterOption(this.config, 'junit', 'outputFile');
    const html = this.config && reporterOption(this.config, 'html', 'outputFolder');
    const log = join(this.outputDir, RUN_LOG_FILE);
    const files = [
      paths.conformance,
      ...(signed ? [join(this.outputDir, ENVELOPE_FILE)] : []),
      paths.summary,
      renderings.certification,
      renderings.junit,
      ...(junit ? [resolve(junit)] : []),
      ...(html ? [join(resolve(html), 'index.html')] : []),
      ...(existsSync(log) ? [log] : []),
    ];
    const link = this.options.run.latestLink;
    return { dir: this.outputDir, files, ...(link ? { link } : {}) };
  }
}
