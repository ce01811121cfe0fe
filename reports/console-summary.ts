// The console's account of what failed, printed above the verdict: each requirement that fails
// the run with its first finding and the curl line that reproduces it, so the next step is on
// the screen and not only in a report file.
import type { CertificationRecord } from './record.ts';
import { blockingRequirements, findingText, judgedText } from './requirement-outcomes.ts';

export function failedRequirementsConsole(record: CertificationRecord): string {
  const blocking = blockingRequirements(record);
  if (blocking.length === 0) return '';
  const lines = [`Failed requirements (${blocking.length}):`];
  for (const r of blocking) {
    const judged = judgedText(r);
    lines.push(`  ${r.id} (${r.level}, section ${r.section}${judged ? `; ${judged}` : ''}): ${r.text}`);
    const first = r.evidence[0];
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
