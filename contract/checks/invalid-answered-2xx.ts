// Judges what serving a request the contract rejects breaks: it is refused with a status the contract names.
import type { Contract, Operation } from '../contract.ts';
import { type Exchange, type ExchangeCheck, is2xx, is4xx } from './exchange.ts';
import { isCredentialProblem, isValidationProblem, refusalsFor } from './refusals.ts';

/** Statuses that refuse a request for who sent it (section 5), not for what it holds. */
const CREDENTIAL_STATUSES = [401, 403];

/**
 * A 4xx that can only be about the request's content: its credentials read as one of the schemes and were not what was
 * refused.
 */
function refusedForItsProblems(x: Exchange): boolean {
  const credentialsUnreadable = x.requestFindings.some(
    (f) => isCredentialProblem(f) || f.requirement === 'AUTH-401-MALFORMED',
  );
  return !credentialsUnreadable && !CREDENTIAL_STATUSES.includes(x.response.status);
}

/**
 * A 4xx the contract names for an operation: one it lists (400 for an invalid request, section 7;
 * 404 and 409, whose conditions are not shown), or one HTTP defines for a condition the
 * specification leaves open (x-generic-statuses). Any other 4xx (422, say) refuses a request with
 * a status the specification gives no condition for.
 */
function isNamedRefusal(contract: Contract, operation: Operation, status: number): boolean {
  return is4xx(status) && (operation.statuses.includes(status) || contract.genericStatuses.has(status));
}

/** The refusals the contract names for an operation, as an expectation reads them. */
function namedRefusals(contract: Contract, operation: Operation): string {
  const listed = operation.statuses.filter(is4xx);
  return `${listed.join(', ')} or a generic status (${[...contract.genericStatuses].join(', ')})`;
}

// A request the contract rejects is refused with a status the contract names for it: answering it
// 2xx, or refusing it with a 4xx the contract names for no condition (a 422), breaks what serving
// it breaks (`acceptedBreaks`), at that requirement's level, as the suite's cases judge it; a named
// refusal holds that when it is 400 or one the catalogue names for the problem (`refusedWith`): a
// 404 or a 429 says nothing about what the request holds. Credentials come first
// (section 5): a request without valid-looking credentials that is refused shows nothing about
// its other problems.
export const invalidAnswered2xx: ExchangeCheck = {
  name: 'invalidAnswered2xx',
  appliesTo: (x) =>
    x.operation !== null &&
    (is2xx(x.response.status) || is4xx(x.response.status)) &&
    x.requestFindings.some(isValidationProblem),
  run(contract, x, _options, verdict) {
    // Each broken requirement once, under what serving it breaks: the exchange shows the server did not refuse it as
    // the contract says.
    const problems = x.requestFindings.filter(isValidationProblem);
    const broken = problems.map((problem) => ({
      problem,
      requirement: contract.requirementBrokenByAccepting(problem.requirement).id,
    }));
    const firstPerRequirement = broken.filter((b, i) => broken.findIndex((c) => c.requirement === b.requirement) === i);
    const status = x.response.status;
    if (isNamedRefusal(contract, x.operation!, status)) {
      for (const { requirement } of firstPerRequirement) {
        if (!refusedForItsProblems(x)) {
          verdict.cannotJudge(
            requirement,
            `credentials come first (section 5) and this ${status} may refuse them: it shows nothing about what the request holds`,
          );
          continue;
        }
        if (refusalsFor(contract, [requirement]).includes(status)) verdict.held(requirement);
        else
          verdict.cannotJudge(
            requirement,
            `${status} refuses for a condition of its own (${contract.genericStatuses.has(status) ? 'a generic status, answered whatever the request holds' : 'one the specification does not show'}), not necessarily for what the request holds`,
          );
      }
      return [];
    }
    const expected = is2xx(status) ? '4xx' : namedRefusals(contract, x.operation!);
    const answered = is2xx(status) ? `${status}` : `${status}, a refusal the contract names for no condition`;
    return firstPerRequirement.map(({ problem, requirement }) =>
      contract.finding(requirement, 'exchange', {
        pointer: problem.pointer,
        message: `a request the contract rejects (${problem.message}) was answered ${answered}`,
        expected,
        actual: String(status),
      }),
    );
  },
};
