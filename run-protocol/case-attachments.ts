// What a case leaves on its test for the reporters: the attachments (its findings for people,
// the data its outcome is decided from) and their bodies' shapes.
import type { Finding } from '../contract/index.ts';

/** The attachment every case leaves for people: its findings with their captured exchanges, tokens replaced. */
export const CASE_FINDINGS_ATTACHMENT = 'conformance-findings';

/**
 * The attachment a case's outcome is decided from: the requirement id, level and location of each
 * finding (in the order of the case report's findings) and the requirements the case could not
 * check. Only catalogue vocabulary, so no scrubber needs to touch it, and none does: replacing a
 * token that happens to be a letter or a word must never change an outcome. Its name keeps the
 * word "verdict" that HTML and blob reports already show for it.
 */
export const CASE_OUTCOME_ATTACHMENT = 'conformance-verdict';

/** A captured exchange: what was seen of one request and its answer, as people read it. */
export interface ExchangeEvidence {
  method: string;
  /** Relative to the base URL, query included. */
  path: string;
  /** Absent when no answer came. */
  status?: number;
  curl: string;
}

/**
 * A finding of a case with the exchange it was seen in; the unit the reports render (a row of the record's `evidence`).
 */
export interface CaseFinding extends Finding {
  exchange?: ExchangeEvidence;
}

/** The body of the findings attachment. */
export interface CaseFindings {
  /** The base URL the case ran against (not a secret). */
  target: string;
  findings: CaseFinding[];
}

/** Requirements a case ran without being able to check them, and why (e.g. a 202 answer shows no body). */
export interface NotRunDeclaration {
  requirements: string[];
  reason: string;
  /**
   * The target's own legal answer (202 Accepted, a minimal document refused) showed nothing to check: the run is not
   * incomplete for it.
   */
  byTargetChoice?: true;
}

/** How many exchanges of a case a judge that can break a requirement judged, and on how many it broke. */
export interface ExercisedRequirement {
  requirement: string;
  /** Exchanges judged (a case's own judgement over several exchanges, such as a page walk, counts as one). */
  judged: number;
  /** Of those, the ones that broke it. */
  broken: number;
}

/** A requirement a judge met in a case but could not judge, with why (a value it cannot reason about). */
export interface UnexercisedRequirement {
  requirement: string;
  reason: string;
}

/** The body of the outcome attachment. */
export interface CaseOutcomeData {
  findings: Pick<Finding, 'requirement' | 'level' | 'location'>[];
  notRun: NotRunDeclaration[];
  /** Every requirement a judge judged in the case: "passed" needs one judged exchange and none broken. */
  exercised: ExercisedRequirement[];
  /** Requirements a judge could not judge on some exchange of the case, each with its first reason. */
  unexercised: UnexercisedRequirement[];
}
