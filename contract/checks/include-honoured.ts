// Judges the role includeHonoured: a list answer with items carries the included resources asked for.
import { INCLUDE_PARAMETER, includeNames } from '../lists.ts';
import { parseQuery, queryString } from '../validate.ts';
import { type Exchange, type ExchangeCheck, jsonBody } from './exchange.ts';

/** The include names a list request sent that its contract defines. */
function definedIncludesSent(x: Exchange): string[] {
  const sent = parseQuery(x.operation!, queryString(x.request.path))[INCLUDE_PARAMETER];
  const defined = includeNames(x.operation!);
  return Array.isArray(sent) ? sent.map(String).filter((name) => defined.includes(name)) : [];
}

// The specification shows no include semantics: a list that names a requirement for the role
// `includeHonoured` says an answer with items to a request naming include names its contract
// defines carries those resources in `included` (at the level that requirement carries).
export const includeHonoured: ExchangeCheck = {
  name: 'includeHonoured',
  roles: ['includeHonoured'],
  appliesTo: (x) =>
    x.operation?.roles.includeHonoured !== undefined && x.response.status === 200 && definedIncludesSent(x).length > 0,
  run(contract, x, _options, verdict) {
    const requirement = x.operation!.roles.includeHonoured!;
    const body = jsonBody(x.response);
    if (!Array.isArray(body?.data) || body.data.length === 0) {
      verdict.cannotJudge(requirement, 'the list answer held no item to include resources of', 'response');
      return [];
    }
    const included = body.included;
    if (Array.isArray(included) && included.length > 0) {
      verdict.held(requirement, 'response');
      return [];
    }
    const names = definedIncludesSent(x).join(',');
    const missing = included === undefined ? 'no included member' : 'no included resource';
    const message = `include=${names} was asked for and the answer holds items, but ${missing}`;
    return [
      contract.finding(requirement, 'response', {
        pointer: '/included',
        message,
        expected: 'the included resources',
        actual: included === undefined ? 'absent' : 'none',
      }),
    ];
  },
};
