// Checks over one whole exchange (request and response together), shared by the suite and the
// proxy. Each check is a small pure function with a declared scope; an empty list means it holds.
import type { Contract, Operation } from './contract.ts';
import { headerValue, readCredentials } from './credentials.ts';
import { escapeToken, hasValueAt, resolvePointer } from './resolve.ts';
import { parsedBody, parseQuery, queryString } from './validate.ts';
import type { Finding, HttpRequest, HttpResponse, ValidateOptions } from './types.ts';
import { isDeepStrictEqual } from 'node:util';
import { showValue } from './messages.ts';
import { serverAttributes } from './members.ts';

export interface Exchange {
  operation: Operation | null;
  request: HttpRequest;
  response: HttpResponse;
  /** What validateRequest found, so checks need not validate again. */
  requestFindings: Finding[];
}

export interface ExchangeCheck {
  name: string;
  appliesTo(exchange: Exchange): boolean;
  run(contract: Contract, exchange: Exchange, options: ValidateOptions): Finding[];
}

type Json = Record<string, unknown>;

const is2xx = (status: number) => status >= 200 && status < 300;
const isRequestProblem = (f: Finding) => f.location === 'request' && f.level === 'MUST';

function jsonBody(message: HttpRequest | HttpResponse): Json | undefined {
  if (!message.bodyText) return undefined;
  const parsed = parsedBody(message);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value) ? (parsed.value as Json) : undefined;
}

function errorObjects(response: HttpResponse): Json[] {
  const errors = jsonBody(response)?.errors;
  return Array.isArray(errors) ? errors.filter((e): e is Json => e !== null && typeof e === 'object') : [];
}

/**
 * The request findings that say a server must refuse the request: a MUST the client broke. What
 * a server that serves it anyway breaks is the catalogue's `acceptedBreaks`.
 */
export function refusableFindings(requestFindings: Finding[]): Finding[] {
  return requestFindings.filter(isRequestProblem);
}

/** True when a specified operation answered 2xx to a request the contract says it must refuse. */
export function acceptsRefusable(exchange: Pick<Exchange, 'operation' | 'response' | 'requestFindings'>): boolean {
  return exchange.operation !== null && is2xx(exchange.response.status) && exchange.requestFindings.some(isRequestProblem);
}

const hasNoCredentials = (contract: Contract, x: Exchange) => readCredentials(x.request.headers, contract.legacyHeader).kind === 'none';
const isCredentialProblem = (f: Finding) => f.requirement === 'AUTH-CREDENTIALS-PRESENT';

// Section 5: an unauthenticated request yields 401, whatever else is wrong with it. Visible in one
// exchange when it carries no credentials at all and is served or answered another listed status.
const unauthenticatedNot401: ExchangeCheck = {
  name: 'unauthenticatedNot401',
  appliesTo: (x) => x.operation !== null && x.response.status !== 401 && (is2xx(x.response.status) || (x.response.status >= 400 && x.response.status < 500 && x.operation.statuses.includes(x.response.status))),
  run(contract, x) {
    if (!hasNoCredentials(contract, x)) return [];
    const status = x.response.status;
    const validatedFirst = status === 400 && x.requestFindings.some((f) => isRequestProblem(f) && !isCredentialProblem(f));
    const requirement = validatedFirst ? 'AUTH-401-BEFORE-400' : 'AUTH-401-NO-CREDENTIALS';
    const message = validatedFirst ? 'a request without credentials was answered 400: credentials are judged before the request is validated' : `a request without credentials was answered ${status}`;
    return [contract.finding(requirement, 'exchange', { message, expected: '401', actual: String(status) })];
  },
};

