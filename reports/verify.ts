// Checking a certification record: that it matches the record's JSON Schema, that it was judged
// by the contract this kit holds (the SHA-256 of its files), that it lists the catalogue as this
// kit has it, and that everything it says about itself agrees: requirement verdicts with their
// counts and evidence, tallies, verdict, cases, gate, selection, time and target. A record edited
// in one place does not verify; one rewritten throughout is caught only by its signature
// (attestation.ts).
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { createAjv, LEVELS, recordKinds, type Contract } from '../contract/index.ts';
import { isDeepStrictEqual } from 'node:util';
import { failLevelOfName, waiverActive } from '../run-protocol/index.ts';
import {
  blockingRequirementIds,
  CASE_FAILED_MESSAGE,
  contractTitle,
  gateRecord,
  MAX_EVIDENCE,
  NOTHING_RAN_REASON,
  runVerdict,
  UNCOVERED_REASON,
  unselectedReason,
  unverified,
  verdictReason,
  type CertificationRecord,
  type GatePolicy,
  type RequirementRecord,
  type RequirementVerdict,
} from './record.ts';

/** A record file that cannot be read at all (missing, not JSON): a usage error rather than a failed check. */
export class RecordFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordFileError';
  }
}

let validator: ValidateFunction | undefined;

function recordValidator(): ValidateFunction {
  validator ??= createAjv().compile(
    JSON.parse(readFileSync(new URL('conformance.schema.json', import.meta.url), 'utf8')) as object,
  );
  return validator;
}

/** The parsed JSON of a record file's bytes; RecordFileError when they are not JSON. */
export function parseRecordBytes(bytes: Buffer, path: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new RecordFileError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * A JSON value that claims to be a record at all (an object with requirements), however broken: anything else is the
 * wrong file, not a failed record.
 */
export function ensureRecordShaped(value: unknown, path: string): void {
  const claims =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { requirements?: unknown }).requirements);
  if (!claims)
    throw new RecordFileError(
      `${path} is not a conformance record (conformance.json): it is not an object with requirements`,
    );
}

/**
 * A pointer into a record, a requirement in it named by its id and verdict: `/requirements/37 (NG-META-PAGES, verdict
 * passed)/broken`.
 */
function readablePointer(value: unknown, pointer: string): string {
  const at = /^\/requirements\/(\d+)(?=\/|$)/.exec(pointer);
  const requirement = at
    ? ((value as { requirements: unknown[] }).requirements[Number(at[1])] as
        { id?: unknown; verdict?: unknown } | undefined)
    : undefined;
  if (!at || typeof requirement?.id !== 'string') return pointer || '/';
  return `${at[0]} (${requirement.id}, verdict ${String(requirement.verdict)})${pointer.slice(at[0].length)}`;
}

/** Schema problems, each `pointer: message`; empty when the value is a record of this format. */
export function schemaProblems(value: unknown): string[] {
  const validate = recordValidator();
  if (validate(value)) return [];
  // An if/then's own "must match" says nothing the error beneath it does not.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if');
  return errors.map(
    (e) =>
      `${readablePointer(value, e.instancePath)}: ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
  );
}

type Problems = string[];

/** The contract and catalogue the record says it was judged by, against this kit's. */
function contractProblems(record: CertificationRecord, contract: Contract, contractSha256: string): Problems {
  const problems: Problems = [];
  if (record.contract.sha256 === '') problems.push('contract.sha256: the record holds no contract hash');
  else if (record.contract.sha256 !== contractSha256)
    problems.push(
      `contract.sha256: judged by another contract: its SHA-256 is ${record.contract.sha256}, this kit's is ${contractSha256}`,
    );
  const title = contractTitle(contract);
  if (record.spec.title !== title) problems.push(`spec.title: ${record.spec.title}, the contract's is ${title}`);
  if (record.spec.version !== contract.version)
    problems.push(`spec.version: ${record.spec.version}, the contract's is ${contract.version}`);
  if (record.requirements.length !== contract.requirements.length)
    return [
      ...problems,
      `requirements: ${record.requirements.length} listed, ${contract.requirements.length} in this kit's catalogue`,
    ];
  contract.requirements.forEach((requirement, index) => {
    const r = record.requirements[index];
    if (r.id !== requirement.id)
      problems.push(`requirements/${index}.id: ${r.id}, the catalogue's requirement there is ${requirement.id}`);
    else {
      if (r.level !== requirement.level)
        problems.push(`requirements/${r.id}.level: ${r.level}, the catalogue's is ${requirement.level}`);
      if (r.section !== requirement.section)
        problems.push(`requirements/${r.id}.section: ${r.section}, the catalogue's is ${requirement.section}`);
      if (r.text !== requirement.text) problems.push(`requirements/${r.id}.text: it is not the catalogue's text`);
    }
  });
  return problems;
}

