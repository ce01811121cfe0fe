// Judges RES-JSON-UTF8: section 4 puts every body in a JSON media type, and RFC 8259 asks JSON exchanged between
// systems to be UTF-8 (8.1, a MUST). How clients read a body's text beyond its value is json-text.ts.
import { type ExchangeCheck, parsedResponse } from './exchange.ts';

export const bodyUtf8: ExchangeCheck = {
  name: 'bodyUtf8',
  appliesTo: (x) => x.response.utf8 !== undefined && parsedResponse(x.response) !== undefined,
  run(contract, x, _options, verdict) {
    const utf8 = x.response.utf8!;
    if (utf8 === 'valid') {
      verdict.held('RES-JSON-UTF8', 'response');
      return [];
    }
    const actual = `bytes that are not UTF-8 from byte ${utf8.invalidAt}`;
    return [
      contract.finding('RES-JSON-UTF8', 'response', {
        message: `the body holds ${actual}: clients decode them as U+FFFD or refuse the body (RFC 8259 section 8.1)`,
        expected: 'bytes in UTF-8',
        actual,
      }),
    ];
  },
};