const invalidAnswered2xx: ExchangeCheck = {
  name: 'invalidAnswered2xx',
  appliesTo: (x) => x.operation !== null && is2xx(x.response.status),
  run(contract, x) {
    // Each broken requirement once, under what serving it breaks: the exchange shows the server accepted what it must refuse.
    const problems = refusableFindings(x.requestFindings).filter((f) => !isCredentialProblem(f));
    const broken = problems.map((problem) => ({ problem, requirement: contract.requirementBrokenByAccepting(problem.requirement).id }));
    const firstPerRequirement = broken.filter((b, i) => broken.findIndex((c) => c.requirement === b.requirement) === i);
    return firstPerRequirement.map(({ problem, requirement }) =>
      contract.finding(requirement, 'exchange', { pointer: problem.pointer, message: `a request the contract rejects (${problem.message}) was answered ${x.response.status}`, expected: '4xx', actual: String(x.response.status) }),
    );
  },
};

const unlistedSuccess: ExchangeCheck = {
  name: 'unlistedSuccess',
  appliesTo: (x) => x.operation !== null && is2xx(x.response.status) && !x.operation.statuses.includes(x.response.status),
  run(contract, x) {
    // A request that must be refused is judged by the checks above, once.
    if (x.requestFindings.some(isRequestProblem)) return [];
    const operation = x.operation!;
    const listed = operation.statuses.filter(is2xx).join(' or ');
    return [contract.finding(contract.successRequirement(operation.operationId).id, 'response', { message: `${operation.operationId} answered ${x.response.status}, a success status it does not list (${listed})`, expected: listed, actual: String(x.response.status) })];
  },
};

const statusListed: ExchangeCheck = {
  name: 'statusListed',
  appliesTo: (x) => x.operation !== null && !is2xx(x.response.status) && x.response.status < 500,
  run(contract, x) {
    const operation = x.operation!;
    const status = x.response.status;
    if (operation.statuses.includes(status) || contract.genericStatuses.has(status)) return [];
    return [contract.finding('EXCH-STATUS-LISTED', 'response', { message: `status ${status} is not listed for ${operation.operationId} (listed: ${operation.statuses.join(', ')})`, expected: operation.statuses.join(', '), actual: String(status) })];
  },
};

// Sections 4.1 to 4.3 list every status the three operations answer and section 7 names them; none is 5xx.
const serverError: ExchangeCheck = {
  name: 'serverError',
  appliesTo: (x) => x.operation !== null && x.response.status >= 500,
  run(contract, x) {
    const status = String(x.response.status);
    const message = x.requestFindings.some(isRequestProblem) ? `an invalid request was answered ${status}; it must be answered 4xx` : `a valid request was answered ${status}`;
    return [contract.finding('ERR-NO-5XX', 'exchange', { message, expected: 'a status the operation lists', actual: status })];
  },
};

const errorStatusMatches: ExchangeCheck = {
  name: 'errorStatusMatches',
  appliesTo: (x) => x.response.status >= 400,
  run(contract, x) {
    const expected = String(x.response.status);
    return errorObjects(x.response).flatMap((error, index) =>
      typeof error.status === 'string' && error.status !== expected
        ? [contract.finding('ERR-STATUS-STRING', 'response', { pointer: `/errors/${index}/status`, message: `/errors/${index}/status must be "${expected}", the HTTP status, got "${error.status}"`, expected, actual: error.status })]
        : [],
    );
  },
};

const wwwAuthenticateOn401: ExchangeCheck = {
  name: 'wwwAuthenticateOn401',
  appliesTo: (x) => x.response.status === 401,
  run(contract, x) {
    if (headerValue(x.response.headers, 'www-authenticate')) return [];
    return [contract.finding('AUTH-WWW-AUTHENTICATE', 'response', { pointer: 'WWW-Authenticate', message: 'a 401 response should carry a WWW-Authenticate header', expected: 'WWW-Authenticate: Bearer ...', actual: 'absent' })];
  },
};

/** A pointer names a value of the request document, or a missing member of an object that is there. */
function pointerResolves(document: unknown, pointer: string): boolean {
  if (hasValueAt(document, pointer)) return true;
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  if (!pointer.startsWith('/') || !hasValueAt(document, parent)) return false;
  const container = resolvePointer(document, parent);
  return container !== null && typeof container === 'object' && !Array.isArray(container);
}

