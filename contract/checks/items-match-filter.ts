// Judges the role filterMatch: a list's items hold the values its filter members sent.
import { escapeToken } from '../resolve.ts';
import { FILTER_PARAMETER, filterMembers } from '../lists.ts';
import type { Finding } from '../types.ts';
import { parseQuery, queryString } from '../validate.ts';
import { asObject, type Exchange, type ExchangeCheck, jsonBody } from './exchange.ts';

/** The filter members a list request sent, each a string, of those its contract defines. */
function sentFilterMembers(x: Exchange): [name: string, value: string][] {
  const filter = asObject(parseQuery(x.operation!, queryString(x.request.path))[FILTER_PARAMETER]);
  const defined = new Set(filterMembers(x.operation!).map((m) => m.name));
  return Object.entries(filter).flatMap(([name, value]) =>
    defined.has(name) && isScalar(value) ? [[name, String(value)] as [string, string]] : [],
  );
}

const isScalar = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

// Section 4.1 shows no meaning for a filter: only a list that names a requirement for the role
// `filterMatch` is judged, and an item whose attribute of a filter member's name holds another value
// than the one sent contradicts the filter (at the level that requirement carries).
export const itemsMatchFilter: ExchangeCheck = {
  name: 'itemsMatchFilter',
  roles: ['filterMatch'],
  appliesTo: (x) => x.operation?.roles.filterMatch !== undefined && x.response.status === 200,
  run(contract, x, options, verdict) {
    const requirement = x.operation!.roles.filterMatch!;
    const data = jsonBody(x.response)?.data;
    const sent = sentFilterMembers(x);
    if (!Array.isArray(data) || sent.length === 0) {
      verdict.cannotJudge(
        requirement,
        Array.isArray(data) ? 'the request sent no filter member' : 'the list answer held no data array',
        'response',
      );
      return [];
    }
    const findings: Finding[] = [];
    let compared = 0;
    data.forEach((item, index) => {
      const attributes = asObject(asObject(item).attributes);
      for (const [name, value] of sent) {
        if (!isScalar(attributes[name])) continue;
        compared += 1;
        if (String(attributes[name]) === value) continue;
        const actual = options.includeValues === false ? undefined : String(attributes[name]);
        const message = `item ${index} has another ${name} than filter[${name}] asked for`;
        findings.push(
          contract.finding(requirement, 'response', {
            pointer: `/data/${index}/attributes/${escapeToken(name)}`,
            message,
            expected: value,
            actual,
          }),
        );
      }
    });
    if (compared === 0)
      verdict.cannotJudge(requirement, 'no item of the answer has an attribute a filter member sent names', 'response');
    else if (findings.length === 0) verdict.held(requirement, 'response');
    return findings;
  },
};
