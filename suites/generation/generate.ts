// Generative testing of one operation: first the inputs an earlier record failed on (--baseline),
// then the boundary phase (boundary.ts: the contract's boundaries, then a paged list's pages around
// the total its first answer reports), then fast-check draws inputs from the contract's schemas
// (inputs.ts). Each is sent with the session credential and judged by the one judging path
// (ConformanceCase.exchange, judgeExchange) plus what the input may be answered (expectations.ts);
// what it judged and held counts as judged on the case, so the record's sections agree. A failure
// at the fail level is shrunk to a minimal input (a boundary input through its smaller ones), sent
// twice more (run-protocol/reproduction.ts) and recorded under its requirement with its exchange
// and curl line. Then generation runs again from the same seed, that requirement set aside, until
// nothing new fails, the rounds run out or the time budget does: each failing requirement gets its
// own minimal input, and one no round was left to shrink is recorded as found. The same seed draws
// the same inputs, so `--seed` replays a run.
import fc from 'fast-check';
import { smallestQuery, type Finding, type Level, type Operation } from '../../contract/index.ts';
import type { Counterexample, GeneratedOperation, GeneratedRequirement } from '../../run-protocol/index.ts';
import { curlWithReproduction, FAILURE_SENDS, reproductionText } from '../../run-protocol/reproduction.ts';
import type { Fixtures } from '../../targets/target.ts';
import { NO_ANSWER, type Answer, type ConformanceCase } from '../case.ts';
import { expectationOf, type Expectation } from './expectations.ts';
import { contractBoundaries, isPaged, pageBoundaries, totalOf, type BoundaryInput } from './boundary.ts';
import { operationInputs, queryText, type GeneratedInput } from './inputs.ts';

export interface OperationGeneration {
  operation: Operation;
  fixtures: Fixtures;
  /** Random inputs after the boundary phase (0: none). */
  inputs: number;
  /** Inputs that failed in an earlier record (--baseline): sent before anything else, whatever the seed. */
  foundBefore?: GeneratedRequest[];
  /** Whether the boundary phase runs first. */
  boundary: boolean;
  seed: number;
  budgetMs: number;
  /** The levels whose findings fail an input: the run's fail level and stronger. */
  blocking: Level[];
}

/** Rounds of generation per operation: each shrinks one more failing requirement. */
export const MAX_ROUNDS = 5;

interface Trial {
  request: GeneratedRequest;
  answer: Answer;
  /** Findings at a blocking level: the requirements this input fails. */
  failures: Finding[];
}

interface Tally {
  sent: number;
  valid: number;
  invalid: number;
  judged: Map<string, number>;
  /** The first input that failed each requirement, recorded unshrunk when no round was left to shrink it. */
  firstFailures: Map<string, Trial>;
}

/** A generated request as it is sent: its query string, its body. */
export interface GeneratedRequest {
  query?: string;
  bodyText?: string;
}

/** The request a generated input is sent as. */
export function requestOf(operation: Operation, input: GeneratedInput): GeneratedRequest {
  return {
    ...(input.query !== undefined ? { query: queryText(operation, input.query) } : {}),
    ...(input.document !== undefined ? { bodyText: JSON.stringify(input.document) } : {}),
  };
}

/**
 * The finding an answer outside what the input may be answered breaks; none when the exchange
 * already broke that requirement, for a 5xx, which the contract's checks judge (ERR-NO-5XX), or
 * for any 4xx refusing an open input.
 */
function expectationFinding(
  conformance: ConformanceCase,
  expectation: Expectation,
  answer: Answer,
  findings: Finding[],
): Finding[] {
  if (
    answer.status >= 500 ||
    expectation.statuses.includes(answer.status) ||
    findings.some((f) => f.requirement === expectation.requirement)
  )
    return [];
  if (expectation.open && answer.status >= 400) return [];
  const own = expectation.statuses.filter((status) => !conformance.contract.genericStatuses.has(status)).join(' or ');
  const message = `${expectation.described} was answered ${answer.status}; expected ${own} (or a status HTTP defines for a condition the specification leaves open)`;
  return [
    conformance.contract.finding(expectation.requirement, 'response', {
      message,
      expected: own,
      actual: String(answer.status),
    }),
  ];
}

/**
 * What an exchange judged, as generation reads it: every judge of the exchange but those that read
 * an open place of the input (`relaxed`), and the input's own expectation (unless the answer was a
 * generic status the input was not expected to meet, or a refusal of an open input, which judge
 * nothing of it).
 */
export function judgedBy(
  conformance: ConformanceCase,
  expectation: Expectation,
  answer: Answer,
  judged: string[],
  found: Finding[],
): { findings: Finding[]; judged: string[] } {
  const relaxed = new Set(expectation.relaxed);
  const findings = [...found, ...expectationFinding(conformance, expectation, answer, found)].filter(
    (f) => !relaxed.has(f.requirement),
  );
  const { genericStatuses } = conformance.contract;
  const genericMet = expectation.statuses.includes(answer.status) && genericStatuses.has(answer.status);
  const openRefused = expectation.open && answer.status >= 400;
  const own = genericMet || openRefused ? [] : [expectation.requirement];
  return { findings, judged: [...new Set([...judged, ...own])].filter((id) => !relaxed.has(id)) };
}