const errorSourcePointerResolves: ExchangeCheck = {
  name: 'errorSourcePointerResolves',
  appliesTo: (x) => x.response.status >= 400 && x.response.status < 500 && (x.request.bodyText ?? '') !== '',
  run(contract, x) {
    const parsed = parsedBody(x.request);
    return errorObjects(x.response).flatMap((error, index) => {
      const pointer = (error.source as Json | undefined)?.pointer;
      if (typeof pointer !== 'string') return [];
      if (parsed.ok && (pointer === '' || pointerResolves(parsed.value, pointer))) return [];
      return [contract.finding('ERR-SOURCE-POINTER', 'response', { pointer: `/errors/${index}/source/pointer`, message: `source.pointer "${pointer}" does not resolve in the request document`, expected: 'a pointer into the request document', actual: pointer })];
    });
  },
};

const errorSourceParameterNamed: ExchangeCheck = {
  name: 'errorSourceParameterNamed',
  appliesTo: (x) => x.response.status === 400,
  run(contract, x) {
    const flagged = x.requestFindings.filter((f) => f.location === 'request' && f.pointer !== '' && !f.pointer.startsWith('/') && f.requirement !== 'AUTH-CREDENTIALS-PRESENT' && f.requirement !== 'AUTH-401-MALFORMED');
    if (flagged.length === 0) return [];
    const named = errorObjects(x.response).map((e) => (e.source as Json | undefined)?.parameter).filter((p): p is string => typeof p === 'string');
    const wanted = flagged.map((f) => f.pointer);
    if (named.some((p) => wanted.some((w) => w === p || w.startsWith(p + '[')))) return [];
    return [contract.finding('ERR-SOURCE-PARAMETER', 'response', { pointer: '/errors', message: `no error names the query parameter at fault in source.parameter (expected ${wanted.join(' or ')})`, expected: wanted.join(' or '), actual: named.length ? named.join(', ') : 'none' })];
  },
};

interface PageRequest {
  limit?: number;
  offset?: number;
}

function requestedPage(x: Exchange): PageRequest {
  const page = parseQuery(x.operation!, queryString(x.request.path)).page as Json | undefined;
  if (!page || typeof page !== 'object') return {};
  const number = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
  return { limit: number(page.limit), offset: number(page.offset) };
}

const pageMetaMembers = new WeakMap<Contract, string[]>();

/** The members ListMeta requires (total, pages, page, offset, limit), read from the schema once per contract. */
function requiredMetaMembers(contract: Contract): string[] {
  let members = pageMetaMembers.get(contract);
  if (!members) {
    members = (contract.schemas.ListMeta.required ?? []) as string[];
    pageMetaMembers.set(contract, members);
  }
  return members;
}

