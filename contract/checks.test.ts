// Each exchange check has cases that make it fire and cases where it holds; the request
// findings come from validateRequest, as the proxy and the suite produce them.
import { describe, expect, it } from 'vitest';
import { grownContract } from '../test-support/grown-contract.ts';
import {
  assessChecks,
  checkExchange,
  exchangeChecks,
  loadContract,
  MEDIA_TYPE,
  validateGenericRequest,
  validateRequest,
  type CheckVerdict,
  type Contract,
  type Exchange,
  type Finding,
  type Headers,
} from './index.ts';

const contract = loadContract();
const credentials = { authorization: 'Bearer p:token' };
const jsonApi = { 'content-type': MEDIA_TYPE };
const userId = '60a7c0f2e4b0c83d2f9a1b23';

function exchange(
  operationId: string | null,
  method: string,
  path: string,
  requestHeaders: Headers,
  requestBody: unknown,
  status: number,
  responseBody?: unknown,
  responseHeaders: Headers = jsonApi,
  within: Contract = contract,
): Exchange {
  const operation = operationId === null ? null : within.operation(operationId);
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

// The roles only a later contract names (a filter whose meaning it states, include names it
// defines) are judged on the proof's grown contract: its list of shades.
const grown = grownContract();
const shadeListing = (query: string, body: unknown) =>
  exchange(
    'zzProofListShades',
    'GET',
    `/v3/zz-proof-shades?${query}`,
    credentials,
    undefined,
    200,
    body,
    jsonApi,
    grown,
  );
const shades = (tone: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: (0x50 + i).toString(16).padStart(24, '0'),
    type: 'ZzProofShade',
    attributes: { tone, name: `Shade ${i}`, collectionItemId: userId },
  }));
const maker = { id: '64e5f6a7b8c9d0e1f2a3b4c5', type: 'ZzProofMaker', attributes: { name: 'Maker' } };

const listing = (query: string, status: number, body?: unknown, headers: Headers = credentials) =>
  exchange('listNotificationGroups', 'GET', `/v3/notification-groups?${query}`, headers, undefined, status, body);
const configCreation = (attributes: unknown, status: number, body?: unknown) =>
  exchange(
    'createAttributeConfig',
    'POST',
    '/v3/attribute-configs',
    { ...credentials, ...jsonApi },
    { data: { type: 'AttributeConfig', attributes } },
    status,
    body,
  );
const highlightCreation = (
  data: Record<string, unknown>,
  status: number,
  body?: unknown,
  headers: Headers = { ...credentials, ...jsonApi },
) =>
  exchange(
    'createHighlight',
    'POST',
    '/v3/highlights',
    headers,
    { data: { type: 'Highlight', ...data } },
    status,
    body,
  );
const rawHighlightCreation = (bodyText: string, status: number, body?: unknown) =>
  exchange('createHighlight', 'POST', '/v3/highlights', { ...credentials, ...jsonApi }, bodyText, status, body);

const groups = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({
    id: (from + i).toString(16).padStart(24, '0'),
    type: 'NotificationGroup',
    attributes: { groupId: 'Exams', label: `Group ${from + i}`, defaultValue: false, description: 'Exams' },
  }));
const page = (data: unknown[], meta?: Record<string, number>) => ({ data, ...(meta ? { meta } : {}) });
const errors = (...objects: Record<string, unknown>[]) => ({ errors: objects });
const owner = (id: string) => ({ owner: { data: { id, type: 'User' } } });
const created = (type: string, id: string, rest: Record<string, unknown>) => ({ data: { id, type, ...rest } });
const configId = '62c3d4e5f6a7b8c9d0e1f2a3';
const highlightId = '63d4e5f6a7b8c9d0e1f2a3b4';

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

