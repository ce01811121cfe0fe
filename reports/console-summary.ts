// The console's account of what failed, printed above the verdict: each requirement that fails
// the gate with its first finding and the curl line that reproduces it, so the next step is on
// the screen and not only in a report file; failures a waiver or the baseline accepts are listed
// apart, each with why; the requirements the run did not run, each reason with what supplies it.
// Then the record in short: the console's closing lines (verdict, counts, where the reports are)
// and summary.md, which says the same in Markdown.
import { join, relative, sep } from 'node:path';
import type { Level } from '../contract/index.ts';
import { signatureText, UNSIGNED_RECORD, type RecordSignature } from './attestation.ts';
import { generatedSummaryLine } from './generated.ts';
import {
  recordsGivenLine,
  type CertificationRecord,
  type RequirementRecord,
  type RequirementVerdict,
} from './record.ts';
import {
  acceptedRequirements,
  blockingRequirements,
  findingText,
  firstFinding,
  gateToolsUsed,
  judgedText,
  notRunReasons,
  targetText,
  verdictReasonShown,
} from './requirement-outcomes.ts';

/**
 * What keeps the verdict from passed besides failures: each reason a requirement was not run, with the ids, and what a
 * partial run may do.
 */
export function notRunConsole(record: CertificationRecord): string {
  const reasons = notRunReasons(record);
  if (reasons.length === 0) return '';
  const lines = [
    `Not run (${record.notRun.length}), so the run cannot pass them:`,
    ...reasons.map(({ reason, ids }) => `  ${ids.join(', ')}: ${reason}`),
  ];
  if (record.gate.result === 'incomplete')
    lines.push(
      'Give what each reason names, or pass --allow-partial to accept a partial run (the record then says so).',
    );
  return `${lines.join('\n')}\n`;
}

export function failedRequirementsConsole(record: CertificationRecord): string {
  const blocking = blockingRequirements(record);
  const accepted = acceptedRequirements(record);
  const acceptedLines =
    accepted.length === 0
      ? []
      : [
          `Failures the gate accepts (${accepted.length}):`,
          ...accepted.map(
            ({ requirement, acceptance }) =>
              `  ${requirement.id} (${requirement.level}, section ${requirement.section}): ${acceptance.why}`,
          ),
        ];
  if (blocking.length === 0) return acceptedLines.length > 0 ? `${acceptedLines.join('\n')}\n` : '';
  const lines = [...acceptedLines, `Failed requirements (${blocking.length}):`];
  for (const r of blocking) {
    const judged = judgedText(r);
    lines.push(`  ${r.id} (${r.level}, section ${r.section}${judged ? `; ${judged}` : ''}): ${r.text}`);
    const first = firstFinding(r);
    if (first) {
      lines.push(`    ${findingText(first)}`);
      if (first.curl) lines.push(`    ${first.curl}`);
    }
    const more = r.evidence.length + (r.evidenceOmitted ?? 0) - 1;
    if (more > 0) lines.push(`    and ${more} more finding${more === 1 ? '' : 's'} in conformance.json`);
  }
  lines.push(
    'To reproduce a finding, export LAS_BASE_URL and the credentials it names (LAS_SESSION_TOKEN, LAS_PAT, LAS_FORBIDDEN_TOKEN) and run its curl line.',
  );
  return `${lines.join('\n')}\n`;
}

// --- The record in short: the console's closing lines and summary.md ------------------------

/** What a run wrote, as the console lists it: every file, and the link naming its folder (reports/latest), if any. */
export interface ReportFiles {
  /** The run's report folder. */
  dir: string;
  /** Every file the run wrote, absolute paths, in the order they are listed. */
  files: string[];
  /** A link pointing at `dir`: the files are named through it. */
  link?: string;
}

const VERDICT_WORDS: Record<RequirementVerdict, string> = {
  passed: 'passed',
  failed: 'failed',
  warning: 'warning',
  'not-run': 'not run',
};

function tallyLine(record: CertificationRecord): string {
  const accepted = acceptedRequirements(record).map(({ requirement }) => requirement);
  const acceptedOf = (name: Level, verdict: RequirementVerdict) => {
    const count = accepted.filter((r) => r.level === name && r.verdict === verdict).length;
    return count > 0 ? ` (${count} accepted by the gate)` : '';
  };
  const counted = (name: Level, verdict: RequirementVerdict, word: string) =>
    `${record.tally[name][verdict]} ${word}${acceptedOf(name, verdict)}`;
  const level = (name: Level, words: [RequirementVerdict, string][]) =>
    `${name} ${words
      .filter(([verdict]) => record.tally[name][verdict] > 0 || verdict === 'passed')
      .map(([verdict, word]) => counted(name, verdict, word))
      .join(', ')}`;
  return [
    level('MUST', [
      ['passed', 'passed'],
      ['failed', 'failed'],
      ['not-run', 'not run'],
    ]),
    level('SHOULD', [
      ['passed', 'passed'],
      ['warning', 'warned'],
      ['not-run', 'not run'],
    ]),
    level('INFO', [
      ['passed', 'recorded'],
      ['not-run', 'not run'],
    ]),
  ].join(' · ');
}