const listPageArithmetic: ExchangeCheck = {
  name: 'listPageArithmetic',
  appliesTo: (x) => x.operation?.roles.pageLength !== undefined && x.response.status === 200,
  run(contract, x) {
    const body = jsonBody(x.response);
    if (!body || !Array.isArray(body.data)) return [];
    const requested = requestedPage(x);
    const length = body.data.length;
    const meta = body.meta as Record<string, number> | undefined;
    const findings: Finding[] = [];
    const fail = (id: string, pointer: string, message: string, expected: unknown, actual: unknown) =>
      findings.push(contract.finding(id, 'response', { pointer, message, expected: String(expected), actual: String(actual) }));
    if (!meta || !requiredMetaMembers(contract).every((k) => Number.isInteger(meta[k]))) {
      if (requested.limit !== undefined && length > requested.limit) fail('NG-PAGE-LENGTH', '/data', `data holds ${length} items, more than page[limit]=${requested.limit}`, `≤ ${requested.limit}`, length);
      return findings;
    }
    const effectiveLimit = requested.limit === undefined ? meta.limit : Math.min(requested.limit, meta.limit);
    if (requested.offset !== undefined && meta.offset !== requested.offset) fail('NG-META-OFFSET-ECHO', '/meta/offset', `meta.offset is ${meta.offset}, the request asked for offset ${requested.offset}`, requested.offset, meta.offset);
    if (requested.limit !== undefined && meta.limit > requested.limit) fail('NG-META-LIMIT-EFFECTIVE', '/meta/limit', `meta.limit is ${meta.limit}, above the requested ${requested.limit}`, `≤ ${requested.limit}`, meta.limit);
    if (meta.limit >= 1) {
      const pages = Math.ceil(meta.total / meta.limit);
      if (!(meta.pages === pages || (meta.total === 0 && (meta.pages === 0 || meta.pages === 1)))) fail('NG-META-PAGES', '/meta/pages', `meta.pages is ${meta.pages}, ceil(total ${meta.total} / limit ${meta.limit}) is ${pages}`, pages, meta.pages);
    }
    if (effectiveLimit >= 1) {
      const offset = requested.offset ?? meta.offset;
      const expectedLength = Math.min(effectiveLimit, Math.max(0, meta.total - offset));
      // The maximum page size is not shown (section 8): a shorter page than was due may be a cap
      // of `length` that meta.limit does not report, which only breaks the SHOULD on meta.limit.
      if (length >= 1 && length < expectedLength) fail('NG-META-LIMIT-EFFECTIVE', '/meta/limit', `data holds ${length} items where ${expectedLength} were due: a page size cap of ${length} that meta.limit (${meta.limit}) does not report`, `≤ ${length}`, meta.limit);
      else if (length !== expectedLength) fail('NG-PAGE-LENGTH', '/data', `data holds ${length} items; with total ${meta.total}, offset ${offset} and limit ${effectiveLimit} it should hold ${expectedLength}`, expectedLength, length);
      const page = Math.floor(offset / effectiveLimit) + 1;
      if (meta.page !== page) fail('NG-META-PAGE-NUMBER', '/meta/page', `meta.page is ${meta.page}, floor(offset ${offset} / limit ${effectiveLimit}) + 1 is ${page}`, page, meta.page);
    }
    findings.push(...deprecatedMetaFindings(contract, meta));
    return findings;
  },
};

interface DeprecatedMember {
  name: string;
  replacement?: string;
}

const deprecatedMetaMembers = new WeakMap<Contract, DeprecatedMember[]>();

/** The deprecated members of ListMeta and what replaces each, read from the schema once per contract. */
function deprecatedMembers(contract: Contract): DeprecatedMember[] {
  let members = deprecatedMetaMembers.get(contract);
  if (!members) {
    const properties = (contract.schemas.ListMeta.properties ?? {}) as Record<string, Json>;
    members = Object.entries(properties)
      .filter(([, schema]) => schema.deprecated === true)
      .map(([name, schema]) => ({ name, replacement: typeof schema['x-replaced-by'] === 'string' ? schema['x-replaced-by'] : undefined }));
    deprecatedMetaMembers.set(contract, members);
  }
  return members;
}

function deprecatedMetaFindings(contract: Contract, meta: Record<string, number>): Finding[] {
  const findings: Finding[] = [];
  const present = deprecatedMembers(contract).filter(({ name }) => name in meta);
  const names = present.map(({ name }) => name).join(', ');
  if (present.length > 0) findings.push(contract.finding('NG-META-DEPRECATED-PRESENT', 'response', { pointer: '/meta', message: `deprecated meta members sent: ${names}`, actual: names }));
  for (const { name, replacement } of present) {
    if (replacement !== undefined && meta[name] !== meta[replacement]) {
      findings.push(contract.finding('NG-META-DEPRECATED-AGREE', 'response', { pointer: `/meta/${name}`, message: `meta.${name} is ${meta[name]} but meta.${replacement} is ${meta[replacement]}`, expected: String(meta[replacement]), actual: String(meta[name]) }));
    }
  }
  return findings;
}

