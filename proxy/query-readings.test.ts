// Enforce mode reads a query as the service's framework would: a generated corpus of query
// strings goes through the proxy's own admission (its request judging, admissionFindings and
// refusalOf, as `admit` calls them) and through the real parsers of common frameworks: qs with
// its defaults and with Express 4's options, node:querystring (Express 5), URLSearchParams. No
// query enforce mode forwards may be read otherwise by any of them, over the contract's
// parameters: a deepObject parameter as the object of its members, a form parameter as its value.
// The queries go to the contract's first list (and create), skipped when it holds none.
import querystring from 'node:querystring';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import qs from 'qs';
import { expect, test } from 'vitest';
import { parseQueryPairs, type Operation } from '../contract/index.ts';
import { contract, create, describeWith, list, listQuery, requestPath } from '../contract/test-support.ts';
import { admissionFindings, QUERY_PARTS_READ_MAX } from './admission.ts';
import { refusalOf } from './errors.ts';
import { judgeRequest, locate, NO_BODY } from './judge.ts';

type QueryParameter = Operation['parameters'][number];

const headers = { authorization: 'Bearer r:query-readings-session' };
const judgeOptions = { includeValues: false, maxBody: 1024 * 1024 };

/** Whether enforce mode forwards a GET to a list with this query (no body, valid credentials). */
function forwarded(list: Operation, query: string): boolean {
  const path = `${requestPath(list)}?${query}`;
  const located = locate(contract, 'GET', path);
  const admission = admissionFindings(contract, {
    method: 'GET',
    path,
    rawHeaders: ['Authorization', headers.authorization],
    operation: located.operation,
  });
  const judged = judgeRequest(contract, 'GET', path, headers, NO_BODY, judgeOptions, located);
  return refusalOf(contract, judged.findings.concat(admission), 'credential') === null;
}

/** Each of the operation's parameters as one parser reads it: a member value, a list, an object. */
type Reading = Record<string, unknown>;

/** How a parser reads a deepObject parameter `name`: nested (qs) or under flat keys `name[member]`. */
interface Parser {
  name: string;
  read(query: string, parameters: QueryParameter[]): Reading;
}

const propertiesOf = (parameter: QueryParameter): string[] => Object.keys(parameter.schema.properties ?? {});

/**
 * What an application reads from a flat parser: each member under its bracketed key, each form parameter under its
 * name.
 */
function flatReading(value: (key: string) => unknown, parameters: QueryParameter[]): Reading {
  const reading: Reading = {};
  for (const parameter of parameters) {
    if (parameter.style !== 'deepObject') {
      reading[parameter.name] = value(parameter.name);
      continue;
    }
    const members = Object.fromEntries(
      propertiesOf(parameter)
        .map((member): [string, unknown] => [member, value(`${parameter.name}[${member}]`)])
        .filter(([, read]) => read !== undefined),
    );
    reading[parameter.name] = Object.keys(members).length === 0 ? undefined : members;
  }
  return reading;
}

const parsers: Parser[] = [
  { name: 'qs (defaults)', read: (query, parameters) => nestedReading(qs.parse(query), parameters) },
  {
    name: 'qs (as Express 4 calls it)',
    read: (query, parameters) => nestedReading(qs.parse(query, { allowPrototypes: true }), parameters),
  },
  {
    name: 'node:querystring (Express 5)',
    read: (query, parameters) => {
      const parsed = querystring.parse(query);
      return flatReading((key) => parsed[key], parameters);
    },
  },
  {
    name: 'URLSearchParams get',
    read: (query, parameters) => {
      const parsed = new URLSearchParams(query);
      return flatReading((key) => parsed.get(key) ?? undefined, parameters);
    },
  },
];

function nestedReading(parsed: Record<string, unknown>, parameters: QueryParameter[]): Reading {
  return Object.fromEntries(parameters.map((parameter) => [parameter.name, parsed[parameter.name]]));
}

/** The contract's reading: the pairs the proxy judged, before coercion (a parser's values are strings too). */
function contractReading(query: string, parameters: QueryParameter[]): Reading {
  const reading: Reading = {};
  for (const pair of parseQueryPairs(query)) {
    const parameter = parameters.find((p) => p.name === pair.name);
    if (!parameter) continue;
    if (parameter.style === 'deepObject' && pair.member !== undefined) {
      const members = (reading[parameter.name] ?? {}) as Record<string, unknown>;
      members[pair.member] = added(members[pair.member], pair.value);
      reading[parameter.name] = members;
    } else {
      reading[parameter.name] = added(reading[parameter.name], pair.value);
    }
  }
  return reading;
}

function added(existing: unknown, value: string): unknown {
  if (existing === undefined) return value;
  return Array.isArray(existing) ? [...existing, value] : [existing, value];
}

/** Plain JSON values, so that a parser's null-prototype objects compare with the contract's. */
const plain = (reading: Reading): unknown => JSON.parse(JSON.stringify(reading)) as unknown;

/** The parsers that read a query to a list otherwise than the contract, with what they read. */
function misreadings(list: Operation, query: string): string[] {
  const parameters = list.parameters;
  const expected = plain(contractReading(query, parameters));
  return parsers.flatMap((parser) => {
    const read = plain(parser.read(query, parameters));
    return isDeepStrictEqual(read, expected)
      ? []
      : [`${parser.name} reads ${JSON.stringify(read)}, the contract ${JSON.stringify(expected)}`];
  });
}

