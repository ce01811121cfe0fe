// What the renderings of a certification record (JUnit per requirement, the console, GitHub, the
// HTML report) read from it, in one place: which requirements block the run, and a finding as one
// line. They render the record's verdicts; none of them judges anything again. Records written
// by newer kits may carry a run verdict "incomplete" and requirement verdicts "waived"; both are
// read as strings here so every rendering shows them as they come.
import type { CertificationRecord, RecordedEvidence, RequirementRecord } from './record.ts';

export type RunVerdictName = CertificationRecord['verdict'] | 'incomplete';
export type RequirementVerdictName = RequirementRecord['verdict'] | 'waived';

export function runVerdictOf(record: CertificationRecord): RunVerdictName {
  return record.verdict as RunVerdictName;
}

export function verdictOf(requirement: RequirementRecord): RequirementVerdictName {
  return requirement.verdict as RequirementVerdictName;
}

/** A requirement whose verdict fails the run at the record's fail level. */
export function blocksRun(record: CertificationRecord, requirement: RequirementRecord): boolean {
  const verdict = verdictOf(requirement);
  return verdict === 'failed' || (verdict === 'warning' && record.failLevel === 'SHOULD');
}

export function blockingRequirements(record: CertificationRecord): RequirementRecord[] {
  return record.requirements.filter((r) => blocksRun(record, r));
}

/** Whatever a waived requirement says of its waiver (reason, expiry), as "name: value" pairs. */
export function waiverText(requirement: RequirementRecord): string | undefined {
  const waiver = (requirement as { waiver?: unknown }).waiver;
  if (typeof waiver === 'string') return waiver;
  if (waiver === null || typeof waiver !== 'object') return undefined;
  const parts = Object.entries(waiver as Record<string, unknown>).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Why a requirement has no finding to show: its not-run reason, or its waiver. */
export function reasonText(requirement: RequirementRecord): string | undefined {
  if (verdictOf(requirement) === 'waived') return [requirement.reason, waiverText(requirement)].filter(Boolean).join('; ') || 'waived';
  return requirement.reason;
}

/** The exchange a finding was seen in: `GET /notification-groups?… → 200`. */
export function exchangeText(evidence: RecordedEvidence): string | undefined {
  if (!evidence.method) return undefined;
  return `${evidence.method} ${evidence.path ?? ''}${evidence.status !== undefined ? ` → ${evidence.status}` : ' → no answer'}`;
}

/** One finding on one line: message, where, expected and actual, and the exchange. */
export function findingText(evidence: RecordedEvidence): string {
  const where = evidence.pointer ? ` at ${evidence.pointer}` : '';
  const values = [evidence.expected !== undefined ? `expected ${evidence.expected}` : undefined, evidence.actual !== undefined ? `actual ${evidence.actual}` : undefined].filter(Boolean).join(', ');
  const exchange = exchangeText(evidence);
  return `${evidence.message}${where}${values ? ` (${values})` : ''}${exchange ? ` in ${exchange}` : ''}`;
}

/** How many exchanges judged a requirement and broke it: "judged on 12 exchanges, 3 broke it". Records older than format 3 carry no counts. */
export function judgedText(requirement: RequirementRecord): string | undefined {
  const { judged, broken } = requirement as Partial<Pick<RequirementRecord, 'judged' | 'broken'>>;
  if (typeof judged !== 'number') return undefined;
  const exchanges = `${judged} exchange${judged === 1 ? '' : 's'}`;
  return judged === 0 ? 'judged on no exchange' : `judged on ${exchanges}, ${broken ?? 0} broke it`;
}

/** Evidence the record counted but did not keep. */
export function omittedCount(requirement: RequirementRecord): number {
  return requirement.evidenceOmitted ?? 0;
}