/** The requirements whose cases ran but judged nothing, by id, or undefined when there are none. */
function notExercisedLine(record: CertificationRecord): string | undefined {
  const ids = record.requirements.filter((r) => r.notExercised).map((r) => r.id);
  if (ids.length === 0) return undefined;
  const [its, it] = ids.length === 1 ? ['its cases', 'it'] : ['their cases', 'them'];
  return `not exercised: ${ids.join(', ')} (${its} ran, but no check that can break ${it} had an exchange to judge)`;
}

function casesLine(record: CertificationRecord): string {
  const { total, passed, failed, notRun } = record.cases;
  const accepted = acceptedRequirements(record).length > 0 ? ' (a failure the gate accepts fails no case)' : '';
  return `${total} cases: ${passed} passed${accepted}, ${failed} failed, ${notRun} not run`;
}

const GATE_VERDICT_WORDS: Record<CertificationRecord['gate']['result'], string> = {
  pass: 'PASSED',
  fail: 'FAILED',
  incomplete: 'INCOMPLETE',
};

/** What the gate set aside in deciding: waivers, the baseline, --allow-partial. */
function gateToolsNamed(record: CertificationRecord): string {
  const { gate } = record;
  const tools = [
    ...(gate.waived.length > 0 || gate.expiredWaivers.length > 0 ? ['waivers'] : []),
    ...(gate.baseline ? ['the baseline'] : []),
    ...(gate.allowPartial && record.verdict === 'incomplete' ? ['--allow-partial'] : []),
  ];
  return tools.join(' and ');
}

/**
 * The verdict as it decides the exit code. Without waivers, a baseline or --allow-partial, the
 * record's verdict does; with them the gate does, and the record's verdict follows as what the
 * run found before them, so a passing gate over known failures reads as passed.
 */
export function verdictLines(record: CertificationRecord): string[] {
  const recorded = `${record.verdict.toUpperCase()}: ${verdictReasonShown(record)}`;
  if (!gateToolsUsed(record)) return [`Verdict: ${recorded}`];
  const gate = GATE_VERDICT_WORDS[record.gate.result];
  const decided = `Verdict: ${gate} by the gate, which sets the exit code: ${record.gate.reason}`;
  return [decided, `  before ${gateToolsNamed(record)}: ${recorded}`];
}

/** The console's first line about the record: which target it certifies, and whether it is signed. */
export function consoleHeading(record: CertificationRecord, signature: RecordSignature = UNSIGNED_RECORD): string {
  return `Target: ${targetText(record)}\nRecord: ${signatureText(signature)}\n`;
}

/** The console's closing lines: verdict first, then counts, then where the reports are. */
export function consoleSummary(record: CertificationRecord, reports: ReportFiles, cwd: string): string {
  const show = (path: string) => (relative(cwd, path).startsWith('..') ? path : relative(cwd, path));
  const inDir = (file: string) => !relative(reports.dir, file).startsWith('..');
  const named = (file: string) =>
    reports.link && inDir(file) ? join(reports.link, relative(reports.dir, file)) : file;
  const heading = reports.link ? `Reports, in ${show(reports.link)}${sep} (${show(reports.dir)}):` : 'Reports:';
  const lines = [
    ...verdictLines(record),
    `Cases: ${casesLine(record)} (${(record.durationMs / 1000).toFixed(1)} s)`,
    `Requirements: ${tallyLine(record)}`,
    ...optional(notExercisedLine(record), (line) => `  ${line}`),
    `Records: ${recordsGivenLine(record.inputs)}`,
    heading,
    ...reports.files.map((file) => `  ${show(named(file))}`),
  ];
  return `${lines.join('\n')}\n`;
}

