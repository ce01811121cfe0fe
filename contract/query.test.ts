// Golden cases of query parsing for a list filtered on `type` (`portal` or `user`), paged and
// taking `include`: the bracket convention the kit reads deepObject parameters with (JSON:API's;
// the encoding itself is not shown, section 4.4).
import { describe, expect, it } from 'vitest';
import {
  filterMembers,
  loadContract,
  parseQuery,
  smallestQuery,
  validateRequest,
  type OperationRole,
} from './index.ts';
import { describeWith, itWith, lists } from './test-support.ts';

const contract = loadContract();
/** A list of the shape the golden cases are written for, picked by what it has. */
const list = lists.find(
  (o) =>
    filterMembers(o).some((m) => m.name === 'type' && m.required && m.values.join() === 'portal,user') &&
    ['page', 'include'].every((name) => o.parameters.some((p) => p.name === name)),
);
const LIST = 'list with a required filter member type of values portal and user, page and include';
const describeWithList = describeWith(list, LIST);

const golden: { description: string; query: string; expected: Record<string, unknown> }[] = [
  { description: 'literal brackets', query: 'filter[type]=portal', expected: { filter: { type: 'portal' } } },
  {
    description: 'percent-encoded brackets',
    query: 'filter%5Btype%5D=portal',
    expected: { filter: { type: 'portal' } },
  },
  { description: 'lowercase percent-encoding', query: 'filter%5btype%5d=user', expected: { filter: { type: 'user' } } },
  { description: 'half-encoded brackets', query: 'filter%5Btype]=user', expected: { filter: { type: 'user' } } },
  { description: 'a leading question mark', query: '?filter[type]=portal', expected: { filter: { type: 'portal' } } },
  { description: 'an empty query', query: '', expected: {} },
  {
    description: 'empty pairs between ampersands',
    query: 'filter[type]=portal&&page[limit]=1&',
    expected: { filter: { type: 'portal' }, page: { limit: 1 } },
  },
  {
    description: 'a repeated member becomes a list of its values',
    query: 'filter[type]=portal&filter[type]=user',
    expected: { filter: { type: ['portal', 'user'] } },
  },
  { description: 'an empty value', query: 'filter[type]=', expected: { filter: { type: '' } } },
  { description: 'a key without =', query: 'filter[type]', expected: { filter: { type: '' } } },
  { description: '+ is a space', query: 'filter[type]=portal+user', expected: { filter: { type: 'portal user' } } },
  { description: 'an encoded =', query: 'filter[type]=a%3Db', expected: { filter: { type: 'a=b' } } },
  { description: 'a literal = inside the value', query: 'filter[type]=a=b', expected: { filter: { type: 'a=b' } } },
  { description: 'brackets inside the value', query: 'filter[type]=a[b]', expected: { filter: { type: 'a[b]' } } },
  {
    description: 'encoded brackets inside the value',
    query: 'filter[type]=%5B%5D',
    expected: { filter: { type: '[]' } },
  },
  {
    description: 'malformed percent-encoding is kept raw',
    query: 'filter[type]=%E0%A4%A',
    expected: { filter: { type: '%E0%A4%A' } },
  },
  {
    description: 'a lone percent sign is kept raw',
    query: 'filter[type]=100%',
    expected: { filter: { type: '100%' } },
  },
  {
    description: 'a bare filter keeps its wrong shape as a string',
    query: 'filter=portal',
    expected: { filter: 'portal' },
  },
  {
    description: 'a bare filter then a member: neither is dropped',
    query: 'filter=portal&filter[type]=user',
    expected: { filter: ['portal', { type: 'user' }] },
  },
  {
    description: 'a member then a bare filter: neither is dropped',
    query: 'filter[type]=user&filter=portal',
    expected: { filter: [{ type: 'user' }, 'portal'] },
  },
  { description: 'an empty member name', query: 'filter[]=portal', expected: { filter: { '': 'portal' } } },
  {
    description: 'a key of two bracket pairs is no member',
    query: 'filter[type][x]=portal',
    expected: { 'filter[type][x]': 'portal' },
  },
  { description: 'a key of brackets alone is no member', query: '[type]=portal', expected: { '[type]': 'portal' } },
  {
    description: 'a key with brackets the wrong way round is no member',
    query: 'filter]type[=portal',
    expected: { 'filter]type[': 'portal' },
  },
  {
    description: 'nested brackets are not a deepObject member',
    query: 'filter[type][0]=portal',
    expected: { 'filter[type][0]': 'portal' },
  },
  { description: 'an undeclared parameter is kept as a string', query: 'sort=-label', expected: { sort: '-label' } },
  {
    description: 'an undeclared bracket parameter keeps its full name',
    query: 'fields[Widget]=label',
    expected: { 'fields[Widget]': 'label' },
  },
  { description: 'include=a,b is a list', query: 'include=owner,portal', expected: { include: ['owner', 'portal'] } },
  {
    description: 'a repeated include adds to the list',
    query: 'include=owner&include=portal,items',
    expected: { include: ['owner', 'portal', 'items'] },
  },
  { description: 'an empty include is an empty list', query: 'include=', expected: { include: [] } },
  {
    description: 'empty names inside include are kept',
    query: 'include=owner,,portal',
    expected: { include: ['owner', '', 'portal'] },
  },
  {
    description: 'include with a member keeps its wrong shape',
    query: 'include[owner]=true',
    expected: { include: { owner: 'true' } },
  },
  {
    description: 'page members that are numbers become numbers',
    query: 'page[limit]=10&page[offset]=0',
    expected: { page: { limit: 10, offset: 0 } },
  },
  { description: 'a word stays a string', query: 'page[limit]=abc', expected: { page: { limit: 'abc' } } },
  { description: 'exponent notation is a number', query: 'page[limit]=1e2', expected: { page: { limit: 100 } } },
  { description: 'negative zero is a number', query: 'page[offset]=-0', expected: { page: { offset: -0 } } },
  { description: 'a negative number is a number', query: 'page[offset]=-5', expected: { page: { offset: -5 } } },
  { description: 'a fraction is a number', query: 'page[limit]=1.5', expected: { page: { limit: 1.5 } } },
  // Surrounding spaces are ignored as Number() and most servers ignore them; the encoding is not
  // shown, so refusing them would fail a correct server (an open choice is never failed).
  {
    description: 'a number with a leading space (+) is a number',
    query: 'page[limit]=+5',
    expected: { page: { limit: 5 } },
  },
  {
    description: 'a number with an encoded leading space is a number',
    query: 'page[limit]=%205',
    expected: { page: { limit: 5 } },
  },
  {
    description: 'an encoded plus sign is a signed number',
    query: 'page[limit]=%2B5',
    expected: { page: { limit: 5 } },
  },
  {
    description: 'an empty number stays an empty string, not 0',
    query: 'page[limit]=&page[offset]=0',
    expected: { page: { limit: '', offset: 0 } },
  },
  { description: 'hexadecimal stays a string', query: 'page[limit]=0x10', expected: { page: { limit: '0x10' } } },
  { description: 'Infinity stays a string', query: 'page[limit]=Infinity', expected: { page: { limit: 'Infinity' } } },
  {
    description: 'a number with a unit stays a string',
    query: 'page[limit]=10px',
    expected: { page: { limit: '10px' } },
  },
  {
    description: 'a repeated page member stays a list of strings',
    query: 'page[limit]=10&page[limit]=20',
    expected: { page: { limit: ['10', '20'] } },
  },
  { description: 'a bare page stays a string', query: 'page=5', expected: { page: '5' } },
];

