// Judges AUTH-WWW-AUTHENTICATE: a 401 carries a WWW-Authenticate header.
import { headerValue } from '../credentials.ts';
import type { ExchangeCheck } from './exchange.ts';

export const wwwAuthenticateOn401: ExchangeCheck = {
  name: 'wwwAuthenticateOn401',
  appliesTo: (x) => x.response.status === 401,
  run(contract, x, _options, verdict) {
    if (headerValue(x.response.headers, 'www-authenticate')) {
      verdict.held('AUTH-WWW-AUTHENTICATE', 'response');
      return [];
    }
    return [
      contract.finding('AUTH-WWW-AUTHENTICATE', 'response', {
        pointer: 'WWW-Authenticate',
        message: 'a 401 response should carry a WWW-Authenticate header',
        expected: 'WWW-Authenticate: Bearer ...',
        actual: 'absent',
      }),
    ];
  },
};
