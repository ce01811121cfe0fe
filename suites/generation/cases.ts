// The generated cases: one per operation, run unless the run turns generation off
// (suites/generated.spec.ts, `run --generate 0`). Each sends the boundary phase's inputs, then N
// random ones drawn from the contract, judges every answer and records a shrunk failure under its
// requirement; its summary (inputs sent, why it stopped, each requirement it judged) travels to the
// record as an attachment.
import type { TestInfo } from '@playwright/test';
import {
  blockingLevels,
  GENERATION_ATTACHMENT,
  GENERATION_OFF,
  type GenerationSettings,
} from '../../run-protocol/index.ts';
import { scrubValues } from '../../run-protocol/secrets.ts';
import type { Operation } from '../../contract/index.ts';
import { READ_ONLY_REASON, type ConformanceCase } from '../case.ts';
import type { SuiteContext } from '../fixtures.ts';
import { contract, operations } from '../operations.ts';
import type { CaseDefinition } from '../cases/suite-case.ts';
import { generateForOperation } from './generate.ts';

/** Every answer is judged whole; these are what generated inputs reach most, beside the operation's own success. */
const GENERATED_COVERS = ['ERR-NO-5XX', 'MEDIA-TYPE-RESPONSE', 'ERR-ENVELOPE'];

export interface GeneratedCase extends CaseDefinition {
  operation: Operation;
}

export const generatedCases: GeneratedCase[] = operations.map((operation) => ({
  operation,
  title: `${operation.operationId}: inputs generated from the contract's schemas, valid and near-valid, each answered as the contract says`,
  requirements: [contract.successRequirement(operation.operationId).id],
  covers: GENERATED_COVERS,
}));

/** The operations a run generates inputs for: under --read-only, those that create nothing. */
function generatedOperations(readOnly: boolean): Operation[] {
  return operations.filter((operation) => !readOnly || operation.method === 'GET');
}

/** One operation's share of the time: its own budget, or an even share of the whole, whichever is less. */
export function operationBudgetMs(settings: GenerationSettings, operationCount: number): number {
  return Math.max(
    1,
    Math.min(settings.operationBudgetMs, Math.floor(settings.totalBudgetMs / Math.max(1, operationCount))),
  );
}

/** Runs one generated case: generation, then its summary left on the test for the record. */
export async function runGeneratedCase(
  generated: GeneratedCase,
  conformance: ConformanceCase,
  suite: SuiteContext,
  testInfo: TestInfo,
): Promise<void> {
  const settings = suite.generate;
  if (!settings) return conformance.skip(`generation was ${GENERATION_OFF}`);
  if (suite.readOnly && generated.operation.method !== 'GET') return conformance.skip(READ_ONLY_REASON);
  const budgetMs = operationBudgetMs(settings, generatedOperations(suite.readOnly).length);
  // Room for the budget, a request in flight when it runs out, and the last minimal input's record.
  testInfo.setTimeout(budgetMs + 3 * suite.target.limits.requestTimeoutMs + 30_000);
  const outcome = await generateForOperation(conformance, {
    operation: generated.operation,
    fixtures: suite.target.fixtures,
    inputs: settings.inputs,
    foundBefore: (settings.foundBefore ?? [])
      .filter((found) => found.operation === generated.operation.operationId)
      .map(({ query, bodyText }) => ({
        ...(query !== undefined ? { query } : {}),
        ...(bodyText !== undefined ? { bodyText } : {}),
      })),
    boundary: true,
    seed: settings.seed,
    budgetMs,
    blocking: blockingLevels(suite.failLevel),
  });
  testInfo.attachments.push({
    name: GENERATION_ATTACHMENT,
    body: Buffer.from(JSON.stringify(scrubValues(outcome, suite.scrub))),
    contentType: 'application/json',
  });
}
