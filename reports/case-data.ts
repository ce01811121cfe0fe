// What the reporters read from one finished case: the outcome data (requirement, level and
// location of each finding, and the requirements it could not check), which no scrubber touches,
// joined with the findings for people (messages, pointers, curl lines), which the scrubber has
// replaced tokens in. An outcome is never decided from scrubbed text, and data the outcome step
// cannot read is reported as such, never read as "no findings".
import { readFileSync } from 'node:fs';
import type { TestResult } from '@playwright/test/reporter';
import { LOCATIONS, type Contract, type Location } from '../contract/index.ts';
import {
  CASE_FINDINGS_ATTACHMENT,
  CASE_OUTCOME_ATTACHMENT,
  type CaseOutcomeData,
  type CaseFinding,
  type ExercisedRequirement,
  type NotRunDeclaration,
  type UnexercisedRequirement,
} from '../run-protocol/index.ts';

export type CaseData =
  /**
   * The case left its data: its findings (outcome fields as found, text for people), what it could not check, and what
   * was judged.
   */
  | {
      kind: 'read';
      findings: CaseFinding[];
      notRun: NotRunDeclaration[];
      exercised: ExercisedRequirement[];
      unexercised: UnexercisedRequirement[];
      target?: string;
    }
  /** The case left no data: it never reached its end (skipped before it began, or its worker died). */
  | { kind: 'absent' }
  /** The case left data the outcome step cannot read: the run cannot have a verdict. */
  | { kind: 'unreadable'; problem: string };

function attachmentText(result: TestResult, name: string): string | undefined {
  const attachment = result.attachments.find((a) => a.name === name);
  if (!attachment) return undefined;
  if (attachment.body) return attachment.body.toString('utf8');
  return attachment.path ? readFileSync(attachment.path, 'utf8') : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The problem with outcome data, or undefined when every finding names a catalogue requirement at its catalogue level.
 */
export function outcomeDataProblem(data: unknown, contract: Contract): string | undefined {
  if (
    !isObject(data) ||
    !Array.isArray(data.findings) ||
    !Array.isArray(data.notRun) ||
    !Array.isArray(data.exercised) ||
    !Array.isArray(data.unexercised)
  )
    return 'it is not a verdict document';
  const known = new Set(contract.requirements.map((r) => r.id));
  const count = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
  for (const entry of data.exercised as unknown[]) {
    if (
      !isObject(entry) ||
      typeof entry.requirement !== 'string' ||
      !known.has(entry.requirement) ||
      !count(entry.judged) ||
      !count(entry.broken) ||
      (entry.broken as number) > (entry.judged as number)
    )
      return `an exercised requirement is not { requirement of the catalogue, judged, broken ≤ judged } (${JSON.stringify(entry)})`;
  }
  for (const entry of data.unexercised as unknown[]) {
    if (
      !isObject(entry) ||
      typeof entry.requirement !== 'string' ||
      !known.has(entry.requirement) ||
      typeof entry.reason !== 'string'
    )
      return `an unexercised requirement is not { requirement of the catalogue, reason } (${JSON.stringify(entry)})`;
  }
  for (const finding of data.findings as unknown[]) {
    if (!isObject(finding) || typeof finding.requirement !== 'string' || !known.has(finding.requirement))
      return `a finding names no requirement of the catalogue (${JSON.stringify(isObject(finding) ? finding.requirement : finding)})`;
    if (finding.level !== contract.requirement(finding.requirement).level)
      return `a finding of ${finding.requirement} has level ${JSON.stringify(finding.level)}, not the catalogue's`;
    if (!LOCATIONS.includes(finding.location as Location)) return `a finding of ${finding.requirement} has no location`;
  }
  for (const declaration of data.notRun as unknown[]) {
    if (
      !isObject(declaration) ||
      !Array.isArray(declaration.requirements) ||
      typeof declaration.reason !== 'string' ||
      (declaration.byTargetChoice !== undefined && declaration.byTargetChoice !== true)
    )
      return 'a not-run declaration is not { requirements, reason, byTargetChoice? }';
    const unknown = (declaration.requirements as unknown[]).find((id) => typeof id !== 'string' || !known.has(id));
    if (unknown !== undefined)
      return `a not-run declaration names no requirement of the catalogue (${JSON.stringify(unknown)})`;
  }
  return undefined;
}

/**
 * The case's data, joined; `unreadable` when the outcome data is missing from a case that left findings for people,
 * malformed, or disagrees with them.
 */
export function readCaseData(result: TestResult, contract: Contract): CaseData {
  const outcomeText = attachmentText(result, CASE_OUTCOME_ATTACHMENT);
  const findingsText = attachmentText(result, CASE_FINDINGS_ATTACHMENT);
  if (outcomeText === undefined)
    return findingsText === undefined
      ? { kind: 'absent' }
      : { kind: 'unreadable', problem: 'the case left evidence but no verdict data' };
  const outcome = parsed(outcomeText);
  const problem = outcomeDataProblem(outcome, contract);
  if (problem) return { kind: 'unreadable', problem: `its verdict data cannot be read: ${problem}` };
  const { findings, notRun, exercised, unexercised } = outcome as CaseOutcomeData;
  const forPeople = findingsText === undefined ? undefined : parsed(findingsText);
  const texts = isObject(forPeople) && Array.isArray(forPeople.findings) ? (forPeople.findings as unknown[]) : [];
  if (texts.length !== findings.length)
    return { kind: 'unreadable', problem: `it has ${findings.length} findings but evidence for ${texts.length}` };
  // The outcome's fields come from the outcome data; the rest is text for people, read as far as it can be.
  const joined = findings.map((f, i): CaseFinding => {
    const text = isObject(texts[i]) ? (texts[i] as Partial<CaseFinding>) : {};
    return {
      ...text,
      message: typeof text.message === 'string' ? text.message : '(the evidence text cannot be read)',
      pointer: typeof text.pointer === 'string' ? text.pointer : '',
      ...f,
    };
  });
  const target = isObject(forPeople) && typeof forPeople.target === 'string' ? forPeople.target : undefined;
  return { kind: 'read', findings: joined, notRun, exercised, unexercised, ...(target ? { target } : {}) };
}