async function trial(
  conformance: ConformanceCase,
  job: OperationGeneration,
  request: GeneratedRequest,
  tally: Tally,
): Promise<Trial> {
  const { query, bodyText } = request;
  const expectation = expectationOf(conformance.contract, job.operation, query, bodyText);
  const exchanged = await conformance.exchange({
    operation: job.operation,
    credentials: conformance.credentials.session,
    ...(query !== undefined ? { query } : {}),
    ...(bodyText !== undefined ? { bodyText } : {}),
  });
  const { answer } = exchanged;
  tally.sent++;
  tally[expectation.valid ? 'valid' : 'invalid']++;
  if (answer.status === NO_ANSWER) return { request, answer, failures: exchanged.findings };
  const { findings, judged } = judgedBy(conformance, expectation, answer, exchanged.judged, exchanged.findings);
  const failures = findings.filter((f) => job.blocking.includes(f.level));
  // A requirement counts as judged where it held; where it broke, the recorded failure counts it.
  const held = judged.filter((id) => !findings.some((f) => f.requirement === id));
  conformance.countJudged(held, answer);
  for (const id of new Set([...held, ...failures.map((f) => f.requirement)]))
    tally.judged.set(id, (tally.judged.get(id) ?? 0) + 1);
  for (const failure of failures)
    if (!tally.firstFailures.has(failure.requirement))
      tally.firstFailures.set(failure.requirement, { request, answer, failures });
  return { request, answer, failures };
}

/**
 * Sends a failing input again (FAILURE_SENDS in all) and records the findings of `requirement` on
 * it, each message and the curl line saying whether the sends reproduced it, and its counterexample.
 */
async function recordFailure(g: Generation, requirement: string, failing: Trial, shrinks: number): Promise<void> {
  let failedSends = 1;
  for (let send = 1; send < FAILURE_SENDS; send++) {
    const again = await trial(g.conformance, g.job, failing.request, g.tally);
    if (again.failures.some((f) => f.requirement === requirement)) failedSends++;
  }
  const sends = { sends: FAILURE_SENDS, failedSends };
  const said = reproductionText(sends);
  const evidence = failing.failures
    .filter((f) => f.requirement === requirement)
    .map((f) => ({ ...f, message: `${f.message} (${said})` }));
  const captured = { ...failing.answer.captured, curl: curlWithReproduction(failing.answer.captured.curl, sends) };
  g.conformance.record(evidence, { ...failing.answer, captured });
  const { method, path, status, curl } = captured;
  const { bodyText } = failing.request;
  g.found.set(requirement, {
    message: evidence[0].message,
    method,
    path,
    ...(status !== undefined ? { status } : {}),
    curl,
    shrinks,
    ...sends,
    ...(bodyText !== undefined ? { bodyText } : {}),
  });
}

/** One operation's generation as it goes: what it sent and found, and whether it stopped. */
interface Generation {
  conformance: ConformanceCase;
  job: OperationGeneration;
  deadline: number;
  tally: Tally;
  found: Map<string, Counterexample>;
  stopped?: string;
  noAnswerRecorded: boolean;
}

const budgetRanOut = (job: OperationGeneration) => `its time budget of ${job.budgetMs} ms ran out`;

/**
 * Sends one request; no answer is recorded once, not shrunk (each try would wait out the request timeout), and three in
 * a row stop the operation.
 */
async function attempt(g: Generation, request: GeneratedRequest): Promise<Trial | undefined> {
  const tried = await trial(g.conformance, g.job, request, g.tally);
  if (tried.answer.status !== NO_ANSWER) return tried;
  if (!g.noAnswerRecorded) g.conformance.record(tried.failures, tried.answer);
  g.noAnswerRecorded = true;
  if (tried.answer.silenced) g.stopped = 'three requests in a row got no answer within the request timeout';
  return undefined;
}

/**
 * A boundary input that failed `requirement`, shrunk: the first of its smaller inputs (smallest
 * first) that still fails it, shrunk again the same way, until none of the smaller ones fails.
 */
async function shrinkBoundary(g: Generation, input: BoundaryInput, requirement: string, failed: Trial): Promise<void> {
  let current = { input, trial: failed };
  let shrinks = 0;
  for (let smaller = true; smaller;) {
    smaller = false;
    for (const candidate of current.input.smaller?.() ?? []) {
      if (g.stopped !== undefined || Date.now() > g.deadline) break;
      const tried = await attempt(g, candidate);
      shrinks++;
      if (!tried?.failures.some((f) => f.requirement === requirement)) continue;
      current = { input: candidate, trial: tried };
      smaller = true;
      break;
    }
  }
  await recordFailure(g, requirement, current.trial, shrinks);
}

