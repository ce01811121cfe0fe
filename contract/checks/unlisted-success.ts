// Judges an operation's success requirement: a 2xx answer is one the operation lists.
import { type ExchangeCheck, is2xx, isRequestProblem } from './exchange.ts';

// A 2xx answer to a request the contract accepts is one the operation lists.
export const unlistedSuccess: ExchangeCheck = {
  name: 'unlistedSuccess',
  roles: ['success'],
  appliesTo: (x) => x.operation !== null && is2xx(x.response.status),
  run(contract, x, _options, verdict) {
    // A request that must be refused is judged by the checks above, once.
    if (x.requestFindings.some(isRequestProblem)) return [];
    const operation = x.operation!;
    if (operation.statuses.includes(x.response.status)) {
      verdict.held(contract.successRequirement(operation.operationId).id, 'response');
      return [];
    }
    const listed = operation.statuses.filter(is2xx).join(' or ');
    return [
      contract.finding(contract.successRequirement(operation.operationId).id, 'response', {
        message: `${operation.operationId} answered ${x.response.status}, a success status it does not list (${listed})`,
        expected: listed,
        actual: String(x.response.status),
      }),
    ];
  },
};
