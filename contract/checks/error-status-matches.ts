// Judges ERR-STATUS-STRING: an error object's status is the HTTP status, as a string.
import { errorObjects, type ExchangeCheck } from './exchange.ts';

export const errorStatusMatches: ExchangeCheck = {
  name: 'errorStatusMatches',
  appliesTo: (x) => x.response.status >= 400,
  run(contract, x, _options, verdict) {
    const expected = String(x.response.status);
    return errorObjects(x.response).flatMap((error, index) => {
      if (typeof error.status !== 'string') return [];
      if (error.status === expected) {
        verdict.held('ERR-STATUS-STRING', 'response');
        return [];
      }
      return [
        contract.finding('ERR-STATUS-STRING', 'response', {
          pointer: `/errors/${index}/status`,
          message: `/errors/${index}/status must be "${expected}", the HTTP status, got "${error.status}"`,
          expected,
          actual: error.status,
        }),
      ];
    });
  },
};
