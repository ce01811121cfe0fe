// Each exchange check has cases that make it fire and cases where it holds; the request
// findings come from validateRequest, as the proxy and the suite produce them. The cases take
// their operations from the contract by what they have (any operation; a list filtered on
// allowed values; a create taking typed attributes; a create with a relationship of a fixed type)
// and their requirement ids from the operations' roles and the catalogue's routes. A group whose
// kind of operation the contract no longer holds is skipped, its title saying so.
import { describe, expect, it } from 'vitest';
import { grownContract } from '../test-support/grown-contract.ts';
import {
  assessChecks,
  bodyMembers,
  checkExchange,
  exchangeChecks,
  filterRequired,
  listItemAttributes,
  namesShownAt,
  SAMPLE_OF_TYPE,
  servedFilterMember,
  serverAttributes,
  unescapeToken,
  validateGenericRequest,
  validateRequest,
  withoutValueAt,
  withValueAt,
  wrongTypes,
  type BodyMember,
  type CheckVerdict,
  type Contract,
  type Exchange,
  type Finding,
  type Headers,
  type Operation,
} from './index.ts';
import {
  contract,
  creates,
  credentials,
  describeWith,
  documentExample,
  itemExample,
  itWith,
  jsonApi,
  listQuery,
  lists,
  noneLeft,
  requirementJudgedBy,
} from './test-support.ts';

const userId = '60a7c0f2e4b0c83d2f9a1b23';
/** The query-parameter and integer-form requirements: a contract with no list holds neither. */
const sourceParameter = requirementJudgedBy('errorSourceParameterNamed')!;
const integerForm = requirementJudgedBy('integerForm')!;
const createdId = '63d4e5f6a7b8c9d0e1f2a3b4';

function exchange(
  operation: Operation | null,
  method: string,
  path: string,
  requestHeaders: Headers,
  requestBody: unknown,
  status: number,
  responseBody?: unknown,
  responseHeaders: Headers = jsonApi,
  within: Contract = contract,
): Exchange {
  const request = {
    method,
    path,
    headers: requestHeaders,
    bodyText:
      requestBody === undefined
        ? undefined
        : typeof requestBody === 'string'
          ? requestBody
          : JSON.stringify(requestBody),
  };
  const response = {
    status,
    headers: responseHeaders,
    bodyText: responseBody === undefined ? undefined : JSON.stringify(responseBody),
  };
  const requestFindings = operation
    ? validateRequest(within, operation, request)
    : validateGenericRequest(within, request);
  return { operation, request, response, requestFindings };
}

/** The path of a request to `operation`, with `query` when given. */
const pathOf = (operation: Operation, query = '', within: Contract = contract) =>
  `${within.basePath}${operation.pathTemplate}${query === '' ? '' : `?${query}`}`;

/**
 * An answer to a request `operation` accepts (a list's smallest query, a create's complete example), sent with
 * `auth`.
 */
function answered(
  operation: Operation,
  status: number,
  body?: unknown,
  auth: Headers = credentials,
  responseHeaders: Headers = jsonApi,
): Exchange {
  const document = operation.requestBody === undefined ? undefined : documentExample(operation);
  const query = operation.method === 'GET' ? listQuery(operation) : '';
  const headers = document === undefined ? auth : { ...auth, ...jsonApi };
  return exchange(
    operation,
    operation.method,
    pathOf(operation, query),
    headers,
    document,
    status,
    body,
    responseHeaders,
  );
}

/** What serving a request the contract rejects at `pointer` (for `keyword`) breaks, as the catalogue routes it. */
function servingBreaks(operation: Operation, pointer: string, keyword: string): string {
  const routed = contract.routeFor({ operation: operation.operationId, location: 'request', keyword, pointer });
  return contract.requirementBrokenByAccepting(routed.requirement.id).id;
}

/** The exchange answered with this body text, read as bytes when `utf8` says how they read. */
function answeredWith(x: Exchange, bodyText: string, utf8?: Exchange['response']['utf8']): Exchange {
  return { ...x, response: { ...x.response, headers: jsonApi, bodyText, ...(utf8 === undefined ? {} : { utf8 }) } };
}

const page = (data: unknown[], meta?: Record<string, number>) => ({ data, ...(meta ? { meta } : {}) });
const errors = (...objects: Record<string, unknown>[]) => ({ errors: objects });

interface CheckCase {
  check: string;
  description: string;
  exchange: Exchange;
  /** The contract the exchange is judged by: the shipped one unless given. */
  within?: Contract;
  /** What the check reports; empty when it holds. */
  findings: { requirement: string; pointer: string }[];
  /** When given: the requirements it judged and held, each once. */
  held?: string[];
  /** When given: the requirements it could not judge, each once. */
  unjudged?: string[];
}

/** The cases of one kind of operation, and the operation of that kind the contract holds, if any. */
interface CaseGroup {
  /** The kind of operation, as a skipped group's title names it. */
  what: string;
  operation: Operation | undefined;
  cases: (operation: Operation) => CheckCase[];
}

// --- Any operation: what a check judges whatever the operation ----------------------------------

