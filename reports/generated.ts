// The generated inputs (run --generate) as the reports show them: the record's `generated`
// section gathered from each generated case's attachment, one entry per operation and
// requirement, and its summary line. The JUnit and HTML renderings render it in their own files.
// Failures are evidence of their requirements in the record as well; these only add where they
// came from, the minimal input and its curl line.
import type { TestResult } from '@playwright/test/reporter';
import { MEDIA_TYPE, type Contract } from '../contract/index.ts';
import {
  GENERATION_ATTACHMENT,
  type Counterexample,
  type FoundInput,
  type GeneratedOperation,
  type GeneratedRequirement,
  type GenerationSettings,
} from '../run-protocol/index.ts';
import type { RegressionCase } from '../targets/regression-cases.ts';
import type { CertificationRecord, GeneratedRecord } from './record.ts';

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
    return [{ operation: operation.operation, requirement: requirement.id, ...requestSent(example) }];
  });
}

/** The query and body a counterexample sent. */
function requestSent(example: Counterexample): { query?: string; bodyText?: string } {
  const query = example.path.includes('?') ? example.path.slice(example.path.indexOf('?') + 1) : undefined;
  return {
    ...(query !== undefined ? { query } : {}),
    ...(example.bodyText !== undefined ? { bodyText: example.bodyText } : {}),
  };
}

/**
 * The generated failures of a record that reproduced, as regression cases (`run --save-cases`): each names its
 * operation, so a later run judges it as generation does, and sends the session credential. A failure seen once is left
 * out: a case of it would pass as often as not.
 */
export function regressionCasesOfGenerated(
  record: Pick<CertificationRecord, 'generated' | 'target' | 'startedAt'>,
  contract: Contract,
): RegressionCase[] {
  const { generated } = record;
  if (generated === undefined) return [];
  return generatedRows(generated).flatMap(({ operation: generatedOperation, requirement }) => {
    const example = requirement.counterexample;
    if (example === undefined || (example.failedSends ?? 0) < 2) return [];
    const operation = contract.operation(generatedOperation.operation);
    const { query, bodyText } = requestSent(example);
    const where = record.target.embedded ? 'the embedded reference server' : record.target.baseUrl;
    const seen = `found by generated inputs from seed ${generated.seed} against ${where} on ${record.startedAt.slice(0, 10)}`;
    return [
      {
        name: `${operation.operationId}: generated input breaking ${requirement.id}`,
        requirement: requirement.id,
        // The message says whether the sends reproduced it.
        why: `${seen}: ${example.message}`,
        operation: operation.operationId,
        request: {
          method: operation.method.toUpperCase(),
          path: `${operation.pathTemplate}${query !== undefined ? `?${query}` : ''}`,
          credentials: 'session',
          ...(bodyText !== undefined ? { headers: { 'Content-Type': MEDIA_TYPE }, body: bodyText } : {}),
        },
      },
    ];
  });
}
