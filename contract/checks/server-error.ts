// Judges ERR-NO-5XX: a specified operation never answers 5xx.
import { type ExchangeCheck, isRequestProblem } from './exchange.ts';

// Sections 4.1 to 4.3 list every status the three operations answer and section 7 names them; none is 5xx.
export const serverError: ExchangeCheck = {
  name: 'serverError',
  appliesTo: (x) => x.operation !== null,
  run(contract, x, _options, verdict) {
    if (x.response.status < 500) {
      verdict.held('ERR-NO-5XX');
      return [];
    }
    const status = String(x.response.status);
    const message = x.requestFindings.some(isRequestProblem)
      ? `an invalid request was answered ${status}; it must be answered 4xx`
      : `a valid request was answered ${status}`;
    return [
      contract.finding('ERR-NO-5XX', 'exchange', { message, expected: 'a status the operation lists', actual: status }),
    ];
  },
};