describeWithList('parseQuery', (list) => {
  for (const c of golden) {
    it(`${c.description}: ${c.query || '(empty)'}`, () => {
      expect(parseQuery(list, c.query)).toEqual(c.expected);
    });
  }
});

// What validation makes of the parsed query: the parameter named, the role of the requirement it breaks.
const verdicts: { query: string; findings: { role: OperationRole; pointer: string }[] }[] = [
  { query: 'filter[type]=portal&page[limit]=10&page[offset]=0&include=owner', findings: [] },
  { query: 'filter%5Btype%5D=user', findings: [] },
  { query: 'filter[type]=portal&page[limit]=1.5&page[offset]=0', findings: [] },
  { query: 'filter[type]=portal&page[limit]=%205&page[offset]=-0', findings: [] },
  { query: '', findings: [{ role: 'filterRequired', pointer: 'filter[type]' }] },
  { query: 'filter[type]=', findings: [{ role: 'filterRequired', pointer: 'filter[type]' }] },
  { query: 'filter[type]=group', findings: [{ role: 'filterRequired', pointer: 'filter[type]' }] },
  { query: 'filter=portal', findings: [{ role: 'filterRequired', pointer: 'filter' }] },
  {
    query: 'filter[type]=portal&filter[type]=user',
    findings: [{ role: 'filterRequired', pointer: 'filter[type]' }],
  },
  {
    query: 'filter[type]=portal&page[limit]=10',
    findings: [{ role: 'pageBothMembers', pointer: 'page[offset]' }],
  },
  {
    query: 'filter[type]=portal&page[offset]=0',
    findings: [{ role: 'pageBothMembers', pointer: 'page[limit]' }],
  },
  {
    query: 'filter[type]=portal&page[limit]=0&page[offset]=0',
    findings: [{ role: 'pageLimitMin', pointer: 'page[limit]' }],
  },
  {
    query: 'filter[type]=portal&page[limit]=10&page[offset]=-1',
    findings: [{ role: 'pageOffsetMin', pointer: 'page[offset]' }],
  },
  {
    query: 'filter[type]=portal&page[limit]=abc&page[offset]=0',
    findings: [{ role: 'pageNotANumber', pointer: 'page[limit]' }],
  },
  {
    query: 'filter[type]=portal&page[limit]=&page[offset]=0',
    findings: [{ role: 'pageNotANumber', pointer: 'page[limit]' }],
  },
  { query: 'filter[type]=portal&page=5', findings: [{ role: 'pageShape', pointer: 'page' }] },
  { query: 'filter[type]=portal&page=', findings: [{ role: 'pageShape', pointer: 'page' }] },
  {
    query: 'filter[type]=portal&include[owner]=true',
    findings: [{ role: 'includeShape', pointer: 'include' }],
  },
];