/**
 * The queries of the report that enforce mode once forwarded beside `conforming`, and their percent-encoded variants.
 */
function reportedQueries(conforming: string): string[] {
  return [
    `${Array.from({ length: QUERY_PARTS_READ_MAX }, (_, i) => `x${i}=1`).join('&')}&${conforming}`,
    `${'&'.repeat(QUERY_PARTS_READ_MAX)}${conforming}`,
    `${conforming}&[page][limit]=100000`,
    `${conforming}&%5Bpage%5D%5Blimit%5D=100000`,
    `${conforming}&%5bpage%5d[limit]=100000`,
    `${conforming}&[filter][type]=bogus`,
    `${conforming}&%5Bfilter%5D%5Btype%5D=bogus`,
    `${conforming}&[filter]type=bogus`,
    `${conforming}&%5Bfilter%5Dtype=bogus`,
    `[filter]type=bogus&${conforming}`,
  ];
}

const keys = [
  'filter[type]',
  'page[limit]',
  'page[offset]',
  'include',
  '[filter][type]',
  '[filter]type',
  '[page][limit]',
  'filter[type',
  'filter]type[',
  'filter[type]]',
  'Filter[type]',
  'filter.type',
  'page[]',
  'include[]',
  'fil=ter[type]',
  'x',
  'a]',
  '',
];
const values = [
  'portal',
  'user',
  'bogus',
  '10',
  '0',
  '1',
  'a,b',
  'x]=y',
  ']=',
  '%zz',
  '%FF',
  '%E2%82%AC',
  '%C3',
  '+',
  'a+b',
  '%2B',
  '=',
  '[x]',
  '%5Bx%5D',
  '%5D=',
  '',
];

/** Each character of `text` percent-encoded where the mask says so (upper or lower case hex). */
function percentEncoded(text: string, mask: readonly number[]): string {
  if (mask.length === 0) return text;
  return [...text]
    .map((c, i) => {
      const choice = mask[i % mask.length];
      if (choice === 0) return c;
      const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
      return c.charCodeAt(0) > 0x7f ? encodeURIComponent(c) : `%${choice === 1 ? hex.toUpperCase() : hex}`;
    })
    .join('');
}

const part = fc.oneof(
  fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...values)).map(([key, value]) => `${key}=${value}`),
  fc
    .tuple(
      fc.constantFrom(...keys),
      fc.constantFrom(...values),
      fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 6 }),
    )
    .map(([key, value, mask]) => `${percentEncoded(key, mask)}=${value}`),
  fc.constantFrom(...keys),
  fc.constant(''),
);
/** Queries of up to six parts, some led by `conforming`. */
const corpusBeside = (conforming: string) =>
  fc
    .tuple(fc.boolean(), fc.array(part, { minLength: 0, maxLength: 6 }))
    .map(([leading, parts]) => (leading ? [conforming, ...parts] : parts).join('&'));

describeWith(list, 'list')("a list's query", (list) => {
  const conforming = listQuery(list);
  const reported = reportedQueries(conforming);

  test.each(reported.map((query) => [query.length > 80 ? `${query.slice(0, 30)}…${query.slice(-40)}` : query, query]))(
    'enforce mode refuses %s',
    (_, query) => {
      expect(forwarded(list, query)).toBe(false);
    },
  );

  test(`a query of exactly ${QUERY_PARTS_READ_MAX} parts is read whole by every parser, and forwarded`, () => {
    const query = `${'&'.repeat(QUERY_PARTS_READ_MAX - 1)}${conforming}`;
    expect(misreadings(list, query)).toEqual([]);
    expect(forwarded(list, query)).toBe(true);
  });

  test('no query enforce mode forwards is read otherwise by qs, node:querystring or URLSearchParams', () => {
    let forwardedCount = 0;
    let total = 0;
    for (const query of [...reported, ...fc.sample(corpusBeside(conforming), { numRuns: 4000, seed: 31 })]) {
      total += 1;
      if (!forwarded(list, query)) continue;
      forwardedCount += 1;
      expect({ query, misreadings: misreadings(list, query) }).toEqual({ query, misreadings: [] });
    }
    // A corpus enforce mode refused whole would prove nothing.
    expect(forwardedCount).toBeGreaterThan(total / 10);
  });

  test('the corpus holds queries the parsers read otherwise (the reason for the refusals)', () => {
    const misread = reported.filter((query) => misreadings(list, query).length > 0);
    expect(misread).toEqual(reported);
  });
});

describeWith(create, 'create')("a create's query", (create) => {
  test.each([
    'data[attributes][required]=yes',
    'data=x',
    '[data][attributes][label]=x',
    'DATA[type]=x',
    'data.attributes.label=x',
  ])('enforce mode refuses a POST with the query %s, which Rails-style frameworks merge into the document', (query) => {
    const path = requestPath(create, query);
    const findings = admissionFindings(contract, {
      method: 'POST',
      path,
      rawHeaders: ['Authorization', headers.authorization],
      operation: locate(contract, 'POST', path).operation,
    });
    expect(findings.map((f) => f.requirement)).toContain('PROXY-QUERY-MERGES-DOCUMENT');
    expect(refusalOf(contract, findings, 'credential')?.status).toBe(400);
  });
});