function anyOperationCases(operation: Operation): CheckCase[] {
  const success = operation.statuses.find((s) => s >= 200 && s < 300)!;
  return [
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials answered 2xx',
      exchange: answered(operation, success, { data: null }, {}),
      findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials answered 403',
      exchange: answered(operation, 403, errors({ status: '403' }), {}),
      findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'credentials answered 2xx',
      exchange: answered(operation, success, { data: null }),
      findings: [],
      held: [],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'credentials answered 403',
      exchange: answered(operation, 403, errors({ status: '403' })),
      findings: [],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials answered 401',
      exchange: answered(operation, 401, errors({ status: '401' }), {}),
      findings: [],
      held: ['AUTH-401-NO-CREDENTIALS'],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials answered 429, a generic status (rate limits are not shown)',
      exchange: answered(operation, 429, errors({ status: '429' }), {}),
      findings: [],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials answered 422, a refusal the contract names for no condition',
      exchange: answered(operation, 422, errors({ status: '422' }), {}),
      findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
    },
    {
      check: 'serverError',
      description: 'a valid request answered 500',
      exchange: answered(operation, 500),
      findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
    },
    {
      check: 'errorStatusMatches',
      description: 'a 403 whose error says 400',
      exchange: answered(operation, 403, errors({ status: '403' }, { status: '400' })),
      findings: [{ requirement: 'ERR-STATUS-STRING', pointer: '/errors/1/status' }],
    },
    {
      check: 'errorStatusMatches',
      description: 'a 403 whose error says 403',
      exchange: answered(operation, 403, errors({ status: '403' })),
      findings: [],
      held: ['ERR-STATUS-STRING'],
    },
    {
      check: 'errorStatusMatches',
      description: 'an error without status',
      exchange: answered(operation, 403, errors({ title: 'Forbidden' })),
      findings: [],
      held: [],
    },
    {
      check: 'errorStatusMatches',
      description: 'a numeric status (a schema finding, not this check)',
      exchange: answered(operation, 403, errors({ status: 403 })),
      findings: [],
    },
    {
      check: 'wwwAuthenticateOn401',
      description: 'a 401 without WWW-Authenticate',
      exchange: answered(operation, 401, errors({ status: '401' })),
      findings: [{ requirement: 'AUTH-WWW-AUTHENTICATE', pointer: 'WWW-Authenticate' }],
    },
    {
      check: 'wwwAuthenticateOn401',
      description: 'a 401 with WWW-Authenticate',
      exchange: answered(operation, 401, errors({ status: '401' }), credentials, {
        ...jsonApi,
        'WWW-Authenticate': 'Bearer realm="v3"',
      }),
      findings: [],
      held: ['AUTH-WWW-AUTHENTICATE'],
    },
    {
      check: 'bodyUtf8',
      description: 'a body read as bytes, all UTF-8',
      exchange: answeredWith(answered(operation, success), '{"data":[]}', 'valid'),
      findings: [],
      held: ['RES-JSON-UTF8'],
    },
    {
      check: 'bodyUtf8',
      description: 'a body whose bytes stop being UTF-8 inside a string',
      exchange: answeredWith(answered(operation, success), '{"data":[],"meta":"\uFFFD"}', { invalidAt: 19 }),
      findings: [{ requirement: 'RES-JSON-UTF8', pointer: '' }],
    },
    {
      check: 'bodyUtf8',
      description: "a body seen only as text (a HAR's): not judged",
      exchange: answeredWith(answered(operation, success), '{"data":[]}'),
      findings: [],
      held: [],
    },
    {
      check: 'memberNamesUnique',
      description: 'every name once',
      exchange: answeredWith(answered(operation, success), '{"data":[{"id":"1"},{"id":"2"}],"meta":{"total":2}}'),
      findings: [],
      held: ['RES-MEMBER-NAMES-UNIQUE'],
    },
    {
      check: 'memberNamesUnique',
      description: 'a string holding ": and spaced colons, every name once',
      exchange: answeredWith(answered(operation, success), '{"data" : [], "meta" : {"note":"a \\":b"}}'),
      findings: [],
      held: ['RES-MEMBER-NAMES-UNIQUE'],
    },
    {
      check: 'memberNamesUnique',
      description: 'meta given twice, the first a string',
      exchange: answeredWith(
        answered(operation, success),
        '{"data":[],"meta":"bogus","meta":{"total":0,"pages":0,"page":1,"offset":0,"limit":10}}',
      ),
      findings: [{ requirement: 'RES-MEMBER-NAMES-UNIQUE', pointer: '' }],
    },
    {
      check: 'memberNamesUnique',
      description: 'a name given twice with a space before its colon',
      exchange: answeredWith(answered(operation, success), '{"data":[],"meta" :{},"meta" :{}}'),
      findings: [{ requirement: 'RES-MEMBER-NAMES-UNIQUE', pointer: '' }],
    },
  ];
}

// --- A list whose required filter has a member of allowed values --------------------------------

/** A list whose required filter has a member of allowed values, and that lists neither 204 nor 404. */
const filteredList = lists.find(
  (o) => filterRequired(o) && servedFilterMember(o) !== undefined && ![204, 404].some((s) => o.statuses.includes(s)),
);
const FILTERED_LIST = 'list whose required filter has a member of allowed values and that lists neither 204 nor 404';

