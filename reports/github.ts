// GitHub Actions' view of a run: an ::error annotation per requirement that fails the gate, a ::notice per failure a
// waiver or the baseline accepts, a ::warning per SHOULD warning below the fail level, and summary.md added to the
// job's summary page. The command line decides whether the run is on GitHub Actions and hands over the file.
import { appendFileSync, readFileSync } from 'node:fs';
import type { CertificationRecord, RequirementRecord } from './record.ts';
import { printable } from './terminal-text.ts';
import { failsGate, findingText, firstFinding, gateAcceptance, verdictOf } from './requirement-outcomes.ts';

export interface GithubReportOptions {
  /** The file GITHUB_STEP_SUMMARY names, when set. */
  stepSummaryFile?: string;
  /** The run's summary.md. */
  summaryFile: string;
  write: (text: string) => void;
}

// Workflow commands: the message escapes %, CR and LF; property values also : and ,. Every other control character
// (a waiver's reason, a target's text) is shown as its picture: the job's log is a terminal too.
function escapeData(value: string): string {
  return printable(value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function annotation(
  command: 'error' | 'warning' | 'notice',
  requirement: RequirementRecord,
  accepted?: string,
): string {
  const first = firstFinding(requirement);
  const message = [
    ...(accepted ? [`accepted by the gate: ${accepted}`] : []),
    `${requirement.text}`,
    ...(first ? [findingText(first), ...(first.curl ? [first.curl] : [])] : []),
  ].join('\n');
  return `::${command} title=${escapeProperty(`${requirement.id} (${requirement.level}, section ${requirement.section})`)}::${escapeData(message)}`;
}

export function githubAnnotations(record: CertificationRecord): string {
  const lines = record.requirements.flatMap((r) => {
    if (failsGate(record, r)) return [annotation('error', r)];
    const accepted = gateAcceptance(record, r);
    if (accepted) return [annotation('notice', r, accepted.why)];
    if (verdictOf(r) === 'warning') return [annotation('warning', r)];
    return [];
  });
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

export function reportToGithub(record: CertificationRecord, options: GithubReportOptions): void {
  options.write(githubAnnotations(record));
  if (options.stepSummaryFile)
    appendFileSync(options.stepSummaryFile, `${readFileSync(options.summaryFile, 'utf8')}\n`);
}
