// The generated inputs (run --generate) as the reports show them: the record's `generated`
// section gathered from each generated case's attachment, one entry per operation and
// requirement, and its summary line. The JUnit and HTML renderings render it in their own files.
// Failures are evidence of their requirements in the record as well; these only add where they
// came from, the minimal input and its curl line.
import type { TestResult } from '@playwright/test/reporter';
import {
  GENERATION_ATTACHMENT,
  type FoundInput,
  type GeneratedOperation,
  type GeneratedRequirement,
  type GenerationSettings,
} from '../run-protocol/index.ts';
import type { GeneratedRecord } from './record.ts';

/**
 * The GeneratedOperation a generated case attached; undefined for other cases, or one that ended before it attached.
 */
export function generatedOperationOf(result: TestResult): GeneratedOperation | undefined {
  const attachment = result.attachments.find((a) => a.name === GENERATION_ATTACHMENT);
  if (!attachment?.body) return undefined;
  try {
    const value = JSON.parse(attachment.body.toString('utf8')) as GeneratedOperation;
    return typeof value?.operation === 'string' && Array.isArray(value.requirements) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function generatedRecord(settings: GenerationSettings, operations: GeneratedOperation[]): GeneratedRecord {
  const ordered = [...operations].sort((a, b) => a.operation.localeCompare(b.operation));
  return {
    inputs: settings.inputs,
    seed: settings.seed,
    operationBudgetMs: settings.operationBudgetMs,
    totalBudgetMs: settings.totalBudgetMs,
    operations: ordered,
  };
}

export interface GeneratedRow {
  operation: GeneratedOperation;
  requirement: GeneratedRequirement;
}

/** One row per operation and requirement. */
export function generatedRows(generated: GeneratedRecord): GeneratedRow[] {
  return generated.operations.flatMap((operation) =>
    operation.requirements.map((requirement) => ({ operation, requirement })),
  );
}

/** What generation was asked for and did, in one line. */
export function generatedSummaryLine(generated: GeneratedRecord): string {
  const sent = generated.operations.reduce((sum, o) => sum + o.inputs.sent, 0);
  const failed = generatedRows(generated).filter((r) => r.requirement.verdict === 'failed').length;
  const stopped = generated.operations
    .filter((o) => o.stopped)
    .map((o) => `${o.operation} stopped early: ${o.stopped}`);
  return [
    `${generated.inputs} inputs per operation from seed ${generated.seed}, ${sent} requests sent, ${failed} requirement${failed === 1 ? '' : 's'} failed`,
    ...stopped,
  ].join('; ');
}

/** The generated failures of a record, each as the request it sent: what a run given it as --baseline sends first. */
export function foundInputsOf(generated: GeneratedRecord | undefined): FoundInput[] {
  if (generated === undefined) return [];
  return generatedRows(generated).flatMap(({ operation, requirement }) => {
    const example = requirement.counterexample;
    if (example === undefined) return [];
    const query = example.path.includes('?') ? example.path.slice(example.path.indexOf('?') + 1) : undefined;
    const body = example.bodyText !== undefined ? { bodyText: example.bodyText } : {};
    const sent = { ...(query !== undefined ? { query } : {}), ...body };
    return [{ operation: operation.operation, requirement: requirement.id, ...sent }];
  });
}