/** The days a waiver's `active` may have been decided on: the run's first and last. */
function runDays(record: CertificationRecord): string[] {
  return [record.startedAt.slice(0, 10), record.finishedAt.slice(0, 10)];
}

/** One requirement's verdict against its level, counts, evidence, reason and waiver. */
function requirementProblems(r: RequirementRecord, record: CertificationRecord, contract: Contract): Problems {
  const problems: Problems = [];
  const at = `requirements/${r.id}`;
  const findings = r.evidence.length + (r.evidenceOmitted ?? 0);
  if (r.verdict === 'failed' && r.level !== 'MUST')
    problems.push(
      `${at}.verdict: failed, which only a MUST requirement can be (a ${r.level} finding is a ${r.level === 'SHOULD' ? 'warning' : 'recorded observation'})`,
    );
  if (r.verdict === 'warning' && r.level !== 'SHOULD')
    problems.push(`${at}.verdict: warning, which only a SHOULD requirement can be`);
  if (r.verdict === 'passed' && r.level !== 'INFO' && findings > 0)
    problems.push(`${at}.verdict: passed, but it holds ${findings} finding${findings === 1 ? '' : 's'}`);
  if (r.verdict === 'passed' && r.level === 'INFO' && r.judged === 0 && findings === 0)
    problems.push(`${at}.judged: 0 and no observation, but its verdict is passed (passed needs a judged exchange)`);
  if (r.verdict === 'not-run' && (r.judged > 0 || r.broken > 0 || findings > 0))
    problems.push(
      `${at}.verdict: not run, but it was judged on ${r.judged} exchange${r.judged === 1 ? '' : 's'}, ${r.broken} broken, with ${findings} finding${findings === 1 ? '' : 's'}`,
    );
  if (r.broken > 0 && findings === 0)
    problems.push(`${at}.broken: ${r.broken} exchange${r.broken === 1 ? '' : 's'} broke it, but it holds no finding`);
  if (r.broken > r.judged)
    problems.push(
      `${at}.judged, .broken: ${r.broken} exchange${r.broken === 1 ? '' : 's'} broke it, more than the ${r.judged} judged`,
    );
  // A finding is a judgement that broke: only a case that failed without one (its error, recorded as evidence) leaves
  // none broken.
  if (r.broken === 0 && r.evidence.some((e) => !e.message.startsWith(CASE_FAILED_MESSAGE)))
    problems.push(`${at}.broken: 0, but it holds findings, each of an exchange that broke it`);
  if (r.evidenceOmitted !== undefined && r.evidence.length !== MAX_EVIDENCE)
    problems.push(
      `${at}.evidenceOmitted: findings are counted only past the first ${MAX_EVIDENCE}, and it lists ${r.evidence.length}`,
    );
  if (r.notExercised && (r.verdict !== 'not-run' || !r.reason?.startsWith('not exercised: ')))
    problems.push(`${at}.notExercised: a requirement not exercised is not run, with a reason that says so`);
  if (r.byTargetChoice && r.verdict !== 'not-run')
    problems.push(`${at}.byTargetChoice: only a requirement not run is left to the target's choice`);
  // Only the catalogue makes not exercising a requirement the target's legal choice.
  if (
    r.notExercised &&
    r.byTargetChoice &&
    contract.requirements.find((q) => q.id === r.id)?.notExercised?.byTargetChoice !== true
  )
    problems.push(
      `${at}.byTargetChoice: ${r.id} was not exercised, which the catalogue does not leave to the target's choice`,
    );
  if (r.waiver && !runDays(record).some((day) => waiverActive(r.waiver!, day) === r.waiver!.active))
    problems.push(
      `${at}.waiver.active: ${r.waiver.active}, but it expires ${r.waiver.expires} and the run was on ${runDays(record)[0]}`,
    );
  return problems;
}