function optional(line: string | undefined, shape: (line: string) => string): string[] {
  return line === undefined ? [] : [shape(line)];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function firstEvidence(r: RequirementRecord): string {
  const e = firstFinding(r);
  if (!e) return r.reason ?? '';
  const where = e.method ? ` (\`${e.method} ${e.path}\`${e.status !== undefined ? ` → ${e.status}` : ''})` : '';
  const more = r.evidence.length + (r.evidenceOmitted ?? 0) - 1;
  return `${e.message}${where}${more > 0 ? `; ${more} more` : ''}`;
}

function table(rows: RequirementRecord[], lastColumn: string, lastCell: (r: RequirementRecord) => string): string[] {
  return [
    `| Requirement | Level | Section | Verdict | Judged | Broken | ${lastColumn} |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.level} | ${r.section} | ${VERDICT_WORDS[r.verdict]} | ${r.judged} | ${r.broken} | ${cell(lastCell(r))} |`,
    ),
  ];
}

function acceptedTable(accepted: ReturnType<typeof acceptedRequirements>): string[] {
  return [
    '| Requirement | Level | Section | Accepted as | Why | First finding |',
    '|---|---|---|---|---|---|',
    ...accepted.map(
      ({ requirement: r, acceptance }) =>
        `| ${r.id} | ${r.level} | ${r.section} | ${acceptance.kind} | ${cell(acceptance.why)} | ${cell(firstEvidence(r))} |`,
    ),
  ];
}

/** Each reason requirements were not run, with their ids, as the console lists them. */
function notRunMarkdown(record: CertificationRecord): string[] {
  const reasons = notRunReasons(record);
  if (reasons.length === 0) return [];
  const partial =
    record.gate.result === 'incomplete'
      ? [
          '',
          'Give what each reason names, or pass `--allow-partial` to accept a partial run (the record then says so).',
        ]
      : [];
  return [
    '',
    `Not run (${record.notRun.length}), so the run cannot pass them:`,
    '',
    ...reasons.map(({ reason, ids }) => `- ${ids.join(', ')}: ${cell(reason)}`),
    ...partial,
  ];
}

/** summary.md: the verdict and the target first, then what failed or did not run, then warnings and observations. */
export function summaryMarkdown(record: CertificationRecord, signature: RecordSignature = UNSIGNED_RECORD): string {
  const accepted = acceptedRequirements(record);
  const failedOrNotRun = record.requirements.filter(
    (r) => (r.verdict === 'failed' || r.verdict === 'not-run') && !accepted.some((a) => a.requirement === r),
  );
  const warnings = record.requirements.filter((r) => r.verdict === 'warning');
  const observations = record.requirements.filter((r) => r.level === 'INFO' && r.evidence.length > 0);
  const lines = [
    `# Conformance verdict: ${record.verdict.toUpperCase()}`,
    '',
    `Target: \`${record.target.baseUrl}\`${record.target.embedded ? ' (the embedded reference server)' : ''}. Record: **${signatureText(signature)}**.`,
    '',
    `${verdictReasonShown(record)}.`,
    ...notRunMarkdown(record),
    ...(gateToolsUsed(record) ? ['', `Gate: **${record.gate.result}**: ${record.gate.reason}.`] : []),
    '',
    `- ${record.spec.title} ${record.spec.version}, checked by ${record.kit.name} ${record.kit.version}; ${record.failLevel} findings fail the run`,
    `- ${record.startedAt} to ${record.finishedAt} (${(record.durationMs / 1000).toFixed(1)} s), ${casesLine(record)}`,
    `- Requirements: ${tallyLine(record)}`,
    ...optional(notExercisedLine(record), (line) => `- ${line[0].toUpperCase()}${line.slice(1)}`),
    `- Records the creation cases name: ${recordsGivenLine(record.inputs)}`,
    '',
    '## Failed and not-run requirements',
    '',
    ...(failedOrNotRun.length > 0 ? table(failedOrNotRun, 'Evidence or reason', firstEvidence) : ['None.']),
    '',
    ...(accepted.length > 0 ? ['## Failures the gate accepts', '', ...acceptedTable(accepted), ''] : []),
    '## Warnings',
    '',
    ...(warnings.length > 0 ? table(warnings, 'Evidence', firstEvidence) : ['None.']),
    '',
    '## Observations',
    '',
    ...(observations.length > 0
      ? observations.map((r) => `- ${r.id} (section ${r.section}): ${cell(firstFinding(r)!.message)}`)
      : ['None.']),
    '',
    ...(record.generated ? ['## Generated inputs', '', `${generatedSummaryLine(record.generated)}.`, ''] : []),
    ...(record.generationOff ? ['## Generated inputs', '', `Generation was ${record.generationOff}.`, ''] : []),
    'Each failure in `conformance.json` carries a `curl` line; export `LAS_BASE_URL`, `LAS_SESSION_TOKEN`, `LAS_PAT` (and `LAS_FORBIDDEN_TOKEN`) to run it.',
    '',
  ];
  return lines.join('\n');
}
