// Judges RES-MEMBER-NAMES-UNIQUE: RFC 8259 asks the names of one object of a JSON body to be unique (4, a SHOULD).
import { repeatedMemberName } from '../json-text.ts';
import { type ExchangeCheck, parsedResponse } from './exchange.ts';

export const memberNamesUnique: ExchangeCheck = {
  name: 'memberNamesUnique',
  appliesTo: (x) => parsedResponse(x.response) !== undefined,
  run(contract, x, _options, verdict) {
    const name = repeatedMemberName(x.response.bodyText!, parsedResponse(x.response)!.value);
    if (name === null) {
      verdict.held('RES-MEMBER-NAMES-UNIQUE', 'response');
      return [];
    }
    const shown = JSON.stringify(name.slice(0, 40));
    return [
      contract.finding('RES-MEMBER-NAMES-UNIQUE', 'response', {
        message: `the member name ${shown} appears twice in one object: the kit judged the last, clients that keep the first read the other`,
        expected: 'each name once per object',
        actual: `${shown} twice`,
      }),
    ];
  },
};
