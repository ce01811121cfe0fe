// The suite's cases run in process against the reference server, as the suite's worker would run
// them, and the certification record built from their outcomes. It loads the process-wide
// contract when imported: a proof pointing it at a copy of schemas/ imports this afterwards.
import { loadContract, parseJson } from '../contract/index.ts';
import { inputsOf } from '../run-protocol/run-inputs.ts';
import { buildRecord } from '../reports/record.ts';
import { startReferenceServer } from '../server/index.ts';
import { CaseSkipped, directClient, referenceTarget } from '../server/test-support.ts';
import { ConformanceCase } from '../suites/case.ts';
import type { SuiteCase } from '../suites/cases/index.ts';
import type { TargetClient } from '../suites/client.ts';
import type { Fixtures, Target } from '../targets/target.ts';

export type CaseOutcome = Parameters<typeof buildRecord>[0]['cases'][number];
export type ConformanceRecord = ReturnType<typeof buildRecord>;

/** A request a case sent: the case's title, its path, the document sent and the status it was answered (if any). */
export interface SentRequest {
  case: string;
  path: string;
  document: unknown;
  status?: number;
}

/**
 * How a run of cases differs from the embedded target's: the records the target names, the
 * server's choices, and where the requests sent are noted.
 */
export interface RunOptions {
  fixtures?: Fixtures;
  choices?: string[];
  sent?: SentRequest[];
  /** Where each case's outcome is noted too. */
  outcomes?: CaseOutcome[];
}

/** The suite's transport to `baseUrl`, noting in `sent` each request of the case `title`. */
function notingClient(baseUrl: string, title: string, sent: SentRequest[]): TargetClient {
  const client = directClient(baseUrl);
  return {
    async transmit(request) {
      const transmission = await client.transmit(request);
      const parsed = parseJson(request.bodyText ?? '');
      const document = parsed.ok ? parsed.value : undefined;
      const status = transmission.ok ? { status: transmission.response.status } : {};
      sent.push({ case: title, path: request.path, document, ...status });
      return transmission;
    },
    close: () => client.close(),
  };
}

/**
 * The reference server at `baseUrl` as the suite's target, naming `fixtures` (when given) instead of its own records.
 */
export function targetOf(baseUrl: string, fixtures?: Fixtures): Target {
  const target = referenceTarget(baseUrl);
  return fixtures ? { ...target, fixtures } : target;
}

/** Runs one case in process, as the suite's worker would, and returns its outcome for the record. */
export async function outcomeOf(suiteCase: SuiteCase, baseUrl: string, options: RunOptions = {}): Promise<CaseOutcome> {
  const requirements = [...new Set([...suiteCase.requirements, ...(suiteCase.covers ?? [])])];
  const conformance = new ConformanceCase({
    contract: loadContract(),
    client: options.sent ? notingClient(baseUrl, suiteCase.title, options.sent) : directClient(baseUrl),
    target: targetOf(baseUrl, options.fixtures),
    failLevel: 'must',
    scrub: (text) => text,
    requirements: suiteCase.requirements,
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  try {
    await suiteCase.run(conformance);
  } catch (error) {
    if (!(error instanceof CaseSkipped)) throw error;
    return { title: suiteCase.title, requirements, status: 'skipped', skipReason: error.message, findings: [] };
  }
  const { findings } = conformance.findingsForPeople();
  const { notRun, exercised, unexercised } = conformance.outcomeData();
  const status = conformance.blocking().length > 0 ? 'failed' : 'passed';
  return { title: suiteCase.title, requirements, status, findings, notRun, exercised, unexercised };
}

/** The certification record of `cases` run in process against the service at `baseUrl`, as the reference server. */
export async function recordAt(
  baseUrl: string,
  cases: readonly SuiteCase[],
  options: RunOptions = {},
): Promise<ConformanceRecord> {
  const contract = loadContract();
  const outcomes: CaseOutcome[] = [];
  for (const suiteCase of cases) outcomes.push(await outcomeOf(suiteCase, baseUrl, options));
  options.outcomes?.push(...outcomes);
  const inputs = inputsOf({ fixtures: targetOf(baseUrl, options.fixtures).fixtures }, contract.legacyHeader);
  return buildRecord({
    contract,
    kit: { name: 'las-conformance', version: 'proof' },
    target: baseUrl,
    context: { inputs },
    failLevel: 'must',
    startedAt: new Date(),
    durationMs: 0,
    runStatus: 'passed',
    cases: outcomes,
  });
}

/** The certification record of `cases` against the reference server with `faults` on. */
export async function recordAgainst(
  faults: string[],
  cases: readonly SuiteCase[],
  options: RunOptions = {},
): Promise<ConformanceRecord> {
  const server = await startReferenceServer({ faults, choices: options.choices });
  try {
    return await recordAt(server.baseUrl, cases, options);
  } finally {
    await server.close();
  }
}
