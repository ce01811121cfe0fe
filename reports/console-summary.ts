// The console's account of what failed, printed above the verdict: each requirement that fails
// the gate with its first finding and the curl line that reproduces it, so the next step is on
// the screen and not only in a report file; failures a waiver or the baseline accepts are listed
// apart, each with why; the requirements the run did not run, each reason with what supplies it.
import type { CertificationRecord } from './record.ts';
import { acceptedRequirements, blockingRequirements, findingText, firstFinding, judgedText, notRunReasons } from './requirement-outcomes.ts';

/** What keeps the verdict from passed besides failures: each reason a requirement was not run, with the ids, and what a partial run may do. */
export function notRunConsole(record: CertificationRecord): string {
  const reasons = notRunReasons(record);
  if (reasons.length === 0) return '';
  const lines = [`Not run (${record.notRun.length}), so the run cannot pass them:`, ...reasons.map(({ reason, ids }) => `  ${ids.join(', ')}: ${reason}`)];
  if (record.gate.result === 'incomplete') lines.push('Give what each reason names, or pass --allow-partial to accept a partial run (the record then says so).');
  return `${lines.join('\n')}\n`;
}

export function failedRequirementsConsole(record: CertificationRecord): string {
  const blocking = blockingRequirements(record);
  const accepted = acceptedRequirements(record);
  const acceptedLines = accepted.length === 0 ? [] : [`Failures the gate accepts (${accepted.length}):`, ...accepted.map(({ requirement, acceptance }) => `  ${requirement.id} (${requirement.level}, section ${requirement.section}): ${acceptance.why}`)];
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
  lines.push('To reproduce a finding, export LAS_BASE_URL and the credentials it names (LAS_SESSION_TOKEN, LAS_PAT, LAS_FORBIDDEN_TOKEN) and run its curl line.');
  return `${lines.join('\n')}\n`;
}