function tallyProblems(record: CertificationRecord): Problems {
  const problems: Problems = [];
  for (const level of LEVELS) {
    for (const verdict of ['passed', 'failed', 'warning', 'not-run'] as RequirementVerdict[]) {
      const counted = record.requirements.filter((r) => r.level === level && r.verdict === verdict).length;
      if (counted !== record.tally[level][verdict])
        problems.push(
          `tally.${level}.${verdict}: ${record.tally[level][verdict]}, but its requirements say ${counted}`,
        );
    }
  }
  return problems;
}

/** What the record's requirements and run make of its verdict, as the reporter works it out. */
function verdictBasis(record: CertificationRecord) {
  const failed = record.requirements.filter((r) => r.level === 'MUST' && r.verdict === 'failed').map((r) => r.id);
  const warned = record.requirements.filter((r) => r.level === 'SHOULD' && r.verdict === 'warning').map((r) => r.id);
  const failLevel = failLevelOfName(record.failLevel);
  const blocking = blockingRequirementIds(failed, warned, failLevel);
  const notRun = unverified(record.requirements, failLevel);
  const ranAny = record.cases.total > record.cases.notRun;
  const verdict = runVerdict({ blocking, notRun, runStatus: record.runStatus, ranAny });
  const complete = record.runStatus === 'passed' || record.runStatus === 'failed';
  const reason = ranAny
    ? verdictReason({ blocking, failed, warned, notRun, complete, runStatus: record.runStatus })
    : NOTHING_RAN_REASON;
  return { blocking, notRun, verdict, reason };
}

function verdictProblems(record: CertificationRecord): Problems {
  const basis = verdictBasis(record);
  const problems: Problems = [];
  if (basis.verdict !== record.verdict)
    problems.push(`verdict: ${record.verdict}, but its requirements make it ${basis.verdict}`);
  if (basis.reason !== record.verdictReason)
    problems.push(`verdictReason: it does not follow from its requirements, which say: ${basis.reason}`);
  if (basis.notRun.join(' ') !== record.notRun.join(' '))
    problems.push(
      `notRun: it lists ${record.notRun.join(', ') || 'none'}, but the requirements the run had to check at failLevel ${record.failLevel} and did not are ${basis.notRun.join(', ') || 'none'}`,
    );
  return problems;
}

/** The case tally against itself, the run's status and the requirements that explain failed cases. */
function caseProblems(record: CertificationRecord): Problems {
  const { total, passed, failed, notRun } = record.cases;
  const problems: Problems = [];
  if (passed + failed + notRun !== total)
    problems.push(
      `cases.total, .passed, .failed, .notRun: ${passed} passed, ${failed} failed and ${notRun} not run make ${passed + failed + notRun}, not ${total}`,
    );
  // The converse does not hold: Playwright ends some runs failed with no case failed (one that selected none, say).
  if (record.runStatus === 'passed' && failed > 0)
    problems.push(`runStatus: passed, but its cases say ${failed} failed`);
  // A case fails for a finding of its own at the fail level, or with an error recorded as evidence; only a run cut
  // short leaves failed cases unexplained.
  const cutShort = record.runStatus === 'interrupted' || record.runStatus === 'timedout';
  const explaining = record.requirements.flatMap((r) =>
    r.evidence.filter(
      (e) => r.verdict === 'failed' || r.verdict === 'warning' || e.message.startsWith(CASE_FAILED_MESSAGE),
    ),
  );
  const explained = new Set(explaining.map((e) => e.case)).size;
  const allKept = record.requirements.every((r) => r.evidenceOmitted === undefined);
  if (!cutShort && failed > explained && (explained === 0 || allKept))
    problems.push(
      `cases.failed: ${failed}, but ${explained === 0 ? 'no requirement holds a finding that fails a case' : `the findings that fail a case name ${explained}`}`,
    );
  return problems;
}