/** Sends boundary inputs in order, shrinking and recording each requirement the first time one fails it. */
async function sendBoundaries(g: Generation, inputs: BoundaryInput[]): Promise<void> {
  for (const input of inputs) {
    if (g.stopped !== undefined) return;
    if (Date.now() > g.deadline) {
      g.stopped = budgetRanOut(g.job);
      return;
    }
    const tried = await attempt(g, input);
    for (const requirement of new Set(tried?.failures.map((f) => f.requirement) ?? []))
      if (!g.found.has(requirement)) await shrinkBoundary(g, input, requirement, tried!);
  }
}

/**
 * The inputs an earlier record failed on, sent first: each failure recorded as found, not shrunk (it was shrunk when
 * found).
 */
async function foundBeforePhase(g: Generation, inputs: GeneratedRequest[]): Promise<void> {
  for (const input of inputs) {
    if (g.stopped !== undefined) return;
    const tried = await attempt(g, input);
    for (const requirement of new Set(tried?.failures.map((f) => f.requirement) ?? []))
      if (!g.found.has(requirement)) await recordFailure(g, requirement, tried!, 0);
  }
}

/** The boundary phase: the contract's boundaries, then, for a paged list, the pages its first answer's total gives. */
async function boundaryPhase(g: Generation): Promise<void> {
  const { operation, fixtures } = g.job;
  await sendBoundaries(g, contractBoundaries(operation, fixtures));
  if (g.stopped !== undefined || !isPaged(operation)) return;
  const first = await attempt(g, { query: smallestQuery(operation.parameters, { records: fixtures }) });
  const total = first && first.failures.length === 0 ? totalOf(first.answer.json) : undefined;
  if (total !== undefined) await sendBoundaries(g, pageBoundaries(operation, total, fixtures));
}

/** The random phase: rounds of fast-check from the seed, each shrinking one more failing requirement. */
async function randomPhase(g: Generation): Promise<void> {
  const { job, found } = g;
  const inputs = operationInputs(job.operation, job.fixtures);
  for (let round = 0; round < MAX_ROUNDS && g.stopped === undefined; round++) {
    const remaining = g.deadline - Date.now();
    if (remaining <= 0) {
      g.stopped = budgetRanOut(job);
      break;
    }
    let target: string | undefined;
    let last: Trial | undefined;
    const property = fc.asyncProperty(inputs, async (input) => {
      if (g.stopped !== undefined) return true;
      const tried = await attempt(g, requestOf(job.operation, input));
      if (tried === undefined) return true;
      const failing = tried.failures.filter(
        (f) => !found.has(f.requirement) && (target === undefined || f.requirement === target),
      );
      if (failing.length === 0) return true;
      target ??= failing[0].requirement;
      last = tried;
      return false;
    });
    const details = await fc.check(property, {
      seed: job.seed,
      numRuns: job.inputs,
      plugins: [fc.interruptAfterTimeLimit(remaining)],
    });
    if (details.interrupted && g.stopped === undefined) g.stopped = budgetRanOut(job);
    // A predicate that threw (the case skipped, say) is no failure of the target: the error goes on.
    if (details.failed && target === undefined && details.errorInstance) {
      // Thrown as it came: Playwright knows its own (a skip) by what it is.
      const thrown: unknown = details.errorInstance;
      throw thrown;
    }
    if (!details.failed || target === undefined || last === undefined) break;
    await recordFailure(g, target, last, details.numShrinks);
  }
}

/**
 * Runs generation for one operation, the boundary phase first; failures are recorded on `conformance` under their
 * requirements.
 */
export async function generateForOperation(
  conformance: ConformanceCase,
  job: OperationGeneration,
): Promise<GeneratedOperation> {
  const started = Date.now();
  const g: Generation = {
    conformance,
    job,
    deadline: started + job.budgetMs,
    tally: { sent: 0, valid: 0, invalid: 0, judged: new Map(), firstFailures: new Map() },
    found: new Map(),
    noAnswerRecorded: false,
  };
  await foundBeforePhase(g, job.foundBefore ?? []);
  if (job.boundary && g.stopped === undefined) await boundaryPhase(g);
  if (job.inputs > 0 && g.stopped === undefined) await randomPhase(g);
  // A requirement broken by an input no round was left to shrink is recorded as that input broke it.
  for (const [id, first] of g.tally.firstFailures) if (!g.found.has(id)) await recordFailure(g, id, first, 0);

  const { tally, found } = g;
  const requirements: GeneratedRequirement[] = [...new Set([...tally.judged.keys(), ...found.keys()])]
    .sort()
    .map((id) => {
      const counterexample = found.get(id);
      return {
        id,
        inputs: tally.judged.get(id) ?? 0,
        verdict: counterexample ? 'failed' : 'passed',
        ...(counterexample ? { counterexample } : {}),
      };
    });
  return {
    operation: job.operation.operationId,
    inputs: { sent: tally.sent, valid: tally.valid, invalid: tally.invalid },
    durationMs: Date.now() - started,
    ...(g.stopped !== undefined ? { stopped: g.stopped } : {}),
    requirements,
  };
}