function listCases(list: Operation): CheckCase[] {
  const member = servedFilterMember(list)!;
  const filter = `filter[${member.name}]`;
  const valid = listQuery(list);
  /** A query whose filter value is none the list allows. */
  const outside = `${filter}=not-${member.values[0]}`;
  const badFilter = servingBreaks(list, filter, 'enum');
  const paged = (limit: number, offset: number) => listQuery(list, { limit, offset });
  const { roles } = list;
  const listing = (query: string, status: number, body?: unknown, headers: Headers = credentials) =>
    exchange(list, 'GET', pathOf(list, query), headers, undefined, status, body);
  /** Items of the list, as its case file's complete example has them, numbered from `from`. */
  const items = (count: number, from = 0): Record<string, unknown>[] =>
    Array.from({ length: count }, (_, i) => ({
      ...itemExample(list),
      id: (from + i).toString(16).padStart(24, '0'),
    }));
  /** An attribute of the list's items that takes any string, if they have one. */
  const text = listItemAttributes(list).find((a) => a.schema.type === 'string' && a.schema.enum === undefined)?.name;
  const [item] = items(1);
  const readingOnePointZero =
    text === undefined ? item : { ...item, attributes: { ...(item.attributes as object), [text]: '1.0' } };
  return [
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials and a valid request answered 400',
      exchange: listing(valid, 400, errors({ status: '400' }), {}),
      findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
    },
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials and an invalid request answered 400 (validated first)',
      exchange: listing(outside, 400, errors({ status: '400' }), {}),
      findings: [{ requirement: 'AUTH-401-BEFORE-400', pointer: '' }],
    },

    {
      check: 'invalidAnswered2xx',
      description: 'a filter value the list does not allow answered 200',
      exchange: listing(outside, 200, page([])),
      findings: [{ requirement: badFilter, pointer: filter }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a valid request answered 200',
      exchange: listing(paged(2, 0), 200, page([])),
      findings: [],
      held: [],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'an invalid request answered 400',
      exchange: listing(outside, 400, errors({ status: '400' })),
      findings: [],
      held: [badFilter],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'an invalid request answered 401: refused for its credentials, its content not judged',
      exchange: listing(outside, 401, errors({ status: '401' })),
      findings: [],
      held: [],
      unjudged: [badFilter],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'an invalid request with malformed credentials answered 400: its content not judged',
      exchange: listing(outside, 400, errors({ status: '400' }), { authorization: 'Token x' }),
      findings: [],
      held: [],
      unjudged: ['AUTH-401-MALFORMED', badFilter],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a filter value the list does not allow answered 404, a status the list does not list',
      exchange: listing(outside, 404, errors({ status: '404' })),
      findings: [{ requirement: badFilter, pointer: filter }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'an invalid filter answered 429 (a rate limit): not judged',
      exchange: listing(outside, 429, errors({ status: '429' })),
      findings: [],
      held: [],
      unjudged: [badFilter],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'missing credentials alone (reported by unauthenticatedNot401)',
      exchange: listing(valid, 200, page([]), {}),
      findings: [],
    },

    {
      check: 'serverError',
      description: 'a missing filter answered 503',
      exchange: listing('', 503),
      findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
    },

    {
      check: 'unlistedSuccess',
      description: 'a valid list answered 204',
      exchange: listing(valid, 204),
      findings: [{ requirement: roles.success!, pointer: '' }],
    },

    {
      check: 'statusListed',
      description: 'a list answered 404',
      exchange: listing(valid, 404, errors({ status: '404' })),
      findings: [{ requirement: 'EXCH-STATUS-LISTED', pointer: '' }],
    },

    {
      check: 'errorSourceParameterNamed',
      description: 'a query error without source.parameter',
      exchange: listing(outside, 400, errors({ status: '400', title: 'Bad filter' })),
      findings: [{ requirement: sourceParameter, pointer: '/errors' }],
    },
    {
      check: 'errorSourceParameterNamed',
      description: 'another parameter named',
      exchange: listing(outside, 400, errors({ source: { parameter: 'page[limit]' } })),
      findings: [{ requirement: sourceParameter, pointer: '/errors' }],
    },
    {
      check: 'errorSourceParameterNamed',
      description: 'the member named',
      exchange: listing(outside, 400, errors({ source: { parameter: filter } })),
      findings: [],
      held: [sourceParameter],
    },
    {
      check: 'errorSourceParameterNamed',
      description: 'the parameter named',
      exchange: listing(paged(0, 0), 400, errors({ source: { parameter: 'page' } })),
      findings: [],
    },

    {
      check: 'listPageArithmetic',
      description: 'a consistent middle page',
      exchange: listing(
        paged(10, 10),
        200,
        page(items(10, 10), { total: 25, pages: 3, page: 2, offset: 10, limit: 10 }),
      ),
      findings: [],
      held: [
        roles.metaOffsetEcho!,
        roles.metaLimitEffective!,
        roles.metaPages!,
        roles.pageLength!,
        roles.metaPageNumber!,
        roles.metaDeprecatedPresent!,
      ],
      unjudged: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'a consistent last page',
      exchange: listing(
        paged(10, 20),
        200,
        page(items(5, 20), { total: 25, pages: 3, page: 3, offset: 20, limit: 10 }),
      ),
      findings: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'an empty result reporting 0 pages',
      exchange: listing(valid, 200, page([], { total: 0, pages: 0, page: 1, offset: 0, limit: 20 })),
      findings: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'an empty result reporting 1 page',
      exchange: listing(valid, 200, page([], { total: 0, pages: 1, page: 1, offset: 0, limit: 20 })),
      findings: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'a server cap below the requested limit, reported in meta.limit',
      exchange: listing(paged(500, 0), 200, page(items(100), { total: 250, pages: 3, page: 1, offset: 0, limit: 100 })),
      findings: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'no meta and no more items than the limit',
      exchange: listing(paged(3, 0), 200, page(items(3))),
      findings: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'no meta and more items than the limit',
      exchange: listing(paged(2, 0), 200, page(items(3))),
      findings: [{ requirement: roles.pageLength!, pointer: '/data' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'a full page where the last holds 5',
      exchange: listing(
        paged(10, 20),
        200,
        page(items(10, 20), { total: 25, pages: 3, page: 3, offset: 20, limit: 10 }),
      ),
      findings: [{ requirement: roles.pageLength!, pointer: '/data' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'an empty page where items were due',
      exchange: listing(paged(10, 10), 200, page([], { total: 25, pages: 3, page: 2, offset: 10, limit: 10 })),
      findings: [{ requirement: roles.pageLength!, pointer: '/data' }],
    },
    {
      check: 'listPageArithmetic',
      description:
        'a shorter page, as from a page size cap meta.limit does not report (maximum page size is not shown)',
      exchange: listing(paged(10, 0), 200, page(items(4), { total: 25, pages: 3, page: 1, offset: 0, limit: 10 })),
      findings: [{ requirement: roles.metaLimitEffective!, pointer: '/meta/limit' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.offset other than requested',
      exchange: listing(
        paged(10, 10),
        200,
        page(items(10, 10), { total: 25, pages: 3, page: 2, offset: 0, limit: 10 }),
      ),
      findings: [{ requirement: roles.metaOffsetEcho!, pointer: '/meta/offset' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.limit above the requested limit',
      exchange: listing(paged(5, 0), 200, page(items(5), { total: 25, pages: 3, page: 1, offset: 0, limit: 10 })),
      findings: [{ requirement: roles.metaLimitEffective!, pointer: '/meta/limit' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.pages rounded down',
      exchange: listing(paged(10, 0), 200, page(items(10), { total: 25, pages: 2, page: 1, offset: 0, limit: 10 })),
      findings: [{ requirement: roles.metaPages!, pointer: '/meta/pages' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.limit 0 and meta.pages 999 on a page that asked for 10',
      exchange: listing(paged(10, 0), 200, page(items(10), { total: 25, pages: 999, page: 1, offset: 0, limit: 0 })),
      findings: [
        { requirement: roles.metaLimitEffective!, pointer: '/meta/limit' },
        { requirement: roles.metaPages!, pointer: '/meta/pages' },
      ],
      held: [roles.metaOffsetEcho!, roles.pageLength!, roles.metaPageNumber!, roles.metaDeprecatedPresent!],
      unjudged: [],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.limit 0 where the request gave no page[limit]: length and page number not judged',
      exchange: listing(valid, 200, page(items(10), { total: 25, pages: 3, page: 1, offset: 0, limit: 0 })),
      findings: [
        { requirement: roles.metaLimitEffective!, pointer: '/meta/limit' },
        { requirement: roles.metaPages!, pointer: '/meta/pages' },
      ],
      held: [roles.metaDeprecatedPresent!],
      unjudged: [roles.pageLength!, roles.metaPageNumber!],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.limit 0 on an empty result: no page count is wrong, the limit still is',
      exchange: listing(paged(10, 0), 200, page([], { total: 0, pages: 0, page: 1, offset: 0, limit: 0 })),
      findings: [{ requirement: roles.metaLimitEffective!, pointer: '/meta/limit' }],
      held: [
        roles.metaOffsetEcho!,
        roles.metaPages!,
        roles.pageLength!,
        roles.metaPageNumber!,
        roles.metaDeprecatedPresent!,
      ],
    },
    {
      check: 'listPageArithmetic',
      description: 'one item where meta.total says 0',
      exchange: listing(paged(10, 0), 200, page(items(1), { total: 0, pages: 0, page: 1, offset: 0, limit: 10 })),
      findings: [{ requirement: roles.pageLength!, pointer: '/data' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'a negative meta.total: a finding of its own; pages and length not judged from it',
      exchange: listing(paged(10, 0), 200, page(items(3), { total: -3, pages: 0, page: 1, offset: 0, limit: 10 })),
      findings: [{ requirement: roles.metaTotal!, pointer: '/meta/total' }],
      unjudged: [roles.metaPages!, roles.pageLength!, roles.metaPageNumber!],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.limit a string: the schema reports it; the length is judged by page[limit] alone',
      exchange: listing(paged(2, 0), 200, {
        data: items(2),
        meta: { total: 25, pages: 13, page: 1, offset: 0, limit: '2' },
      }),
      findings: [],
      held: [roles.pageLength!, roles.metaDeprecatedPresent!],
      unjudged: [roles.metaPages!, roles.metaPageNumber!, roles.metaOffsetEcho!, roles.metaLimitEffective!],
    },
    {
      check: 'listPageArithmetic',
      description: 'no meta and no page[limit]: the length is not judged',
      exchange: listing(valid, 200, page(items(3))),
      findings: [],
      held: [],
      unjudged: [roles.pageLength!],
    },
    {
      check: 'listPageArithmetic',
      description: 'no data array',
      exchange: listing(paged(2, 0), 200, { meta: { total: 0 } }),
      findings: [],
      held: [],
      unjudged: [roles.pageLength!],
    },
    {
      check: 'listPageArithmetic',
      description: 'meta.page counted from 0',
      exchange: listing(
        paged(10, 20),
        200,
        page(items(5, 20), { total: 25, pages: 3, page: 2, offset: 20, limit: 10 }),
      ),
      findings: [{ requirement: roles.metaPageNumber!, pointer: '/meta/page' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'deprecated members that agree',
      exchange: listing(
        paged(10, 0),
        200,
        page(items(10), {
          total: 25,
          pages: 3,
          page: 1,
          offset: 0,
          limit: 10,
          totalCount: 25,
          totalPages: 3,
          currentPage: 1,
          resultCount: 10,
        }),
      ),
      findings: [{ requirement: roles.metaDeprecatedPresent!, pointer: '/meta' }],
    },
    {
      check: 'listPageArithmetic',
      description: 'a deprecated member that disagrees with its replacement',
      exchange: listing(
        paged(10, 0),
        200,
        page(items(10), { total: 25, pages: 3, page: 1, offset: 0, limit: 10, totalCount: 10 }),
      ),
      findings: [
        { requirement: roles.metaDeprecatedPresent!, pointer: '/meta' },
        { requirement: roles.metaDeprecatedAgree!, pointer: '/meta/totalCount' },
      ],
    },

    {
      check: 'integerForm',
      description: 'meta written as plain integers, a string attribute that reads 1.0',
      exchange: listing(
        paged(10, 0),
        200,
        page([readingOnePointZero], { total: 1, pages: 1, page: 1, offset: 0, limit: 10 }),
      ),
      findings: [],
      held: [integerForm],
    },
    {
      check: 'integerForm',
      description: 'a list without meta: nothing typed integer to judge',
      exchange: listing(valid, 200, page(items(1))),
      findings: [],
      held: [],
    },
    {
      check: 'integerForm',
      description: 'meta members written 1.0, 1e0 and 0e0',
      exchange: answeredWith(
        listing(paged(10, 0), 200),
        `{"data":${JSON.stringify(items(1))},"meta":{"total":1.0,"pages":1e0,"page":1,"offset":0e0,"limit":10}}`,
      ),
      findings: [
        { requirement: integerForm, pointer: '/meta/total' },
        { requirement: integerForm, pointer: '/meta/pages' },
        { requirement: integerForm, pointer: '/meta/offset' },
      ],
    },
  ];
}

// --- A create taking typed attributes -----------------------------------------------------------

const ATTRIBUTE = /^\/data\/attributes\/[^/]+$/;
/** The attributes of a create's document that take one JSON type, in the schema's order. */
const typedAttributes = (operation: Operation) =>
  bodyMembers(operation).filter((m) => ATTRIBUTE.test(m.pointer) && m.types.length === 1);
/** Of those, the ones that take any string and name no record. */
const textAttributes = (operation: Operation) =>
  typedAttributes(operation).filter(
    (m) => m.types[0] === 'string' && m.const === undefined && m.enum === undefined && m.record === undefined,
  );
/** Whether the member at `pointer` of a create's document is required. */
const requiredAt = (operation: Operation, pointer: string) =>
  bodyMembers(operation).some((m) => m.pointer === pointer && m.required);
/** A value of a type the member does not take. */
const wrongValue = (member: BodyMember) => SAMPLE_OF_TYPE[wrongTypes(member)[0]];
const nameOf = (member: BodyMember) => unescapeToken(member.pointer.slice(member.pointer.lastIndexOf('/') + 1));

/**
 * The created resource of a document: its data with an id and the attributes only the server sets (a sample of each
 * one's type).
 */
function createdOf(operation: Operation, document: unknown): { data: Record<string, unknown> } {
  const { data } = structuredClone(document) as { data: Record<string, unknown> };
  const set = Object.fromEntries(serverAttributes(operation).map((m) => [m.name, SAMPLE_OF_TYPE[m.types[0]]]));
  return { data: { ...data, id: createdId, attributes: { ...(data.attributes as object), ...set } } };
}

/**
 * A create taking two attributes of one JSON type, one of them any string, that echoes its attributes, needs no
 * relationships, lists 202 and 409 but neither 200 nor 422.
 */
const typedCreate = creates.find(
  (o) =>
    typedAttributes(o).length >= 2 &&
    textAttributes(o).length > 0 &&
    o.roles.attributesEcho !== undefined &&
    !requiredAt(o, '/data/relationships') &&
    [202, 409].every((s) => o.statuses.includes(s)) &&
    ![200, 422].some((s) => o.statuses.includes(s)),
);
const TYPED_CREATE =
  'create taking two attributes of one JSON type, one a string, that echoes them, needs no relationships and lists 202 and 409 but not 200 nor 422';

function createCases(create: Operation): CheckCase[] {
  const [first, second] = typedAttributes(create);
  const text = textAttributes(create)[0];
  /** The create's complete example without relationships: a valid document holding every attribute. */
  const document = withoutValueAt(documentExample(create), '/data/relationships');
  const mismatched = withValueAt(document, first.pointer, wrongValue(first));
  const mismatch = servingBreaks(create, first.pointer, 'type');
  const creation = (sent: unknown, status: number, body?: unknown, headers: Headers = { ...credentials, ...jsonApi }) =>
    exchange(create, 'POST', pathOf(create), headers, sent, status, body);
  const created = createdOf(create, document);
  return [
    {
      check: 'unauthenticatedNot401',
      description: 'no credentials on a create answered 404',
      exchange: creation(document, 404, errors({ status: '404' }), jsonApi),
      findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
    },

    {
      check: 'invalidAnswered2xx',
      description: 'two type mismatches answered 201 count once',
      exchange: creation(withValueAt(mismatched, second.pointer, wrongValue(second)), 201, created),
      findings: [{ requirement: mismatch, pointer: first.pointer }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a body sent as application/json answered 201: serving it only warns',
      exchange: creation(document, 201, created, { ...credentials, 'content-type': 'application/json' }),
      findings: [{ requirement: 'MEDIA-TYPE-REQUEST-415', pointer: '' }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a type mismatch answered 422, a refusal the contract names for no condition',
      exchange: creation(mismatched, 422, errors({ status: '422' })),
      findings: [{ requirement: mismatch, pointer: first.pointer }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a wrong data.type answered 409, a status the create lists',
      exchange: creation(
        withValueAt(document, '/data/type', `Not${create.resourceType}`),
        409,
        errors({ status: '409' }),
      ),
      findings: [],
      held: [servingBreaks(create, '/data/type', 'const')],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a type mismatch answered 413, a generic status that says nothing about it',
      exchange: creation(mismatched, 413, errors({ status: '413' })),
      findings: [],
      held: [],
      unjudged: [mismatch],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a type mismatch answered 404, listed but for conditions not shown: not judged',
      exchange: creation(mismatched, 404, errors({ status: '404' })),
      findings: [],
      held: [],
      unjudged: [mismatch],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a type mismatch answered 409, which the catalogue names for a data.type only: not judged',
      exchange: creation(mismatched, 409, errors({ status: '409' })),
      findings: [],
      held: [],
      unjudged: [mismatch],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a body in another media type answered 415, the generic status the catalogue names for it',
      exchange: creation(document, 415, errors({ status: '415' }), {
        ...credentials,
        'content-type': 'application/json',
      }),
      findings: [],
      held: ['MEDIA-TYPE-REQUEST-415'],
      unjudged: [],
    },

    {
      check: 'serverError',
      description: 'malformed JSON answered 500',
      exchange: creation('{"data":', 500),
      findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
    },
    {
      check: 'serverError',
      description: 'an invalid request answered 400',
      exchange: creation('{"data":', 400, errors({ status: '400' })),
      findings: [],
      held: ['ERR-NO-5XX'],
    },

    {
      check: 'unlistedSuccess',
      description: 'a valid create answered 200',
      exchange: creation(document, 200, created),
      findings: [{ requirement: create.roles.success!, pointer: '' }],
    },
    {
      check: 'unlistedSuccess',
      description: 'a valid create answered 202',
      exchange: creation(document, 202),
      findings: [],
      held: [create.roles.success!],
    },
    {
      check: 'unlistedSuccess',
      description: 'an invalid create answered 200 (judged under what the request broke)',
      exchange: creation(mismatched, 200, created),
      findings: [],
    },

    {
      check: 'statusListed',
      description: 'a create answered 422',
      exchange: creation(document, 422, errors({ status: '422' })),
      findings: [{ requirement: 'EXCH-STATUS-LISTED', pointer: '' }],
    },
    {
      check: 'statusListed',
      description: 'a create answered 409, a listed status',
      exchange: creation(document, 409, errors({ status: '409' })),
      findings: [],
      held: ['EXCH-STATUS-LISTED'],
    },
    {
      check: 'statusListed',
      description: 'a type mismatch answered 422 (judged by invalidAnswered2xx, once)',
      exchange: creation(mismatched, 422, errors({ status: '422' })),
      findings: [],
    },
    {
      check: 'statusListed',
      description: 'a create answered 415, a generic status',
      exchange: creation(document, 415, errors({ status: '415' })),
      findings: [],
    },

    {
      check: 'errorSourcePointerResolves',
      description: 'a pointer into a string',
      exchange: creation(
        withValueAt(document, text.pointer, 'yellow'),
        400,
        errors({ source: { pointer: `${text.pointer}/0` } }),
      ),
      findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/0/source/pointer' }],
    },
    {
      check: 'errorSourcePointerResolves',
      description: 'a pointer without its leading slash',
      exchange: creation(document, 409, errors({}, { source: { pointer: 'data/type' } })),
      findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/1/source/pointer' }],
    },
    {
      check: 'errorSourcePointerResolves',
      description: 'a pointer under a member that is not there',
      exchange: creation(document, 400, errors({ source: { pointer: '/data/relationships/absent/data/type' } })),
      findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/0/source/pointer' }],
    },
    {
      check: 'errorSourcePointerResolves',
      description: 'a pointer to a member that is there',
      exchange: creation(withValueAt(document, text.pointer, 7), 400, errors({ source: { pointer: text.pointer } })),
      findings: [],
      held: ['ERR-SOURCE-POINTER'],
    },
    {
      check: 'errorSourcePointerResolves',
      description: 'a pointer to a missing member of an object that is there',
      exchange: creation(
        withoutValueAt(document, '/data/attributes'),
        400,
        errors({ source: { pointer: '/data/attributes' } }),
      ),
      findings: [],
    },
    {
      check: 'errorSourcePointerResolves',
      description: 'the empty pointer, the whole document',
      exchange: creation('[]', 400, errors({ source: { pointer: '' } })),
      findings: [],
    },

    {
      check: 'errorSourceParameterNamed',
      description: 'a body error, not a query error',
      exchange: creation(withValueAt(document, text.pointer, 7), 400, errors({ source: { pointer: text.pointer } })),
      findings: [],
      held: [],
    },

    {
      check: 'createdResourceEchoes',
      description: 'attributes echoed, those only the server sets added',
      exchange: creation(document, 201, created),
      findings: [],
      held: [create.roles.attributesEcho!],
    },
    {
      check: 'createdResourceEchoes',
      description: 'a string attribute changed',
      exchange: creation(
        withValueAt(document, text.pointer, 'Consent'),
        201,
        withValueAt(created, text.pointer, 'consent'),
      ),
      findings: [{ requirement: create.roles.attributesEcho!, pointer: text.pointer }],
    },
    {
      check: 'createdResourceEchoes',
      description: 'an attribute dropped',
      exchange: creation(document, 201, withoutValueAt(created, text.pointer)),
      findings: [{ requirement: create.roles.attributesEcho!, pointer: text.pointer }],
    },

    {
      check: 'acceptedWithoutBody',
      description: 'a create answered 202',
      exchange: creation(document, 202),
      findings: [{ requirement: 'CREATE-202-ACCEPTED', pointer: '' }],
    },
    {
      check: 'acceptedWithoutBody',
      description: 'a create answered 201',
      exchange: creation(document, 201, created),
      findings: [],
    },
  ];
}

// --- A create with a relationship to an identifier of a fixed type ------------------------------

const RELATIONSHIP_TYPE = /^\/data\/relationships\/([^/]+)\/data\/type$/;

/** A create's relationship whose identifier has a fixed type: its pointer and that type. */
function fixedRelationship(operation: Operation): { pointer: string; type: string } | undefined {
  const member = bodyMembers(operation).find((m) => RELATIONSHIP_TYPE.test(m.pointer) && typeof m.const === 'string');
  return member && { pointer: member.pointer.slice(0, -'/data/type'.length), type: member.const as string };
}

/**
 * A create with a relationship to an identifier of a fixed type, that echoes its attributes and relationships, whose
 * relationship names beyond those it defines are not shown, and that needs no attributes.
 */
const relatingCreate = creates.find(
  (o) =>
    fixedRelationship(o) !== undefined &&
    o.roles.attributesEcho !== undefined &&
    o.roles.relationshipsEcho !== undefined &&
    namesShownAt(o.requestBody!, '/data/relationships') !== undefined &&
    !requiredAt(o, '/data/attributes'),
);
const RELATING_CREATE =
  'create with a relationship of a fixed type that echoes attributes and relationships, relationship names not shown, needing no attributes';

function relationshipCases(create: Operation): CheckCase[] {
  const { pointer: relationship, type } = fixedRelationship(create)!;
  const echo = create.roles.relationshipsEcho!;
  const example = withValueAt(documentExample(create), `${relationship}/data`, { id: userId, type });
  /** The example without attributes: only relationships sent. */
  const document = withoutValueAt(example, '/data/attributes');
  const creation = (sent: unknown, status: number, body?: unknown) =>
    exchange(create, 'POST', pathOf(create), { ...credentials, ...jsonApi }, sent, status, body);
  const created = createdOf(create, document);
  const wrongLinks = withValueAt(document, `${relationship}/links`, 5);
  const linksRefused = servingBreaks(create, `${relationship}/links`, 'type');
  return [
    {
      check: 'invalidAnswered2xx',
      description: 'an identifier of another type answered 201',
      exchange: creation(withValueAt(document, `${relationship}/data/type`, `Not${type}`), 201, created),
      findings: [
        {
          requirement: servingBreaks(create, `${relationship}/data/type`, 'const'),
          pointer: `${relationship}/data/type`,
        },
      ],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a wrong-type relationship links answered 201: at the level serving it breaks',
      exchange: creation(wrongLinks, 201, created),
      findings: [{ requirement: linksRefused, pointer: `${relationship}/links` }],
    },
    {
      check: 'invalidAnswered2xx',
      description: 'a wrong-type relationship links answered 422: at the level serving it breaks',
      exchange: creation(wrongLinks, 422, errors({ status: '422' })),
      findings: [{ requirement: linksRefused, pointer: `${relationship}/links` }],
    },

    {
      check: 'createdResourceEchoes',
      description: 'a relationship replaced',
      exchange: creation(document, 201, withValueAt(created, `${relationship}/data/id`, '60a7c0f2e4b0c83d2f9a1b99')),
      findings: [{ requirement: echo, pointer: `${relationship}/data` }],
    },
    {
      check: 'createdResourceEchoes',
      description: 'a relationship dropped',
      exchange: creation(document, 201, withoutValueAt(created, '/data/relationships')),
      findings: [{ requirement: echo, pointer: `${relationship}/data` }],
    },
    {
      check: 'createdResourceEchoes',
      description: 'a relationship echoed without the links and meta sent, with links of its own (optional members)',
      exchange: creation(
        withValueAt(withValueAt(document, `${relationship}/links`, { self: '/a' }), `${relationship}/meta`, {
          note: 'x',
        }),
        201,
        withValueAt(withoutValueAt(created, `${relationship}/meta`), `${relationship}/links`, {
          related: '/v3/users/1',
        }),
      ),
      findings: [],
    },
    // Which relationship names the create has beside those it defines is not shown (x-names-not-shown): one of another
    // name may be dropped.
    {
      check: 'createdResourceEchoes',
      description: 'a relationship the specification does not name, dropped',
      exchange: creation(withValueAt(document, '/data/relationships/ ', { data: null }), 201, created),
      findings: [],
      held: [echo],
    },
    {
      check: 'createdResourceEchoes',
      description: 'attributes and relationships echoed',
      exchange: creation(example, 201, createdOf(create, example)),
      findings: [],
      held: [create.roles.attributesEcho!, echo],
    },
  ];
}

// --- A list naming no requirement for a role only a later contract names -------------------------

const unmatchedList = lists.find((o) => o.roles.filterMatch === undefined);
const UNMATCHED_LIST = 'list naming no requirement for the role filterMatch';

function unmatchedListCases(list: Operation): CheckCase[] {
  return [
    {
      check: 'itemsMatchFilter',
      description: 'a list naming no requirement for the role: not applied',
      exchange: exchange(list, 'GET', pathOf(list, listQuery(list)), credentials, undefined, 200, {
        data: [{ ...itemExample(list), id: '64e5f6a7b8c9d0e1f2a3b4c6' }],
      }),
      findings: [],
      held: [],
      unjudged: [],
    },
  ];
}

// --- Traffic outside the contract's operations --------------------------------------------------

const unspecified = (status: number, headers: Headers, body?: unknown) =>
  exchange(null, 'GET', `${contract.basePath}/portal-stores`, headers, undefined, status, body);

const outsideCases: CheckCase[] = [
  {
    check: 'unauthenticatedNot401',
    description: "no credentials outside the contract's operations (which are public is not shown)",
    exchange: unspecified(200, {}, { data: [] }),
    findings: [],
  },
  {
    check: 'serverError',
    description: "a 500 outside the contract's operations (their statuses are not shown)",
    exchange: unspecified(500, credentials),
    findings: [],
  },
];

// --- Roles only a later contract names ----------------------------------------------------------

// The roles only a later contract names (a filter whose meaning it states, include names it
// defines) are judged on the proof's grown contract: its list of shades.
const grown = grownContract();
const shadeListing = (query: string, body: unknown) => {
  const shadesList = grown.operation('zzProofListShades');
  return exchange(
    shadesList,
    'GET',
    pathOf(shadesList, query, grown),
    credentials,
    undefined,
    200,
    body,
    jsonApi,
    grown,
  );
};
const shades = (tone: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: (0x50 + i).toString(16).padStart(24, '0'),
    type: 'ZzProofShade',
    attributes: { tone, name: `Shade ${i}`, collectionItemId: userId },
  }));
const maker = { id: '64e5f6a7b8c9d0e1f2a3b4c5', type: 'ZzProofMaker', attributes: { name: 'Maker' } };
const grownCases: CheckCase[] = [
  {
    check: 'itemsMatchFilter',
    description: 'an item whose tone is not the one the filter asked for',
    within: grown,
    exchange: shadeListing('filter[tone]=warm', page([...shades('warm', 1), ...shades('cool', 1)])),
    findings: [{ requirement: 'ZZPROOF-SH-FILTER-MATCH', pointer: '/data/1/attributes/tone' }],
  },
  {
    check: 'itemsMatchFilter',
    description: 'an item naming another collection item than the optional member sent',
    within: grown,
    exchange: shadeListing(
      'filter[tone]=warm&filter[collectionItemId]=000000000000000000000000',
      page(shades('warm', 1)),
    ),
    findings: [{ requirement: 'ZZPROOF-SH-FILTER-MATCH', pointer: '/data/0/attributes/collectionItemId' }],
  },
  {
    check: 'itemsMatchFilter',
    description: 'every item agreeing with both members sent',
    within: grown,
    exchange: shadeListing(`filter[tone]=cool&filter[collectionItemId]=${userId}`, page(shades('cool', 2))),
    findings: [],
    held: ['ZZPROOF-SH-FILTER-MATCH'],
  },
  {
    check: 'itemsMatchFilter',
    description: 'no item to compare: not judged',
    within: grown,
    exchange: shadeListing('filter[tone]=cool', page([])),
    findings: [],
    held: [],
    unjudged: ['ZZPROOF-SH-FILTER-MATCH'],
  },
  {
    check: 'includeHonoured',
    description: 'a defined include name answered with items and no included',
    within: grown,
    exchange: shadeListing('filter[tone]=warm&include=maker', page(shades('warm', 1))),
    findings: [{ requirement: 'ZZPROOF-SH-INCLUDE-HONOURED', pointer: '/included' }],
  },
  {
    check: 'includeHonoured',
    description: 'a defined include name answered with its resource in included',
    within: grown,
    exchange: shadeListing('filter[tone]=warm&include=maker', { ...page(shades('warm', 1)), included: [maker] }),
    findings: [],
    held: ['ZZPROOF-SH-INCLUDE-HONOURED'],
  },
  {
    check: 'includeHonoured',
    description: 'an empty page: nothing to include, not judged',
    within: grown,
    exchange: shadeListing('filter[tone]=warm&include=maker', page([])),
    findings: [],
    held: [],
    unjudged: ['ZZPROOF-SH-INCLUDE-HONOURED'],
  },
];

const groups: CaseGroup[] = [
  { what: 'operation of any kind', operation: contract.operations[0], cases: anyOperationCases },
  { what: FILTERED_LIST, operation: filteredList, cases: listCases },
  { what: TYPED_CREATE, operation: typedCreate, cases: createCases },
  { what: RELATING_CREATE, operation: relatingCreate, cases: relationshipCases },
  { what: UNMATCHED_LIST, operation: unmatchedList, cases: unmatchedListCases },
];
const built = groups.map((group) => ({ ...group, built: group.operation && group.cases(group.operation) }));
/** Every case the contract has the operations for. */
const cases = [...outsideCases, ...grownCases, ...built.flatMap((group) => group.built ?? [])];
/** The kinds of operation the contract no longer holds. */
const missing = built.filter((group) => group.built === undefined).map((group) => group.what);

interface CheckRun {
  findings: Finding[];
  held: string[];
  unjudged: string[];
}

function runCheck(name: string, x: Exchange, within: Contract): CheckRun {
  const check = exchangeChecks.find((c) => c.name === name);
  if (!check) throw new Error(`no exchange check named ${name}`);
  const held = new Set<string>();
  const unjudged = new Set<string>();
  const verdict: CheckVerdict = { held: (id) => held.add(id), cannotJudge: (id) => unjudged.add(id) };
  const findings = check.appliesTo(x) ? check.run(within, x, {}, verdict) : [];
  return { findings, held: [...held], unjudged: [...unjudged] };
}

const sorted = (ids: string[]) => [...ids].sort();
const article = (what: string) => (/^[aeiou]/.test(what) ? 'an' : 'a');

function caseTest(c: CheckCase): void {
  it(`${c.check}: ${c.description}`, () => {
    const run = runCheck(c.check, c.exchange, c.within ?? contract);
    expect(run.findings.map(({ requirement, pointer }) => ({ requirement, pointer }))).toEqual(c.findings);
    if (c.held) expect(sorted(run.held), 'held').toEqual(sorted(c.held));
    if (c.unjudged) expect(sorted(run.unjudged), 'not judged').toEqual(sorted(c.unjudged));
    // What a check judges is the catalogue's to bind (judgedBy): assessChecks refuses anything else.
    expect(() => assessChecks(c.within ?? contract, c.exchange)).not.toThrow();
  });
}

describe('exchange checks', () => {
  describe('outside the contract', () => outsideCases.forEach(caseTest));
  describe('on the roles of the grown contract', () => grownCases.forEach(caseTest));
  for (const group of built)
    describeWith(group.operation, group.what)(`on ${article(group.what)} ${group.what}`, () =>
      group.built!.forEach(caseTest),
    );

  for (const check of exchangeChecks) {
    const own = cases.filter((c) => c.check === check.name);
    const covered = own.some((c) => c.findings.length > 0) && own.some((c) => c.findings.length === 0);
    const title = `${check.name} has a case where it fires and one where it holds`;
    // A check whose cases all need a kind of operation the contract no longer holds is skipped, saying which.
    if (!covered && missing.length > 0) it.skip(`${title} (${noneLeft(missing.join(', nor '))})`, () => undefined);
    else
      it(title, () => {
        expect(
          own.some((c) => c.findings.length > 0),
          'a firing case',
        ).toBe(true);
        expect(
          own.some((c) => c.findings.length === 0),
          'a holding case',
        ).toBe(true);
      });
  }

  itWith(filteredList, FILTERED_LIST)(
    'report at the exchange location what the request and response show together',
    (list) => {
      const member = servedFilterMember(list)!;
      const filter = `filter[${member.name}]`;
      const x = exchange(list, 'GET', pathOf(list, `${filter}=not-${member.values[0]}`), {}, undefined, 200, page([]));
      expect(checkExchange(contract, x).map(({ requirement, location }) => ({ requirement, location }))).toEqual([
        { requirement: 'AUTH-401-NO-CREDENTIALS', location: 'exchange' },
        { requirement: servingBreaks(list, filter, 'enum'), location: 'exchange' },
      ]);
    },
  );

  itWith(typedCreate, TYPED_CREATE)('keep sent values out of echo messages when asked', (create) => {
    const text = textAttributes(create)[0];
    const document = withoutValueAt(documentExample(create), '/data/relationships');
    const sent = withValueAt(document, text.pointer, 'Consent');
    const x = exchange(
      create,
      'POST',
      pathOf(create),
      { ...credentials, ...jsonApi },
      sent,
      201,
      withValueAt(createdOf(create, sent), text.pointer, 'Other'),
    );
    expect(checkExchange(contract, x, { includeValues: false }).map((f) => f.message)).toEqual([
      `attribute ${nameOf(text)} did not come back as it was sent`,
    ]);
  });
});