describeWithList('validateRequest on the parsed query', (list) => {
  for (const c of verdicts) {
    it(`${c.query || '(empty)'} → ${c.findings.map((f) => f.role).join(', ') || 'valid'}`, () => {
      const findings = validateRequest(contract, list, {
        method: 'GET',
        path: `${contract.basePath}${list.pathTemplate}?${c.query}`,
        headers: { authorization: 'Bearer p:token' },
      });
      expect(findings.map(({ requirement, pointer }) => ({ requirement, pointer }))).toEqual(
        c.findings.map(({ role, pointer }) => ({ requirement: list.roles[role], pointer })),
      );
    });
  }
});

describe("smallestQuery: the smallest query an operation serves, from its parameters' schemas", () => {
  const parameters = [
    {
      name: 'filter',
      required: true,
      schema: { type: 'object', required: ['type'], properties: { type: { enum: ['portal', 'user'] } } },
    },
    {
      name: 'page',
      required: false,
      schema: {
        type: 'object',
        required: ['limit', 'offset'],
        properties: { limit: { minimum: 1 }, offset: { minimum: 0 } },
      },
    },
    { name: 'include', required: false, schema: { type: 'array' } },
  ];

  it('names each required member at its first allowed value', () => {
    expect(smallestQuery(parameters)).toBe('filter[type]=portal');
  });

  it('with smallestPage, adds each optional parameter whose members all have a minimum, at those minimums', () => {
    expect(smallestQuery(parameters, { smallestPage: true })).toBe('filter[type]=portal&page[limit]=1&page[offset]=0');
  });

  it('names a required member with no allowed values at the id of the record it names, else at the value its schema shows, else empty', () => {
    const free = (member: Record<string, unknown>) => [
      {
        name: 'filter',
        required: true,
        schema: { type: 'object', required: ['item'], properties: { item: { type: 'string', ...member } } },
      },
    ];
    const records = { collectionItemId: '6553f100c0ffee382ddfb9f5' };
    expect(smallestQuery(free({ 'x-record': 'collectionItemId' }), { records })).toBe(
      'filter[item]=6553f100c0ffee382ddfb9f5',
    );
    expect(smallestQuery(free({ 'x-record': 'collectionItemId', example: 'shown' }))).toBe('filter[item]=shown');
    expect(smallestQuery(free({ examples: ['first', 'second'] }))).toBe('filter[item]=first');
    expect(smallestQuery(free({}), { records })).toBe('filter[item]=');
  });

  it('is empty for an operation without required parameters', () => {
    expect(smallestQuery([parameters[2]], { smallestPage: true })).toBe('');
  });

  itWith(list, LIST)("gives the golden cases' list the query the preflight sends", (operation) => {
    expect(smallestQuery(operation.parameters, { smallestPage: true })).toBe(
      'filter[type]=portal&page[limit]=1&page[offset]=0',
    );
  });
});