const cases: CheckCase[] = [
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials answered 200',
    exchange: listing('filter[type]=user', 200, page([]), {}),
    findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials answered 403',
    exchange: listing('filter[type]=user', 403, errors({ status: '403' }), {}),
    findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials and a valid request answered 400',
    exchange: listing('filter[type]=user', 400, errors({ status: '400' }), {}),
    findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials and an invalid request answered 400 (validated first)',
    exchange: listing('filter[type]=group', 400, errors({ status: '400' }), {}),
    findings: [{ requirement: 'AUTH-401-BEFORE-400', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials on a create answered 404',
    exchange: highlightCreation({}, 404, errors({ status: '404' }), jsonApi),
    findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'credentials answered 200',
    exchange: listing('filter[type]=user', 200, page([])),
    findings: [],
    held: [],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'credentials answered 403',
    exchange: listing('filter[type]=user', 403, errors({ status: '403' })),
    findings: [],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials answered 401',
    exchange: listing('filter[type]=user', 401, errors({ status: '401' }), {}),
    findings: [],
    held: ['AUTH-401-NO-CREDENTIALS'],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials answered 429, a generic status (rate limits are not shown)',
    exchange: listing('filter[type]=user', 429, errors({ status: '429' }), {}),
    findings: [],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials answered 422, a refusal the contract names for no condition',
    exchange: listing('filter[type]=user', 422, errors({ status: '422' }), {}),
    findings: [{ requirement: 'AUTH-401-NO-CREDENTIALS', pointer: '' }],
  },
  {
    check: 'unauthenticatedNot401',
    description: 'no credentials outside the three operations (which are public is not shown)',
    exchange: exchange(null, 'GET', '/v3/portal-stores', {}, undefined, 200, { data: [] }),
    findings: [],
  },

  {
    check: 'invalidAnswered2xx',
    description: 'a filter outside portal and user answered 200',
    exchange: listing('filter[type]=group', 200, page([])),
    findings: [{ requirement: 'NG-FILTER-REQUIRED', pointer: 'filter[type]' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'an owner of another type answered 201',
    exchange: highlightCreation(
      { relationships: { owner: { data: { id: userId, type: 'Admin' } } } },
      201,
      created('Highlight', highlightId, {}),
    ),
    findings: [{ requirement: 'HL-OWNER-TYPE', pointer: '/data/relationships/owner/data/type' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'two type mismatches answered 201 count once',
    exchange: configCreation(
      { label: 1, required: 'yes' },
      201,
      created('AttributeConfig', configId, { attributes: { inUse: false } }),
    ),
    findings: [{ requirement: 'AC-TYPE-MISMATCH', pointer: '/data/attributes/label' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a wrong-type owner.links answered 201: serving it only warns',
    exchange: highlightCreation(
      { relationships: { owner: { data: { id: userId, type: 'User' }, links: 5 } } },
      201,
      created('Highlight', highlightId, {}),
    ),
    findings: [{ requirement: 'REQ-RELATIONSHIPS-REFUSED', pointer: '/data/relationships/owner/links' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a body sent as application/json answered 201: serving it only warns',
    exchange: highlightCreation({}, 201, created('Highlight', highlightId, {}), {
      ...credentials,
      'content-type': 'application/json',
    }),
    findings: [{ requirement: 'MEDIA-TYPE-REQUEST-415', pointer: '' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a valid request answered 200',
    exchange: listing('filter[type]=portal&page[limit]=2&page[offset]=0', 200, page([])),
    findings: [],
    held: [],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'an invalid request answered 400',
    exchange: listing('filter[type]=group', 400, errors({ status: '400' })),
    findings: [],
    held: ['NG-FILTER-REQUIRED'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'an invalid request answered 401: refused for its credentials, its content not judged',
    exchange: listing('filter[type]=group', 401, errors({ status: '401' })),
    findings: [],
    held: [],
    unjudged: ['NG-FILTER-REQUIRED'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'an invalid request with malformed credentials answered 400: its content not judged',
    exchange: listing('filter[type]=group', 400, errors({ status: '400' }), { authorization: 'Token x' }),
    findings: [],
    held: [],
    unjudged: ['AUTH-401-MALFORMED', 'NG-FILTER-REQUIRED'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a type mismatch answered 422, a refusal the contract names for no condition',
    exchange: configCreation({ label: 1 }, 422, errors({ status: '422' })),
    findings: [{ requirement: 'AC-TYPE-MISMATCH', pointer: '/data/attributes/label' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a filter outside portal and user answered 404, a status the list does not list',
    exchange: listing('filter[type]=group', 404, errors({ status: '404' })),
    findings: [{ requirement: 'NG-FILTER-REQUIRED', pointer: 'filter[type]' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a wrong-type owner.links answered 422: at the level serving it breaks',
    exchange: highlightCreation(
      { relationships: { owner: { data: { id: userId, type: 'User' }, links: 5 } } },
      422,
      errors({ status: '422' }),
    ),
    findings: [{ requirement: 'REQ-RELATIONSHIPS-REFUSED', pointer: '/data/relationships/owner/links' }],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a wrong data.type answered 409, a status the create lists',
    exchange: exchange(
      'createHighlight',
      'POST',
      '/v3/highlights',
      { ...credentials, ...jsonApi },
      { data: { type: 'AttributeConfig' } },
      409,
      errors({ status: '409' }),
    ),
    findings: [],
    held: ['HL-DATA-TYPE'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a type mismatch answered 413, a generic status that says nothing about it',
    exchange: configCreation({ label: 1 }, 413, errors({ status: '413' })),
    findings: [],
    held: [],
    unjudged: ['AC-TYPE-MISMATCH'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a type mismatch answered 404, listed but for conditions not shown: not judged',
    exchange: configCreation({ label: 1 }, 404, errors({ status: '404' })),
    findings: [],
    held: [],
    unjudged: ['AC-TYPE-MISMATCH'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a type mismatch answered 409, which the catalogue names for a data.type only: not judged',
    exchange: configCreation({ label: 1 }, 409, errors({ status: '409' })),
    findings: [],
    held: [],
    unjudged: ['AC-TYPE-MISMATCH'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'an invalid filter answered 429 (a rate limit): not judged',
    exchange: listing('filter[type]=group', 429, errors({ status: '429' })),
    findings: [],
    held: [],
    unjudged: ['NG-FILTER-REQUIRED'],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'a body in another media type answered 415, the generic status the catalogue names for it',
    exchange: highlightCreation(
      { type: 'Highlight', relationships: owner('6553f100c0ffee0000000001') },
      415,
      errors({ status: '415' }),
      { ...credentials, 'content-type': 'application/json' },
    ),
    findings: [],
    held: ['MEDIA-TYPE-REQUEST-415'],
    unjudged: [],
  },
  {
    check: 'invalidAnswered2xx',
    description: 'missing credentials alone (reported by unauthenticatedNot401)',
    exchange: listing('filter[type]=user', 200, page([]), {}),
    findings: [],
  },

  {
    check: 'serverError',
    description: 'malformed JSON answered 500',
    exchange: rawHighlightCreation('{"data":', 500),
    findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
  },
  {
    check: 'serverError',
    description: 'a missing filter answered 503',
    exchange: listing('', 503),
    findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
  },
  {
    check: 'serverError',
    description: 'a valid request answered 500',
    exchange: listing('filter[type]=user', 500),
    findings: [{ requirement: 'ERR-NO-5XX', pointer: '' }],
  },
  {
    check: 'serverError',
    description: 'an invalid request answered 400',
    exchange: rawHighlightCreation('{"data":', 400, errors({ status: '400' })),
    findings: [],
    held: ['ERR-NO-5XX'],
  },
  {
    check: 'serverError',
    description: 'a 500 outside the three operations (their statuses are not shown)',
    exchange: exchange(null, 'GET', '/v3/portal-stores', credentials, undefined, 500),
    findings: [],
  },

  {
    check: 'unlistedSuccess',
    description: 'a valid create answered 200',
    exchange: configCreation(
      { label: 'Consent' },
      200,
      created('AttributeConfig', configId, { attributes: { label: 'Consent', inUse: false } }),
    ),
    findings: [{ requirement: 'AC-CREATE-201', pointer: '' }],
  },
  {
    check: 'unlistedSuccess',
    description: 'a valid list answered 204',
    exchange: listing('filter[type]=user', 204),
    findings: [{ requirement: 'NG-FILTER-ACCEPTED', pointer: '' }],
  },
  {
    check: 'unlistedSuccess',
    description: 'a valid create answered 202',
    exchange: highlightCreation({}, 202),
    findings: [],
    held: ['HL-CREATE-201'],
  },
  {
    check: 'unlistedSuccess',
    description: 'an invalid create answered 200 (judged under what the request broke)',
    exchange: configCreation({ label: 1 }, 200, created('AttributeConfig', configId, {})),
    findings: [],
  },

  {
    check: 'statusListed',
    description: 'a list answered 404',
    exchange: listing('filter[type]=user', 404, errors({ status: '404' })),
    findings: [{ requirement: 'EXCH-STATUS-LISTED', pointer: '' }],
  },
  {
    check: 'statusListed',
    description: 'a create answered 422',
    exchange: configCreation({ label: 'x' }, 422, errors({ status: '422' })),
    findings: [{ requirement: 'EXCH-STATUS-LISTED', pointer: '' }],
  },
  {
    check: 'statusListed',
    description: 'a create answered 409, a listed status',
    exchange: configCreation({ label: 'x' }, 409, errors({ status: '409' })),
    findings: [],
    held: ['EXCH-STATUS-LISTED'],
  },
  {
    check: 'statusListed',
    description: 'a type mismatch answered 422 (judged by invalidAnswered2xx, once)',
    exchange: configCreation({ label: 1 }, 422, errors({ status: '422' })),
    findings: [],
  },
  {
    check: 'statusListed',
    description: 'a create answered 415, a generic status',
    exchange: configCreation({ label: 'x' }, 415, errors({ status: '415' })),
    findings: [],
  },

  {
    check: 'errorStatusMatches',
    description: 'a 403 whose error says 400',
    exchange: listing('filter[type]=user', 403, errors({ status: '403' }, { status: '400' })),
    findings: [{ requirement: 'ERR-STATUS-STRING', pointer: '/errors/1/status' }],
  },
  {
    check: 'errorStatusMatches',
    description: 'a 403 whose error says 403',
    exchange: listing('filter[type]=user', 403, errors({ status: '403' })),
    findings: [],
    held: ['ERR-STATUS-STRING'],
  },
  {
    check: 'errorStatusMatches',
    description: 'an error without status',
    exchange: listing('filter[type]=user', 403, errors({ title: 'Forbidden' })),
    findings: [],
    held: [],
  },
  {
    check: 'errorStatusMatches',
    description: 'a numeric status (a schema finding, not this check)',
    exchange: listing('filter[type]=user', 403, errors({ status: 403 })),
    findings: [],
  },

  {
    check: 'wwwAuthenticateOn401',
    description: 'a 401 without WWW-Authenticate',
    exchange: listing('filter[type]=user', 401, errors({ status: '401' })),
    findings: [{ requirement: 'AUTH-WWW-AUTHENTICATE', pointer: 'WWW-Authenticate' }],
  },
  {
    check: 'wwwAuthenticateOn401',
    description: 'a 401 with WWW-Authenticate',
    exchange: exchange(
      'listNotificationGroups',
      'GET',
      '/v3/notification-groups?filter[type]=user',
      credentials,
      undefined,
      401,
      errors({ status: '401' }),
      { ...jsonApi, 'WWW-Authenticate': 'Bearer realm="v3"' },
    ),
    findings: [],
    held: ['AUTH-WWW-AUTHENTICATE'],
  },

  {
    check: 'errorSourcePointerResolves',
    description: 'a pointer into a string',
    exchange: highlightCreation(
      { attributes: { color: 'red' } },
      400,
      errors({ source: { pointer: '/data/attributes/color/0' } }),
    ),
    findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/0/source/pointer' }],
  },
  {
    check: 'errorSourcePointerResolves',
    description: 'a pointer without its leading slash',
    exchange: highlightCreation({}, 409, errors({}, { source: { pointer: 'data/type' } })),
    findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/1/source/pointer' }],
  },
  {
    check: 'errorSourcePointerResolves',
    description: 'a pointer under a member that is not there',
    exchange: highlightCreation({}, 400, errors({ source: { pointer: '/data/relationships/owner/data/type' } })),
    findings: [{ requirement: 'ERR-SOURCE-POINTER', pointer: '/errors/0/source/pointer' }],
  },
  {
    check: 'errorSourcePointerResolves',
    description: 'a pointer to a member that is there',
    exchange: highlightCreation(
      { attributes: { color: 7 } },
      400,
      errors({ source: { pointer: '/data/attributes/color' } }),
    ),
    findings: [],
    held: ['ERR-SOURCE-POINTER'],
  },
  {
    check: 'errorSourcePointerResolves',
    description: 'a pointer to a missing member of an object that is there',
    exchange: configCreation(undefined, 400, errors({ source: { pointer: '/data/attributes' } })),
    findings: [],
  },
  {
    check: 'errorSourcePointerResolves',
    description: 'the empty pointer, the whole document',
    exchange: rawHighlightCreation('[]', 400, errors({ source: { pointer: '' } })),
    findings: [],
  },

  {
    check: 'errorSourceParameterNamed',
    description: 'a query error without source.parameter',
    exchange: listing('filter[type]=group', 400, errors({ status: '400', title: 'Bad filter' })),
    findings: [{ requirement: 'ERR-SOURCE-PARAMETER', pointer: '/errors' }],
  },
  {
    check: 'errorSourceParameterNamed',
    description: 'another parameter named',
    exchange: listing('filter[type]=group', 400, errors({ source: { parameter: 'page[limit]' } })),
    findings: [{ requirement: 'ERR-SOURCE-PARAMETER', pointer: '/errors' }],
  },
  {
    check: 'errorSourceParameterNamed',
    description: 'the member named',
    exchange: listing('filter[type]=group', 400, errors({ source: { parameter: 'filter[type]' } })),
    findings: [],
    held: ['ERR-SOURCE-PARAMETER'],
  },
  {
    check: 'errorSourceParameterNamed',
    description: 'the parameter named',
    exchange: listing('page[limit]=0&page[offset]=0&filter[type]=user', 400, errors({ source: { parameter: 'page' } })),
    findings: [],
  },
  {
    check: 'errorSourceParameterNamed',
    description: 'a body error, not a query error',
    exchange: highlightCreation(
      { attributes: { color: 7 } },
      400,
      errors({ source: { pointer: '/data/attributes/color' } }),
    ),
    findings: [],
    held: [],
  },

  {
    check: 'listPageArithmetic',
    description: 'a consistent middle page',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=10',
      200,
      page(groups(10, 10), { total: 25, pages: 3, page: 2, offset: 10, limit: 10 }),
    ),
    findings: [],
    held: [
      'NG-META-OFFSET-ECHO',
      'NG-META-LIMIT-EFFECTIVE',
      'NG-META-PAGES',
      'NG-PAGE-LENGTH',
      'NG-META-PAGE-NUMBER',
      'NG-META-DEPRECATED-PRESENT',
    ],
    unjudged: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'a consistent last page',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=20',
      200,
      page(groups(5, 20), { total: 25, pages: 3, page: 3, offset: 20, limit: 10 }),
    ),
    findings: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'an empty result reporting 0 pages',
    exchange: listing('filter[type]=user', 200, page([], { total: 0, pages: 0, page: 1, offset: 0, limit: 20 })),
    findings: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'an empty result reporting 1 page',
    exchange: listing('filter[type]=user', 200, page([], { total: 0, pages: 1, page: 1, offset: 0, limit: 20 })),
    findings: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'a server cap below the requested limit, reported in meta.limit',
    exchange: listing(
      'filter[type]=user&page[limit]=500&page[offset]=0',
      200,
      page(groups(100), { total: 250, pages: 3, page: 1, offset: 0, limit: 100 }),
    ),
    findings: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'no meta and no more items than the limit',
    exchange: listing('filter[type]=user&page[limit]=3&page[offset]=0', 200, page(groups(3))),
    findings: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'no meta and more items than the limit',
    exchange: listing('filter[type]=user&page[limit]=2&page[offset]=0', 200, page(groups(3))),
    findings: [{ requirement: 'NG-PAGE-LENGTH', pointer: '/data' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'a full page where the last holds 5',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=20',
      200,
      page(groups(10, 20), { total: 25, pages: 3, page: 3, offset: 20, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-PAGE-LENGTH', pointer: '/data' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'an empty page where items were due',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=10',
      200,
      page([], { total: 25, pages: 3, page: 2, offset: 10, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-PAGE-LENGTH', pointer: '/data' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'a shorter page, as from a page size cap meta.limit does not report (maximum page size is not shown)',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(4), { total: 25, pages: 3, page: 1, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-LIMIT-EFFECTIVE', pointer: '/meta/limit' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.offset other than requested',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=10',
      200,
      page(groups(10, 10), { total: 25, pages: 3, page: 2, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-OFFSET-ECHO', pointer: '/meta/offset' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.limit above the requested limit',
    exchange: listing(
      'filter[type]=user&page[limit]=5&page[offset]=0',
      200,
      page(groups(5), { total: 25, pages: 3, page: 1, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-LIMIT-EFFECTIVE', pointer: '/meta/limit' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.pages rounded down',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(10), { total: 25, pages: 2, page: 1, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-PAGES', pointer: '/meta/pages' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.limit 0 and meta.pages 999 on a page that asked for 10',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(10), { total: 25, pages: 999, page: 1, offset: 0, limit: 0 }),
    ),
    findings: [
      { requirement: 'NG-META-LIMIT-EFFECTIVE', pointer: '/meta/limit' },
      { requirement: 'NG-META-PAGES', pointer: '/meta/pages' },
    ],
    held: ['NG-META-OFFSET-ECHO', 'NG-PAGE-LENGTH', 'NG-META-PAGE-NUMBER', 'NG-META-DEPRECATED-PRESENT'],
    unjudged: [],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.limit 0 where the request gave no page[limit]: length and page number not judged',
    exchange: listing(
      'filter[type]=user',
      200,
      page(groups(10), { total: 25, pages: 3, page: 1, offset: 0, limit: 0 }),
    ),
    findings: [
      { requirement: 'NG-META-LIMIT-EFFECTIVE', pointer: '/meta/limit' },
      { requirement: 'NG-META-PAGES', pointer: '/meta/pages' },
    ],
    held: ['NG-META-DEPRECATED-PRESENT'],
    unjudged: ['NG-PAGE-LENGTH', 'NG-META-PAGE-NUMBER'],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.limit 0 on an empty result: no page count is wrong, the limit still is',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page([], { total: 0, pages: 0, page: 1, offset: 0, limit: 0 }),
    ),
    findings: [{ requirement: 'NG-META-LIMIT-EFFECTIVE', pointer: '/meta/limit' }],
    held: [
      'NG-META-OFFSET-ECHO',
      'NG-META-PAGES',
      'NG-PAGE-LENGTH',
      'NG-META-PAGE-NUMBER',
      'NG-META-DEPRECATED-PRESENT',
    ],
  },
  {
    check: 'listPageArithmetic',
    description: 'one item where meta.total says 0',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(1), { total: 0, pages: 0, page: 1, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-PAGE-LENGTH', pointer: '/data' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'a negative meta.total: a finding of its own; pages and length not judged from it',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(3), { total: -3, pages: 0, page: 1, offset: 0, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-TOTAL', pointer: '/meta/total' }],
    unjudged: ['NG-META-PAGES', 'NG-PAGE-LENGTH', 'NG-META-PAGE-NUMBER'],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.limit a string: the schema reports it; the length is judged by page[limit] alone',
    exchange: listing('filter[type]=user&page[limit]=2&page[offset]=0', 200, {
      data: groups(2),
      meta: { total: 25, pages: 13, page: 1, offset: 0, limit: '2' },
    }),
    findings: [],
    held: ['NG-PAGE-LENGTH', 'NG-META-DEPRECATED-PRESENT'],
    unjudged: ['NG-META-PAGES', 'NG-META-PAGE-NUMBER', 'NG-META-OFFSET-ECHO', 'NG-META-LIMIT-EFFECTIVE'],
  },
  {
    check: 'listPageArithmetic',
    description: 'no meta and no page[limit]: the length is not judged',
    exchange: listing('filter[type]=user', 200, page(groups(3))),
    findings: [],
    held: [],
    unjudged: ['NG-PAGE-LENGTH'],
  },
  {
    check: 'listPageArithmetic',
    description: 'no data array',
    exchange: listing('filter[type]=user&page[limit]=2&page[offset]=0', 200, { meta: { total: 0 } }),
    findings: [],
    held: [],
    unjudged: ['NG-PAGE-LENGTH'],
  },
  {
    check: 'listPageArithmetic',
    description: 'meta.page counted from 0',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=20',
      200,
      page(groups(5, 20), { total: 25, pages: 3, page: 2, offset: 20, limit: 10 }),
    ),
    findings: [{ requirement: 'NG-META-PAGE-NUMBER', pointer: '/meta/page' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'deprecated members that agree',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(10), {
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
    findings: [{ requirement: 'NG-META-DEPRECATED-PRESENT', pointer: '/meta' }],
  },
  {
    check: 'listPageArithmetic',
    description: 'a deprecated member that disagrees with its replacement',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page(groups(10), { total: 25, pages: 3, page: 1, offset: 0, limit: 10, totalCount: 10 }),
    ),
    findings: [
      { requirement: 'NG-META-DEPRECATED-PRESENT', pointer: '/meta' },
      { requirement: 'NG-META-DEPRECATED-AGREE', pointer: '/meta/totalCount' },
    ],
  },

  {
    check: 'createdResourceEchoes',
    description: 'AttributeConfig attributes echoed, inUse added',
    exchange: configCreation(
      { label: 'Consent', target: 'User' },
      201,
      created('AttributeConfig', configId, { attributes: { label: 'Consent', target: 'User', inUse: false } }),
    ),
    findings: [],
    held: ['AC-ATTRIBUTES-ECHO'],
  },
  {
    check: 'createdResourceEchoes',
    description: 'an AttributeConfig label changed',
    exchange: configCreation(
      { label: 'Consent' },
      201,
      created('AttributeConfig', configId, { attributes: { label: 'consent', inUse: false } }),
    ),
    findings: [{ requirement: 'AC-ATTRIBUTES-ECHO', pointer: '/data/attributes/label' }],
  },
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight color dropped',
    exchange: highlightCreation(
      { attributes: { color: 'yellow' } },
      201,
      created('Highlight', highlightId, { attributes: {} }),
    ),
    findings: [{ requirement: 'HL-ATTRIBUTES-ECHO', pointer: '/data/attributes/color' }],
  },
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight owner replaced',
    exchange: highlightCreation(
      { relationships: owner(userId) },
      201,
      created('Highlight', highlightId, { relationships: owner('60a7c0f2e4b0c83d2f9a1b99') }),
    ),
    findings: [{ requirement: 'HL-RESPONSE-RELATIONSHIPS', pointer: '/data/relationships/owner/data' }],
  },
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight owner dropped',
    exchange: highlightCreation({ relationships: owner(userId) }, 201, created('Highlight', highlightId, {})),
    findings: [{ requirement: 'HL-RESPONSE-RELATIONSHIPS', pointer: '/data/relationships/owner/data' }],
  },
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight owner echoed without the links and meta sent, with links of its own (optional members)',
    exchange: highlightCreation(
      { relationships: { owner: { ...owner(userId).owner, links: { self: '/a' }, meta: { note: 'x' } } } },
      201,
      created('Highlight', highlightId, {
        relationships: { owner: { ...owner(userId).owner, links: { related: '/v3/users/1' } } },
      }),
    ),
    findings: [],
  },
  // Which relationship names a Highlight has besides owner is not shown (x-names-not-shown): one of another name may be
  // dropped.
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight relationship the specification does not name, dropped',
    exchange: highlightCreation(
      { relationships: { ...owner(userId), ' ': { data: null } } },
      201,
      created('Highlight', highlightId, { relationships: owner(userId) }),
    ),
    findings: [],
    held: ['HL-RESPONSE-RELATIONSHIPS'],
  },
  {
    check: 'createdResourceEchoes',
    description: 'a Highlight with attributes and owner echoed',
    exchange: highlightCreation(
      { attributes: { color: 'yellow' }, relationships: owner(userId) },
      201,
      created('Highlight', highlightId, { attributes: { color: 'yellow' }, relationships: owner(userId) }),
    ),
    findings: [],
    held: ['HL-ATTRIBUTES-ECHO', 'HL-RESPONSE-RELATIONSHIPS'],
  },

  {
    check: 'acceptedWithoutBody',
    description: 'a create answered 202',
    exchange: highlightCreation({}, 202),
    findings: [{ requirement: 'CREATE-202-ACCEPTED', pointer: '' }],
  },
  {
    check: 'acceptedWithoutBody',
    description: 'a create answered 201',
    exchange: highlightCreation({}, 201, created('Highlight', highlightId, {})),
    findings: [],
  },

  {
    check: 'bodyUtf8',
    description: 'a body read as bytes, all UTF-8',
    exchange: answeredWith(listing('filter[type]=user', 200), '{"data":[]}', 'valid'),
    findings: [],
    held: ['RES-JSON-UTF8'],
  },
  {
    check: 'bodyUtf8',
    description: 'a body whose bytes stop being UTF-8 inside a string',
    exchange: answeredWith(listing('filter[type]=user', 200), '{"data":[],"meta":"\uFFFD"}', { invalidAt: 19 }),
    findings: [{ requirement: 'RES-JSON-UTF8', pointer: '' }],
  },
  {
    check: 'bodyUtf8',
    description: "a body seen only as text (a HAR's): not judged",
    exchange: answeredWith(listing('filter[type]=user', 200), '{"data":[]}'),
    findings: [],
    held: [],
  },

  {
    check: 'memberNamesUnique',
    description: 'every name once',
    exchange: listing('filter[type]=user', 200, page(groups(2))),
    findings: [],
    held: ['RES-MEMBER-NAMES-UNIQUE'],
  },
  {
    check: 'memberNamesUnique',
    description: 'a string holding ": and spaced colons, every name once',
    exchange: answeredWith(listing('filter[type]=user', 200), '{"data" : [], "meta" : {"note":"a \\":b"}}'),
    findings: [],
    held: ['RES-MEMBER-NAMES-UNIQUE'],
  },
  {
    check: 'memberNamesUnique',
    description: 'meta given twice, the first a string',
    exchange: answeredWith(
      listing('filter[type]=user', 200),
      '{"data":[],"meta":"bogus","meta":{"total":0,"pages":0,"page":1,"offset":0,"limit":10}}',
    ),
    findings: [{ requirement: 'RES-MEMBER-NAMES-UNIQUE', pointer: '' }],
  },
  {
    check: 'memberNamesUnique',
    description: 'a name given twice with a space before its colon',
    exchange: answeredWith(listing('filter[type]=user', 200), '{"data":[],"meta" :{},"meta" :{}}'),
    findings: [{ requirement: 'RES-MEMBER-NAMES-UNIQUE', pointer: '' }],
  },

  {
    check: 'integerForm',
    description: 'meta written as plain integers, a label that reads 1.0',
    exchange: listing(
      'filter[type]=user&page[limit]=10&page[offset]=0',
      200,
      page([{ ...groups(1)[0], attributes: { ...groups(1)[0].attributes, label: '1.0' } }], {
        total: 1,
        pages: 1,
        page: 1,
        offset: 0,
        limit: 10,
      }),
    ),
    findings: [],
    held: ['RES-INTEGER-FORM'],
  },
  {
    check: 'integerForm',
    description: 'a list without meta: nothing typed integer to judge',
    exchange: listing('filter[type]=user', 200, page(groups(1))),
    findings: [],
    held: [],
  },
  {
    check: 'integerForm',
    description: 'meta members written 1.0, 1e0 and 0e0',
    exchange: answeredWith(
      listing('filter[type]=user&page[limit]=10&page[offset]=0', 200),
      `{"data":${JSON.stringify(groups(1))},"meta":{"total":1.0,"pages":1e0,"page":1,"offset":0e0,"limit":10}}`,
    ),
    findings: [
      { requirement: 'RES-INTEGER-FORM', pointer: '/meta/total' },
      { requirement: 'RES-INTEGER-FORM', pointer: '/meta/pages' },
      { requirement: 'RES-INTEGER-FORM', pointer: '/meta/offset' },
    ],
  },
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
    check: 'itemsMatchFilter',
    description: 'a list naming no requirement for the role: not applied',
    exchange: listing('filter[type]=user', 200, page(groups(1))),
    findings: [],
    held: [],
    unjudged: [],
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

/** The exchange answered with this body text, read as bytes when `utf8` says how they read. */
function answeredWith(x: Exchange, bodyText: string, utf8?: Exchange['response']['utf8']): Exchange {
  return { ...x, response: { ...x.response, headers: jsonApi, bodyText, ...(utf8 === undefined ? {} : { utf8 }) } };
}

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

describe('exchange checks', () => {
  for (const c of cases) {
    it(`${c.check}: ${c.description}`, () => {
      const run = runCheck(c.check, c.exchange, c.within ?? contract);
      expect(run.findings.map(({ requirement, pointer }) => ({ requirement, pointer }))).toEqual(c.findings);
      if (c.held) expect(sorted(run.held), 'held').toEqual(sorted(c.held));
      if (c.unjudged) expect(sorted(run.unjudged), 'not judged').toEqual(sorted(c.unjudged));
      // What a check judges is the catalogue's to bind (judgedBy): assessChecks refuses anything else.
      expect(() => assessChecks(c.within ?? contract, c.exchange)).not.toThrow();
    });
  }

  for (const check of exchangeChecks) {
    it(`${check.name} has a case where it fires and one where it holds`, () => {
      const own = cases.filter((c) => c.check === check.name);
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

  it('report at the exchange location what the request and response show together', () => {
    const x = listing('filter[type]=group', 200, page([]), {});
    expect(checkExchange(contract, x).map(({ requirement, location }) => ({ requirement, location }))).toEqual([
      { requirement: 'AUTH-401-NO-CREDENTIALS', location: 'exchange' },
      { requirement: 'NG-FILTER-REQUIRED', location: 'exchange' },
    ]);
  });

  it('keep sent values out of echo messages when asked', () => {
    const x = configCreation(
      { label: 'Consent' },
      201,
      created('AttributeConfig', configId, { attributes: { label: 'Other', inUse: true } }),
    );
    expect(checkExchange(contract, x, { includeValues: false }).map((f) => f.message)).toEqual([
      'attribute label did not come back as it was sent',
    ]);
  });
});
