// What the renderings of a certification record (JUnit per requirement, the console, GitHub, the
// HTML report) read from it, in one place: which requirements block the run, and a finding as one
// line. They render the record's verdicts; none of them judges anything again. Records written
// by newer kits may carry a run verdict "incomplete" and requirement verdicts "waived"; both are
// read as strings here so every rendering shows them as they come.
import { baselineReason, waivedReason } from '../run-protocol/index.ts';
import type { CertificationRecord, RecordedEvidence, RequirementRecord } from './record.ts';

export type RunVerdictName = CertificationRecord['verdict'] | 'incomplete';
export type RequirementVerdictName = RequirementRecord['verdict'] | 'waived';

/** The target as every rendering names it, first: its base URL, and whether it was the kit's own server. */
export function targetText(record: CertificationRecord): string {
  return `${record.target.baseUrl}${record.target.embedded ? ' (the embedded reference server)' : ''}`;
}

export function runVerdictOf(record: CertificationRecord): RunVerdictName {
  return record.verdict;
}

export function verdictOf(requirement: RequirementRecord): RequirementVerdictName {
  return requirement.verdict;
}

/** A requirement whose verdict fails the run at the record's fail level. */
export function blocksRun(record: CertificationRecord, requirement: RequirementRecord): boolean {
  const verdict = verdictOf(requirement);
  return verdict === 'failed' || (verdict === 'warning' && record.failLevel === 'SHOULD');
}

/** How the gate took a failure it does not count: an active waiver, or a failure the --baseline record had too. */
export interface GateAcceptance {
  kind: 'waived' | 'known failure';
  /** Why, as one phrase: `waived until 2026-12-31: <reason>`, `known failure in the baseline <file>`. */
  why: string;
}

/**
 * The gate's acceptance of a requirement's failure, as the record's gate decided it; undefined when it counts (or did
 * not fail).
 */
export function gateAcceptance(
  record: CertificationRecord,
  requirement: RequirementRecord,
): GateAcceptance | undefined {
  if (!blocksRun(record, requirement)) return undefined;
  if (record.gate.waived.includes(requirement.id))
    return { kind: 'waived', why: requirement.waiver ? waivedReason(requirement.waiver) : 'waived' };
  if (record.gate.baseline?.knownFailures.includes(requirement.id))
    return { kind: 'known failure', why: baselineReason(record.gate.baseline.file) };
  return undefined;
}

/** A requirement whose failure fails the gate: it blocks the run and neither a waiver nor the baseline accepts it. */
export function failsGate(record: CertificationRecord, requirement: RequirementRecord): boolean {
  return blocksRun(record, requirement) && gateAcceptance(record, requirement) === undefined;
}

/** The verdict a rendering shows: the record's, or how the gate accepted the failure. */
export function shownVerdict(
  record: CertificationRecord,
  requirement: RequirementRecord,
): RequirementVerdictName | GateAcceptance['kind'] {
  return gateAcceptance(record, requirement)?.kind ?? verdictOf(requirement);
}

/** The requirements whose failures fail the gate. */
export function blockingRequirements(record: CertificationRecord): RequirementRecord[] {
  return record.requirements.filter((r) => failsGate(record, r));
}

/** The failures the gate accepts, each with how. */
export function acceptedRequirements(
  record: CertificationRecord,
): { requirement: RequirementRecord; acceptance: GateAcceptance }[] {
  return record.requirements.flatMap((requirement) => {
    const acceptance = gateAcceptance(record, requirement);
    return acceptance ? [{ requirement, acceptance }] : [];
  });
}

/**
 * Findings grouped by message, in the order the renderings show findings (firstFinding first): each message once, with
 * how often and its first evidence.
 */
export function groupedEvidence(requirement: RequirementRecord): { first: RecordedEvidence; count: number }[] {
  const groups = new Map<string, { first: RecordedEvidence; count: number }>();
  for (const evidence of evidenceShortestFirst(requirement)) {
    const group = groups.get(evidence.message);
    if (group) group.count++;
    else groups.set(evidence.message, { first: evidence, count: 1 });
  }
  return [...groups.values()];
}

/** Whatever a waived requirement says of its waiver (reason, expiry), as "name: value" pairs. */
export function waiverText(requirement: RequirementRecord): string | undefined {
  const waiver = (requirement as { waiver?: unknown }).waiver;
  if (typeof waiver === 'string') return waiver;
  if (waiver === null || typeof waiver !== 'object') return undefined;
  const parts = Object.entries(waiver as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Why a requirement has no finding to show: its not-run reason, or its waiver. */
export function reasonText(requirement: RequirementRecord, record?: CertificationRecord): string | undefined {
  const acceptance = record && gateAcceptance(record, requirement);
  if (acceptance) return acceptance.why;
  if (verdictOf(requirement) === 'waived')
    return [requirement.reason, waiverText(requirement)].filter(Boolean).join('; ') || 'waived';
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
  const values = [
    evidence.expected !== undefined ? `expected ${evidence.expected}` : undefined,
    evidence.actual !== undefined ? `actual ${evidence.actual}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  const exchange = exchangeText(evidence);
  return `${evidence.message}${where}${values ? ` (${values})` : ''}${exchange ? ` in ${exchange}` : ''}`;
}

/**
 * How many exchanges judged a requirement and broke it: "judged on 12 exchanges, 3 broke it". Records older than format
 * 3 carry no counts.
 */
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

/**
 * Why the run could not certify what it had to: the requirements it did not run (the record's
 * `notRun`), grouped by their reason in order of first appearance. A reason names the flag or
 * variable that gives the missing input, where one does.
 */
export function notRunReasons(record: CertificationRecord): { reason: string; ids: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const id of record.notRun ?? []) {
    const reason = record.requirements.find((r) => r.id === id)?.reason ?? 'not run';
    groups.set(reason, [...(groups.get(reason) ?? []), id]);
  }
  return [...groups].map(([reason, ids]) => ({ reason, ids }));
}

/** The record's verdict reason with each failure the gate accepts marked as such: `ERR-STATUS-STRING (waived)`. */
export function verdictReasonShown(record: CertificationRecord): string {
  const accepted = new Map(
    acceptedRequirements(record).map(({ requirement, acceptance }) => [requirement.id, acceptance.kind]),
  );
  if (accepted.size === 0) return record.verdictReason;
  return record.verdictReason.replace(/[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/g, (id) =>
    accepted.has(id) ? `${id} (${accepted.get(id)})` : id,
  );
}

/**
 * The evidence with the shortest reproducer first (a one-line GET before a long POST), otherwise in the record's order.
 */
export function evidenceShortestFirst(requirement: Pick<RequirementRecord, 'evidence'>): RecordedEvidence[] {
  const length = (e: RecordedEvidence) => e.curl?.length ?? Number.MAX_SAFE_INTEGER;
  return [...requirement.evidence].sort((a, b) => length(a) - length(b));
}

/** The finding every rendering shows first for a requirement: the one with the shortest reproducer. */
export function firstFinding(requirement: Pick<RequirementRecord, 'evidence'>): RecordedEvidence | undefined {
  return evidenceShortestFirst(requirement)[0];
}

/** True when waivers, a baseline or --allow-partial had a say, so the gate's result needs its own line. */
export function gateToolsUsed(record: CertificationRecord): boolean {
  const { gate } = record;
  return (
    gate.waived.length > 0 ||
    gate.expiredWaivers.length > 0 ||
    gate.baseline !== undefined ||
    (gate.allowPartial && record.verdict === 'incomplete')
  );
}