/** The gate as the record's verdict, waivers, baseline and allowPartial make it. */
function gateProblems(record: CertificationRecord, blocking: string[]): Problems {
  const { gate } = record;
  const policy: GatePolicy = {
    allowPartial: gate.allowPartial,
    waivers: [],
    today: record.finishedAt.slice(0, 10),
    ...(gate.baseline ? { baseline: { file: gate.baseline.file, failing: gate.baseline.knownFailures } } : {}),
  };
  const expected = gateRecord(record.verdict, blocking, record.requirements, policy);
  const members: [string, unknown, unknown][] = [
    ['gate.result', gate.result, expected.result],
    ['gate.waived', gate.waived, expected.waived],
    ['gate.expiredWaivers', gate.expiredWaivers, expected.expiredWaivers],
    ['gate.baseline.knownFailures', gate.baseline?.knownFailures, expected.baseline?.knownFailures],
    ['gate.baseline.newlyFailing', gate.baseline?.newlyFailing, expected.baseline?.newlyFailing],
    ['gate.reason', gate.reason, expected.reason],
  ];
  return members
    .filter(([, actual, wanted]) => !isDeepStrictEqual(actual, wanted))
    .map(
      ([member, actual, wanted]) =>
        `${member}: ${JSON.stringify(actual)}, but its verdict (${record.verdict}), waivers, baseline and allowPartial (${gate.allowPartial}) make it ${JSON.stringify(wanted)}`,
    );
}

/** The selection against itself and the reasons its requirements were not run. */
function selectionProblems(record: CertificationRecord): Problems {
  const { selection } = record;
  const narrowed =
    selection.grep !== undefined ||
    selection.grepInvert !== undefined ||
    selection.shard !== undefined ||
    (selection.filters?.length ?? 0) > 0 ||
    (selection.requirements?.length ?? 0) > 0 ||
    selection.readOnly;
  const problems: Problems = [];
  if (selection.whole === narrowed)
    problems.push(
      `selection.whole: ${selection.whole}, but it ${narrowed ? 'names a --grep, --requirement, shard, filter or --read-only' : 'names no --grep, --requirement, shard, filter or --read-only'}`,
    );
  const unselected = unselectedReason(selection);
  const claiming = record.requirements.filter(
    (r) =>
      r.verdict === 'not-run' &&
      r.reason !== undefined &&
      (r.reason.startsWith('its cases were not selected') || r.reason === UNCOVERED_REASON) &&
      r.reason !== unselected,
  );
  if (claiming.length > 0)
    problems.push(
      `requirements/${claiming[0].id}.reason: "${claiming[0].reason}"${claiming.length > 1 ? ` (and ${claiming.length - 1} more)` : ''}, but the selection makes it "${unselected}"`,
    );
  return problems;
}

/** The run's time and target against themselves. */
function runProblems(record: CertificationRecord): Problems {
  const problems: Problems = [];
  const started = Date.parse(record.startedAt);
  const finished = Date.parse(record.finishedAt);
  // durationMs is rounded; finishedAt is the start plus the unrounded duration.
  if (!Number.isFinite(started) || !Number.isFinite(finished) || Math.abs(finished - started - record.durationMs) > 1)
    problems.push(
      `startedAt, finishedAt, durationMs: ${record.finishedAt} is not ${record.durationMs} ms after ${record.startedAt}`,
    );
  const { target } = record;
  if (!target.embedded && (target.faults.length > 0 || target.choices.length > 0))
    problems.push(
      `target.embedded: false, but it names ${target.faults.length > 0 ? `faults ${target.faults.join(', ')}` : `choices ${target.choices.join(', ')}`}, which only the embedded reference server has`,
    );
  if (target.embedded && !isLoopback(target.baseUrl))
    problems.push(`target.baseUrl: ${target.baseUrl}, but the embedded reference server listens on this machine only`);
  return problems;
}

