// Judges EXCH-STATUS-LISTED: a status below 500 that is not 2xx is one the operation lists or a generic one.
import { type ExchangeCheck, is2xx, is4xx, isRequestProblem } from './exchange.ts';

export const statusListed: ExchangeCheck = {
  name: 'statusListed',
  appliesTo: (x) => x.operation !== null && !is2xx(x.response.status) && x.response.status < 500,
  run(contract, x, _options, verdict) {
    const operation = x.operation!;
    const status = x.response.status;
    if (operation.statuses.includes(status) || contract.genericStatuses.has(status)) {
      verdict.held('EXCH-STATUS-LISTED', 'response');
      return [];
    }
    // A request that must be refused, refused with a status the contract does not name, is judged by the checks above,
    // once.
    if (is4xx(status) && x.requestFindings.some(isRequestProblem)) {
      verdict.cannotJudge(
        'EXCH-STATUS-LISTED',
        `a request the contract rejects was refused with ${status}: judged under what serving it breaks`,
        'response',
      );
      return [];
    }
    return [
      contract.finding('EXCH-STATUS-LISTED', 'response', {
        message: `status ${status} is not listed for ${operation.operationId} (listed: ${operation.statuses.join(', ')})`,
        expected: operation.statuses.join(', '),
        actual: String(status),
      }),
    ];
  },
};
