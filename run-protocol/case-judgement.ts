// The one rule a case's outcome follows, wherever it is applied, and the notes and message it leaves.
import type { Finding } from '../contract/index.ts';
import { FORGIVEN_ANNOTATION, SIDE_FINDING_ANNOTATION } from './annotations.ts';
import type { CaseFinding } from './case-attachments.ts';

/**
 * The findings that may fail a case: those of the requirements it names (its own and those it
 * covers). Any other is a side finding: the record holds it under its requirement, and the
 * case only carries a note, so a red case always points at a requirement of its own.
 */
export function ownFindings<T extends Pick<Finding, 'requirement'>>(
  findings: T[],
  caseRequirements: readonly string[],
): T[] {
  return findings.filter((f) => caseRequirements.includes(f.requirement));
}

/**
 * What one case's blocking findings mean for it: what fails it, what the gate accepts, what is another requirement's.
 */
export interface CaseJudgement<T extends Pick<Finding, 'requirement' | 'level'>> {
  failing: T[];
  accepted: { finding: T; why: string }[];
  side: T[];
}

/**
 * The one rule a case's outcome follows, wherever it is applied (the case-outcome reporter, or the
 * worker when a person replaced the reporters): its findings at a blocking level are sorted into
 * those that fail it, those the gate accepts (`accepted`: requirement to why) and side findings.
 */
export function judgeCase<T extends Pick<Finding, 'requirement' | 'level'>>(
  findings: readonly T[],
  caseRequirements: readonly string[],
  levels: readonly string[],
  accepted: ReadonlyMap<string, string>,
): CaseJudgement<T> {
  const blocking = findings.filter((f) => levels.includes(f.level));
  const own = ownFindings(blocking, caseRequirements);
  return {
    failing: own.filter((f) => !accepted.has(f.requirement)),
    accepted: own
      .filter((f) => accepted.has(f.requirement))
      .map((finding) => ({ finding, why: accepted.get(finding.requirement)! })),
    side: blocking.filter((f) => !own.includes(f)),
  };
}

/**
 * The notes a judged case carries for the findings that do not fail it (accepted by the gate, side findings), each
 * once.
 */
export function judgementNotes<T extends Pick<Finding, 'requirement' | 'level' | 'message'>>(
  judged: CaseJudgement<T>,
): { type: string; description: string }[] {
  const notes = [
    ...judged.accepted.map(({ finding, why }) => ({
      type: FORGIVEN_ANNOTATION,
      description: `${finding.requirement} (${why}): ${finding.message}`,
    })),
    ...judged.side.map((f) => ({
      type: SIDE_FINDING_ANNOTATION,
      description: `${f.requirement} (${f.level}, recorded on its requirement): ${f.message}`,
    })),
  ];
  return [...new Map(notes.map((n) => [`${n.type}\u0000${n.description}`, n])).values()];
}

/** The error a failed case shows: one line per blocking finding. */
export function caseFailureMessage(blocking: CaseFinding[]): string {
  return blocking
    .map(
      (f) =>
        `${f.requirement} (${f.level}): ${f.message}${f.exchange ? ` [${f.exchange.method} ${f.exchange.path}]` : ''}`,
    )
    .join('\n');
}