function isLoopback(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Where a schema-valid record disagrees with itself or with this kit's contract: each problem starts with the member it
 * is about.
 */
export function consistencyProblems(record: CertificationRecord, contract: Contract, contractSha256: string): string[] {
  const basis = verdictBasis(record);
  return [
    ...contractProblems(record, contract, contractSha256),
    ...record.requirements.flatMap((r) => requirementProblems(r, record, contract)),
    ...tallyProblems(record),
    ...verdictProblems(record),
    ...caseProblems(record),
    ...gateProblems(record, basis.blocking),
    ...selectionProblems(record),
    ...runProblems(record),
    ...inputsProblems(record, contract),
  ];
}

/**
 * A format 4 record lists the kinds of record its contract names, each once (format 3 had its own fixed members, which
 * the schema checks).
 */
function inputsProblems(record: CertificationRecord, contract: Contract): Problems {
  if (record.format === 3) return [];
  const listed = Object.keys(record.inputs.records);
  const kinds = recordKinds(contract.operations);
  const missing = kinds.filter((kind) => !listed.includes(kind));
  const unknown = listed.filter((kind) => !kinds.includes(kind));
  return [
    ...(missing.length > 0
      ? [`inputs.records: it does not say whether the run was given ${missing.join(', ')}, which the contract names`]
      : []),
    ...(unknown.length > 0 ? [`inputs.records: ${unknown.join(', ')}, which the contract names no record of`] : []),
  ];
}

/** Every problem with a record: schema first; the rest only once the shape is right. */
export function recordProblems(value: unknown, contract: Contract, contractSha256: string): string[] {
  const schema = schemaProblems(value);
  return schema.length > 0 ? schema : consistencyProblems(value as CertificationRecord, contract, contractSha256);
}

/**
 * What a buyer asks of a record's generated inputs (`verify --seed N`): the seed it chose, and at
 * least the kit's default count and budgets.
 */
export interface GenerationDemand {
  seed: number;
  inputs: number;
  operationBudgetMs: number;
  totalBudgetMs: number;
}

/**
 * Why a record's generated inputs were not drawn as `demand` asks: generation off, another seed,
 * fewer inputs or a shorter budget than the defaults, or an operation that stopped early. Empty
 * when they were: a vendor handed the seed cannot have drawn seeds until one passed.
 */
export function generationProblems(
  record: Pick<CertificationRecord, 'generated' | 'generationOff'>,
  demand: GenerationDemand,
): string[] {
  const generated = record.generated;
  if (generated === undefined) {
    const why = record.generationOff ?? 'the record has no generated section';
    return [`generated: the run generated no inputs (${why}); seed ${demand.seed} was asked for`];
  }
  const problems: string[] = [];
  if (generated.seed !== demand.seed) {
    problems.push(`generated.seed: the inputs were drawn from seed ${generated.seed}, not ${demand.seed}`);
  }
  const atLeast: [keyof Omit<GenerationDemand, 'seed'>, string][] = [
    ['inputs', 'random inputs per operation'],
    ['operationBudgetMs', 'ms per operation'],
    ['totalBudgetMs', 'ms in all'],
  ];
  for (const [member, unit] of atLeast) {
    if (generated[member] < demand[member]) {
      problems.push(`generated.${member}: ${generated[member]} ${unit}, fewer than the default ${demand[member]}`);
    }
  }
  for (const operation of generated.operations) {
    if (operation.stopped !== undefined) {
      problems.push(`generated.operations: ${operation.operation} stopped early (${operation.stopped})`);
    }
  }
  return problems;
}
