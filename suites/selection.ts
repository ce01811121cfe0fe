// `--requirement ID`: the cases that can judge a requirement, side findings included. A case can
// judge a requirement it names (its own or one it covers), and, when the contract judges the
// requirement on exchanges (a schema route, or a check some case covers it for), any case that
// sends to an operation the requirement is judged on. Which operation a case sends to is read
// from the case itself: it is run once against a client that sends nothing and only notes the
// requests.
import { loadContract, type Contract } from '../contract/index.ts';
import { resolveTarget } from '../targets/target.ts';
import { ConformanceCase } from './case.ts';
import type { OutgoingRequest, TargetClient } from './client.ts';
import { caseTitle, SUITE_CASES, type SuiteCase } from './cases/index.ts';
import { PLACEHOLDER_FIXTURES } from './documents.ts';

/** A requirement id the catalogue does not have, or one no case can judge. */
export class SelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectionError';
  }
}

/** Every input a case may need, so none skips before it sends: no request leaves the process. */
const DRY_TARGET = resolveTarget(
  {
    baseUrl: 'http://127.0.0.1:9/v3',
    sessionToken: 'dry-session',
    pat: 'dry-pat',
    forbiddenToken: 'dry-forbidden',
    ...PLACEHOLDER_FIXTURES,
  },
  loadContract().legacyHeader,
);

function operationOf(contract: Contract, request: OutgoingRequest): string | undefined {
  const path = request.path.split('?')[0];
  return contract.operations.find((o) => o.method === request.method && o.pathTemplate === path)?.operationId;
}

/** The operations a case sends to, noted from a run whose requests go nowhere. */
export async function operationsSentBy(suiteCase: SuiteCase, contract = loadContract()): Promise<string[]> {
  const sent = new Set<string>();
  const client: TargetClient = {
    async transmit(request) {
      const operationId = operationOf(contract, request);
      if (operationId) sent.add(operationId);
      return { ok: false, failure: 'not sent: the selection only notes the request' };
    },
    close: async () => undefined,
  };
  const conformance = new ConformanceCase({
    contract,
    client,
    target: DRY_TARGET,
    failLevel: 'must',
    scrub: (text) => text,
    requirements: suiteCase.requirements,
    outcomeInWorker: false,
    skip: (reason) => {
      throw new Error(reason);
    },
  });
  try {
    await suiteCase.run(conformance);
  } catch {
    // A case may stop at the first unanswered request; the operation is noted by then.
  }
  return [...sent];
}

/**
 * The operations whose exchanges the contract may judge a requirement on: those its schema routes
 * name (every operation when a route names none), and those of the cases that cover it (the
 * contract's checks judge it on their exchanges). Empty when only cases' own expectations judge it.
 */
export function operationsJudging(
  requirementId: string,
  contract: Contract,
  cases: { suiteCase: SuiteCase; operations: string[] }[],
): Set<string> {
  const all = contract.operations.map((o) => o.operationId);
  const routes = contract.requirement(requirementId).schemaFindings ?? [];
  const routed = routes.flatMap((route) =>
    route.operation === undefined ? all : all.filter((id) => id === route.operation),
  );
  const covered = cases.filter((c) => c.suiteCase.covers?.includes(requirementId)).flatMap((c) => c.operations);
  return new Set([...routed, ...covered]);
}

/** The titles of the cases that can judge any of these requirements, in suite order. */
export async function casesJudging(requirementIds: string[], suiteCases: SuiteCase[] = SUITE_CASES): Promise<string[]> {
  const contract = loadContract();
  const known = new Set(contract.requirements.map((r) => r.id));
  const unknown = requirementIds.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new SelectionError(
      `--requirement ${unknown.join(', ')}: no such requirement in the catalogue (see las-conformance contract)`,
    );
  const cases = await Promise.all(
    suiteCases.map(async (suiteCase) => ({ suiteCase, operations: await operationsSentBy(suiteCase, contract) })),
  );
  const selected = cases.filter(({ suiteCase, operations }) =>
    requirementIds.some(
      (id) =>
        suiteCase.requirements.includes(id) ||
        suiteCase.covers?.includes(id) ||
        operations.some((operation) => operationsJudging(id, contract, cases).has(operation)),
    ),
  );
  if (selected.length === 0) {
    const checkedBy = requirementIds
      .map((id) => contract.requirement(id).checkedBy)
      .filter((by) => by !== undefined && !by.includes('suite'));
    throw new SelectionError(
      `--requirement ${requirementIds.join(', ')}: no case of the suite can judge ${requirementIds.length === 1 ? 'it' : 'them'}${checkedBy.length > 0 ? ' (only the proxy checks it)' : ''}`,
    );
  }
  return selected.map(({ suiteCase }) => caseTitle(suiteCase));
}
