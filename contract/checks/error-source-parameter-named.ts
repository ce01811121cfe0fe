// Judges ERR-SOURCE-PARAMETER: a 400 for a query parameter names it in an error's source.parameter.
import { errorObjects, type ExchangeCheck, type Json } from './exchange.ts';

export const errorSourceParameterNamed: ExchangeCheck = {
  name: 'errorSourceParameterNamed',
  appliesTo: (x) => x.response.status === 400,
  run(contract, x, _options, verdict) {
    const flagged = x.requestFindings.filter(
      (f) =>
        f.location === 'request' &&
        f.pointer !== '' &&
        !f.pointer.startsWith('/') &&
        f.requirement !== 'AUTH-CREDENTIALS-PRESENT' &&
        f.requirement !== 'AUTH-401-MALFORMED',
    );
    // No query parameter of the request was at fault: this exchange cannot judge the requirement, and holds nothing.
    if (flagged.length === 0) return [];
    const named = errorObjects(x.response)
      .map((e) => (e.source as Json | undefined)?.parameter)
      .filter((p): p is string => typeof p === 'string');
    const wanted = flagged.map((f) => f.pointer);
    if (named.some((p) => wanted.some((w) => w === p || w.startsWith(p + '[')))) {
      verdict.held('ERR-SOURCE-PARAMETER', 'response');
      return [];
    }
    return [
      contract.finding('ERR-SOURCE-PARAMETER', 'response', {
        pointer: '/errors',
        message: `no error names the query parameter at fault in source.parameter (expected ${wanted.join(' or ')})`,
        expected: wanted.join(' or '),
        actual: named.length ? named.join(', ') : 'none',
      }),
    ];
  },
};