const createdResourceEchoes: ExchangeCheck = {
  name: 'createdResourceEchoes',
  appliesTo: (x) => (x.operation?.roles.attributesEcho !== undefined || x.operation?.roles.relationshipsEcho !== undefined) && x.response.status === 201,
  run(contract, x, options) {
    const sent = jsonBody(x.request)?.data as Json | undefined;
    const created = jsonBody(x.response)?.data as Json | undefined;
    if (!sent || !created || typeof created !== 'object') return [];
    const findings: Finding[] = [];
    const sentAttributes = (sent.attributes ?? {}) as Json;
    const createdAttributes = (created.attributes ?? {}) as Json;
    const values = options.includeValues !== false;
    const shown = (value: unknown) => (values ? showValue(value) : undefined);
    const echo = contract.requirementOf(x.operation!, 'attributesEcho');
    const serverSet = new Set(serverAttributes(x.operation!).map((m) => m.name));
    for (const [name, value] of Object.entries(echo ? sentAttributes : {})) {
      if (serverSet.has(name) || sameJson(createdAttributes[name], value)) continue;
      const message = values
        ? `attribute ${name} was sent as ${showValue(value)} but came back as ${showValue(createdAttributes[name])}`
        : `attribute ${name} did not come back as it was sent`;
      findings.push(contract.finding(echo!.id, 'response', { pointer: `/data/attributes/${name}`, message, expected: shown(value), actual: shown(createdAttributes[name]) }));
    }
    const relationshipsEcho = contract.requirementOf(x.operation!, 'relationshipsEcho');
    if (relationshipsEcho) findings.push(...relationshipLinkageFindings(contract, relationshipsEcho.id, sent.relationships, created.relationships, shown));
    return findings;
  },
};

const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/**
 * Section 4.3: the created resource's relationships are those of the request. What a relationship
 * links to (`data`) is held; `links` and `meta` are optional members a server may add or drop.
 */
function relationshipLinkageFindings(contract: Contract, requirement: string, sent: unknown, created: unknown, shown: (value: unknown) => string | undefined): Finding[] {
  const createdRelationships = asObject(created);
  return Object.entries(asObject(sent)).flatMap(([name, relationship]) => {
    const linkage = asObject(relationship);
    if (!('data' in linkage)) return [];
    const came = asObject(createdRelationships[name]).data;
    if (sameJson(came, linkage.data)) return [];
    const pointer = `/data/relationships/${escapeToken(name)}/data`;
    return [contract.finding(requirement, 'response', { pointer, message: `relationship ${name} of the created resource does not link to what was sent`, expected: shown(linkage.data), actual: shown(came) })];
  });
}

const acceptedWithoutBody: ExchangeCheck = {
  name: 'acceptedWithoutBody',
  appliesTo: (x) => x.response.status === 202 && x.operation !== null,
  run: (contract) => [contract.finding('CREATE-202-ACCEPTED', 'response', { message: 'answered 202 Accepted; the body of 202 is not shown, so body checks were skipped' })],
};

export const exchangeChecks: ExchangeCheck[] = [
  unauthenticatedNot401,
  invalidAnswered2xx,
  unlistedSuccess,
  statusListed,
  serverError,
  errorStatusMatches,
  wwwAuthenticateOn401,
  errorSourcePointerResolves,
  errorSourceParameterNamed,
  listPageArithmetic,
  createdResourceEchoes,
  acceptedWithoutBody,
];

/** Deep equality that survives pathologically deep documents (a stack overflow counts as unequal). */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return isDeepStrictEqual(a, b);
  } catch {
    return false;
  }
}

/** Runs every check that applies; `includeValues: false` keeps body values out of messages. */
export function checkExchange(contract: Contract, exchange: Exchange, options: ValidateOptions = {}): Finding[] {
  return exchangeChecks.filter((check) => check.appliesTo(exchange)).flatMap((check) => check.run(contract, exchange, options));
}
