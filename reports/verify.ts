// Checking a certification record: that it matches the record's JSON Schema, that it was judged
// by the contract this kit holds (the SHA-256 of its files), that it lists the catalogue as this
// kit has it, and that its verdict, tally and gate follow from its own requirement verdicts. A
// record edited by hand to claim more than its run found does not verify.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { createAjv, LEVELS, type Contract } from '../contract/index.ts';
import { blockingLevels, failLevelOfName } from '../run-protocol/index.ts';
import { blockingRequirementIds, runVerdict, type CertificationRecord, type RequirementVerdict } from './record.ts';

/** A record file that cannot be read at all (missing, not JSON): a usage error rather than a failed check. */
export class RecordFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordFileError';
  }
}

let validator: ValidateFunction | undefined;

function recordValidator(): ValidateFunction {
  validator ??= createAjv().compile(JSON.parse(readFileSync(new URL('conformance.schema.json', import.meta.url), 'utf8')) as object);
  return validator;
}

/** The parsed JSON of a record file; RecordFileError when it cannot be read or parsed. */
export function readRecordFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RecordFileError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RecordFileError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/** Schema problems, each `pointer: message`; empty when the value is a record of this format. */
export function schemaProblems(value: unknown): string[] {
  const validate = recordValidator();
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`);
}

/** Where a schema-valid record disagrees with itself or with this kit's contract. */
export function consistencyProblems(record: CertificationRecord, contract: Contract, contractSha256: string): string[] {
  const problems: string[] = [];
  if (record.contract.sha256 === '') problems.push('the record holds no contract hash');
  else if (record.contract.sha256 !== contractSha256) problems.push(`judged by another contract: its SHA-256 is ${record.contract.sha256}, this kit's is ${contractSha256}`);
  const catalogue = contract.requirements.map((r) => `${r.id} ${r.level}`);
  const listed = record.requirements.map((r) => `${r.id} ${r.level}`);
  if (catalogue.join('\n') !== listed.join('\n')) problems.push(`its requirements are not this kit's catalogue (${listed.length} listed, ${catalogue.length} in the catalogue)`);
  const tally: Record<string, Record<string, number>> = {};
  for (const r of record.requirements) {
    tally[r.level] ??= {};
    tally[r.level][r.verdict] = (tally[r.level][r.verdict] ?? 0) + 1;
  }
  for (const level of LEVELS) {
    for (const verdict of ['passed', 'failed', 'warning', 'not-run'] as RequirementVerdict[]) {
      if ((tally[level]?.[verdict] ?? 0) !== record.tally[level][verdict]) problems.push(`its tally of ${level} ${verdict} is ${record.tally[level][verdict]}, its requirements say ${tally[level]?.[verdict] ?? 0}`);
    }
  }
  const failed = record.requirements.filter((r) => r.level === 'MUST' && r.verdict === 'failed').map((r) => r.id);
  const warned = record.requirements.filter((r) => r.level === 'SHOULD' && r.verdict === 'warning').map((r) => r.id);
  const failLevel = failLevelOfName(record.failLevel);
  const blocking = blockingRequirementIds(failed, warned, failLevel);
  const ranAny = record.cases.total > record.cases.notRun;
  const verdict = runVerdict({ blocking, notRun: record.notRun, runStatus: record.runStatus, ranAny });
  if (verdict !== record.verdict) problems.push(`its verdict is ${record.verdict}, but its requirements make it ${verdict}`);
  const notRunListed = new Set(record.notRun);
  for (const id of record.notRun) if (record.requirements.find((r) => r.id === id)?.verdict !== 'not-run') problems.push(`it lists ${id} as not run, but its verdict says otherwise`);
  const levels = blockingLevels(failLevel);
  for (const r of record.requirements) {
    if (r.verdict === 'not-run' && levels.includes(r.level) && !notRunListed.has(r.id) && r.reason !== 'checked by the proxy only' && !r.byTargetChoice) problems.push(`${r.id} was not run but is missing from notRun`);
    // Only the catalogue makes not exercising a requirement the target's legal choice.
    if (r.notExercised && r.byTargetChoice && contract.requirements.find((q) => q.id === r.id)?.notExercised?.byTargetChoice !== true) problems.push(`${r.id} was not exercised, which the catalogue does not leave to the target's choice`);
  }
  const accepted = new Set([...record.gate.waived, ...(record.gate.baseline?.knownFailures ?? [])]);
  const unaccepted = blocking.filter((id) => !accepted.has(id));
  for (const id of record.gate.waived) if (record.requirements.find((r) => r.id === id)?.waiver?.active !== true) problems.push(`its gate waives ${id}, which holds no active waiver`);
  if (record.gate.result === 'pass' && (unaccepted.length > 0 || record.verdict === 'failed' && blocking.length === 0 || (record.verdict === 'incomplete' && !record.gate.allowPartial))) {
    problems.push(`its gate passes, but ${unaccepted.length > 0 ? `${unaccepted.join(', ')} fail${unaccepted.length === 1 ? 's' : ''} unwaived` : `its verdict is ${record.verdict}`}`);
  }
  return problems;
}

/** Every problem with a record: schema first; the rest only once the shape is right. */
export function recordProblems(value: unknown, contract: Contract, contractSha256: string): string[] {
  const schema = schemaProblems(value);
  return schema.length > 0 ? schema : consistencyProblems(value as CertificationRecord, contract, contractSha256);
}
