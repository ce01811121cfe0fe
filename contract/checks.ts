// Checks over one whole exchange (request and response together), shared by the suite and the
// proxy. Each check is a small pure function with a declared scope. It returns what it found
// broken and tells its verdict what it judged and held, or could not judge and why: a
// requirement is passed only when a check judged it. Which requirements a check may judge is the
// catalogue's to say (`judgedBy`); judging another is an error in the kit, never a finding.
import type { Contract, Operation, OperationRole } from './contract.ts';
import { carriesCredentials, headerValue } from './credentials.ts';
import { escapeToken, hasValueAt, hasValueAtTokens, pointerTokens, resolvePointer } from './resolve.ts';
import { parsedBody, parseQuery, queryString, responseDocument } from './validate.ts';
import { repeatedMemberName, wholeNumbersWithFraction } from './json-text.ts';
import type { Assessment, Finding, HttpRequest, HttpResponse, Location, ValidateOptions } from './types.ts';
import { isDeepStrictEqual } from 'node:util';
import { showValue } from './messages.ts';
import { namesShownAt, schemaMembers, serverAttributes } from './members.ts';
import {
  deprecatedMetaMembers,
  FILTER_PARAMETER,
  filterMembers,
  INCLUDE_PARAMETER,
  includeNames,
  requiredMetaMembers,
} from './lists.ts';

export interface Exchange {
  operation: Operation | null;
  request: HttpRequest;
  response: HttpResponse;
  /** What validateRequest found, so checks need not validate again. */
  requestFindings: Finding[];
}

/** What a check says beside its findings (each finding is a requirement it judged and found broken). */
export interface CheckVerdict {
  /** It judged `requirement` on this exchange and it held. */
  held(requirement: string, location?: Location): void;
  /**
   * It met `requirement` on this exchange, but a value it cannot reason about kept it from judging; `reason` says
   * which.
   */
  cannotJudge(requirement: string, reason: string, location?: Location): void;
}

export interface ExchangeCheck {
  name: string;
  /**
   * The roles it judges (an operation's `x-requirements` in openapi.yaml): it may judge the
   * requirement each operation names for one of them, besides those whose `judgedBy` names it,
   * so a new operation's requirements are bound by the contract's data alone.
   */
  roles?: OperationRole[];
  appliesTo(exchange: Exchange): boolean;
  run(contract: Contract, exchange: Exchange, options: ValidateOptions, verdict: CheckVerdict): Finding[];
}

type Json = Record<string, unknown>;

const is2xx = (status: number) => status >= 200 && status < 300;
const is4xx = (status: number) => status >= 400 && status < 500;
const isRequestProblem = (f: Finding) => f.location === 'request' && f.level === 'MUST';

function jsonBody(message: HttpRequest | HttpResponse): Json | undefined {
  if (!message.bodyText) return undefined;
  const parsed = parsedBody(message);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
    ? (parsed.value as Json)
    : undefined;
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
  return (
    exchange.operation !== null && is2xx(exchange.response.status) && exchange.requestFindings.some(isRequestProblem)
  );
}

const hasNoCredentials = (contract: Contract, x: Exchange) =>
  !carriesCredentials(x.request.headers, contract.legacyHeader);
const isCredentialProblem = (f: Finding) => f.requirement === 'AUTH-CREDENTIALS-PRESENT';

const isValidationProblem = (f: Finding) => isRequestProblem(f) && !isCredentialProblem(f);

// Section 5: an unauthenticated request yields 401, whatever else is wrong with it. Visible in one
// exchange when it carries no credentials at all and is answered 401, served, or answered another
// 4xx (one the operation lists, or one the contract names for no condition, such as 422); a
// generic status such as 429 says nothing either way.
const unauthenticatedNot401: ExchangeCheck = {
  name: 'unauthenticatedNot401',
  appliesTo: (x) => x.operation !== null && (is2xx(x.response.status) || is4xx(x.response.status)),
  run(contract, x, _options, verdict) {
    if (!hasNoCredentials(contract, x)) return [];
    const status = x.response.status;
    if (contract.genericStatuses.has(status)) {
      verdict.cannotJudge(
        'AUTH-401-NO-CREDENTIALS',
        `${status} is a generic status, answered whatever the credentials`,
      );
      return [];
    }
    const invalid = x.requestFindings.some(isValidationProblem);
    if (status === 401) {
      verdict.held('AUTH-401-NO-CREDENTIALS');
      if (invalid) verdict.held('AUTH-401-BEFORE-400');
      return [];
    }
    const validatedFirst = status === 400 && invalid;
    const requirement = validatedFirst ? 'AUTH-401-BEFORE-400' : 'AUTH-401-NO-CREDENTIALS';
    const message = validatedFirst
      ? 'a request without credentials was answered 400: credentials are judged before the request is validated'
      : `a request without credentials was answered ${status}`;
    return [contract.finding(requirement, 'exchange', { message, expected: '401', actual: String(status) })];
  },
};

/** Statuses that refuse a request for who sent it (section 5), not for what it holds. */
const CREDENTIAL_STATUSES = [401, 403];

/**
 * A 4xx that can only be about the request's content: its credentials read as one of the schemes and were not what was
 * refused.
 */
function refusedForItsProblems(x: Exchange): boolean {
  const credentialsUnreadable = x.requestFindings.some(
    (f) => isCredentialProblem(f) || f.requirement === 'AUTH-401-MALFORMED',
  );
  return !credentialsUnreadable && !CREDENTIAL_STATUSES.includes(x.response.status);
}

/**
 * A 4xx the contract names for an operation: one it lists (400 for an invalid request, section 7;
 * 404 and 409, whose conditions are not shown), or one HTTP defines for a condition the
 * specification leaves open (x-generic-statuses). Any other 4xx (422, say) refuses a request with
 * a status the specification gives no condition for.
 */
function isNamedRefusal(contract: Contract, operation: Operation, status: number): boolean {
  return is4xx(status) && (operation.statuses.includes(status) || contract.genericStatuses.has(status));
}

/** The status of an invalid request (section 7). */
const INVALID_REQUEST_STATUS = 400;

/**
 * The statuses that refuse a request breaking any of `requirements` for what it holds: 400 and what the catalogue names
 * (refusedWith).
 */
export function refusalsFor(contract: Contract, requirements: readonly string[]): number[] {
  return [
    ...new Set([INVALID_REQUEST_STATUS, ...requirements.flatMap((id) => contract.requirement(id).refusedWith ?? [])]),
  ].sort((a, b) => a - b);
}

/** The refusals the contract names for an operation, as an expectation reads them. */
function namedRefusals(contract: Contract, operation: Operation): string {
  const listed = operation.statuses.filter(is4xx);
  return `${listed.join(', ')} or a generic status (${[...contract.genericStatuses].join(', ')})`;
}

// A request the contract rejects is refused with a status the contract names for it: answering it
// 2xx, or refusing it with a 4xx the contract names for no condition (a 422), breaks what serving
// it breaks (`acceptedBreaks`), at that requirement's level, as the suite's cases judge it; a named
// refusal holds that when it is 400 or one the catalogue names for the problem (`refusedWith`): a
// 404 or a 429 says nothing about what the request holds. Credentials come first
// (section 5): a request without valid-looking credentials that is refused shows nothing about
// its other problems.
const invalidAnswered2xx: ExchangeCheck = {
  name: 'invalidAnswered2xx',
  appliesTo: (x) =>
    x.operation !== null &&
    (is2xx(x.response.status) || is4xx(x.response.status)) &&
    x.requestFindings.some(isValidationProblem),
  run(contract, x, _options, verdict) {
    // Each broken requirement once, under what serving it breaks: the exchange shows the server did not refuse it as
    // the contract says.
    const problems = x.requestFindings.filter(isValidationProblem);
    const broken = problems.map((problem) => ({
      problem,
      requirement: contract.requirementBrokenByAccepting(problem.requirement).id,
    }));
    const firstPerRequirement = broken.filter((b, i) => broken.findIndex((c) => c.requirement === b.requirement) === i);
    const status = x.response.status;
    if (isNamedRefusal(contract, x.operation!, status)) {
      for (const { requirement } of firstPerRequirement) {
        if (!refusedForItsProblems(x)) {
          verdict.cannotJudge(
            requirement,
            `credentials come first (section 5) and this ${status} may refuse them: it shows nothing about what the request holds`,
          );
          continue;
        }
        if (refusalsFor(contract, [requirement]).includes(status)) verdict.held(requirement);
        else
          verdict.cannotJudge(
            requirement,
            `${status} refuses for a condition of its own (${contract.genericStatuses.has(status) ? 'a generic status, answered whatever the request holds' : 'one the specification does not show'}), not necessarily for what the request holds`,
          );
      }
      return [];
    }
    const expected = is2xx(status) ? '4xx' : namedRefusals(contract, x.operation!);
    const answered = is2xx(status) ? `${status}` : `${status}, a refusal the contract names for no condition`;
    return firstPerRequirement.map(({ problem, requirement }) =>
      contract.finding(requirement, 'exchange', {
        pointer: problem.pointer,
        message: `a request the contract rejects (${problem.message}) was answered ${answered}`,
        expected,
        actual: String(status),
      }),
    );
  },
};

// A 2xx answer to a request the contract accepts is one the operation lists.
const unlistedSuccess: ExchangeCheck = {
  name: 'unlistedSuccess',
  roles: ['success'],
  appliesTo: (x) => x.operation !== null && is2xx(x.response.status),
  run(contract, x, _options, verdict) {
    // A request that must be refused is judged by the checks above, once.
    if (x.requestFindings.some(isRequestProblem)) return [];
    const operation = x.operation!;
    if (operation.statuses.includes(x.response.status)) {
      verdict.held(contract.successRequirement(operation.operationId).id, 'response');
      return [];
    }
    const listed = operation.statuses.filter(is2xx).join(' or ');
    return [
      contract.finding(contract.successRequirement(operation.operationId).id, 'response', {
        message: `${operation.operationId} answered ${x.response.status}, a success status it does not list (${listed})`,
        expected: listed,
        actual: String(x.response.status),
      }),
    ];
  },
};

const statusListed: ExchangeCheck = {
  name: 'statusListed',
  appliesTo: (x) => x.operation !== null && !is2xx(x.response.status) && x.response.status < 500,
  run(contract, x, _options, verdict) {
    const operation = x.operation!;
    const status = x.response.status;
    if (operation.statuses.includes(status) || contract.genericStatuses.has(status)) {
      verdict.held('EXCH-STATUS-LISTED', 'response');
      return [];
    }
    // A request that must be refused, refused with a status the contract does not name, is judged by the checks above,
    // once.
    if (is4xx(status) && x.requestFindings.some(isRequestProblem)) {
      verdict.cannotJudge(
        'EXCH-STATUS-LISTED',
        `a request the contract rejects was refused with ${status}: judged under what serving it breaks`,
        'response',
      );
      return [];
    }
    return [
      contract.finding('EXCH-STATUS-LISTED', 'response', {
        message: `status ${status} is not listed for ${operation.operationId} (listed: ${operation.statuses.join(', ')})`,
        expected: operation.statuses.join(', '),
        actual: String(status),
      }),
    ];
  },
};

// Sections 4.1 to 4.3 list every status the three operations answer and section 7 names them; none is 5xx.
const serverError: ExchangeCheck = {
  name: 'serverError',
  appliesTo: (x) => x.operation !== null,
  run(contract, x, _options, verdict) {
    if (x.response.status < 500) {
      verdict.held('ERR-NO-5XX');
      return [];
    }
    const status = String(x.response.status);
    const message = x.requestFindings.some(isRequestProblem)
      ? `an invalid request was answered ${status}; it must be answered 4xx`
      : `a valid request was answered ${status}`;
    return [
      contract.finding('ERR-NO-5XX', 'exchange', { message, expected: 'a status the operation lists', actual: status }),
    ];
  },
};

const errorStatusMatches: ExchangeCheck = {
  name: 'errorStatusMatches',
  appliesTo: (x) => x.response.status >= 400,
  run(contract, x, _options, verdict) {
    const expected = String(x.response.status);
    return errorObjects(x.response).flatMap((error, index) => {
      if (typeof error.status !== 'string') return [];
      if (error.status === expected) {
        verdict.held('ERR-STATUS-STRING', 'response');
        return [];
      }
      return [
        contract.finding('ERR-STATUS-STRING', 'response', {
          pointer: `/errors/${index}/status`,
          message: `/errors/${index}/status must be "${expected}", the HTTP status, got "${error.status}"`,
          expected,
          actual: error.status,
        }),
      ];
    });
  },
};

const wwwAuthenticateOn401: ExchangeCheck = {
  name: 'wwwAuthenticateOn401',
  appliesTo: (x) => x.response.status === 401,
  run(contract, x, _options, verdict) {
    if (headerValue(x.response.headers, 'www-authenticate')) {
      verdict.held('AUTH-WWW-AUTHENTICATE', 'response');
      return [];
    }
    return [
      contract.finding('AUTH-WWW-AUTHENTICATE', 'response', {
        pointer: 'WWW-Authenticate',
        message: 'a 401 response should carry a WWW-Authenticate header',
        expected: 'WWW-Authenticate: Bearer ...',
        actual: 'absent',
      }),
    ];
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
  run(contract, x, _options, verdict) {
    const parsed = parsedBody(x.request);
    return errorObjects(x.response).flatMap((error, index) => {
      const pointer = (error.source as Json | undefined)?.pointer;
      if (typeof pointer !== 'string') return [];
      if (parsed.ok && (pointer === '' || pointerResolves(parsed.value, pointer))) {
        verdict.held('ERR-SOURCE-POINTER', 'response');
        return [];
      }
      return [
        contract.finding('ERR-SOURCE-POINTER', 'response', {
          pointer: `/errors/${index}/source/pointer`,
          message: `source.pointer "${pointer}" does not resolve in the request document`,
          expected: 'a pointer into the request document',
          actual: pointer,
        }),
      ];
    });
  },
};

const errorSourceParameterNamed: ExchangeCheck = {
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

interface PageRequest {
  limit?: number;
  offset?: number;
}

function requestedPage(x: Exchange): PageRequest {
  const page = parseQuery(x.operation!, queryString(x.request.path)).page as Json | undefined;
  if (!page || typeof page !== 'object') return {};
  return { limit: integerOrUndefined(page.limit), offset: integerOrUndefined(page.offset) };
}

function integerOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** The meta members the page arithmetic reads, when every one is an integer that can be a count or a position. */
interface PageMeta {
  total: number;
  pages: number;
  page: number;
  offset: number;
  limit: number;
}

/** Why a list answer's meta gives the page arithmetic nothing to compute with, or undefined when it does. */
function unusableMeta(operation: Operation, meta: Json): string | undefined {
  const notInteger = requiredMetaMembers(operation).find((k) => !Number.isInteger(meta[k]));
  if (notInteger !== undefined)
    return `meta.${notInteger} was ${meta[notInteger] === undefined ? 'absent' : 'not an integer'}`;
  return undefined;
}

/** The roles the page arithmetic judges: what a list's page and meta report adds up (sections 4.1, 8, 9). */
const PAGE_ARITHMETIC_ROLES: OperationRole[] = [
  'pageLength',
  'metaTotal',
  'metaOffsetEcho',
  'metaPages',
  'metaLimitEffective',
  'metaPageNumber',
  'metaDeprecatedAgree',
  'metaDeprecatedPresent',
];

/**
 * What the page arithmetic found on one list answer, and what it held or could not judge there,
 * by role: each finding carries the requirement the list's operation names for the role (a role
 * it names none for is not judged).
 */
class PageVerdict {
  readonly findings: Finding[] = [];

  constructor(
    private readonly contract: Contract,
    private readonly operation: Operation,
    private readonly verdict: CheckVerdict,
  ) {}

  fail(role: OperationRole, pointer: string, message: string, expected: unknown, actual: unknown): void {
    const id = this.operation.roles[role];
    if (id !== undefined)
      this.findings.push(
        this.contract.finding(id, 'response', { pointer, message, expected: String(expected), actual: String(actual) }),
      );
  }

  /** A finding without an expected value (what was observed, such as deprecated members sent). */
  observe(role: OperationRole, pointer: string, message: string, actual: string): void {
    const id = this.operation.roles[role];
    if (id !== undefined) this.findings.push(this.contract.finding(id, 'response', { pointer, message, actual }));
  }

  /** Marks as held each role's requirement that no finding of this answer broke. */
  holdUnlessBroken(...roles: OperationRole[]): void {
    for (const role of roles) {
      const id = this.operation.roles[role];
      if (id !== undefined && !this.findings.some((f) => f.requirement === id)) this.verdict.held(id, 'response');
    }
  }

  cannot(reason: string, ...roles: OperationRole[]): void {
    for (const role of roles) {
      const id = this.operation.roles[role];
      if (id !== undefined) this.verdict.cannotJudge(id, reason, 'response');
    }
  }
}

// Sections 4.1, 8: what one list page reports adds up. Every requirement it can break is judged,
// or marked not judged with the value that kept it from it: never passed in silence.
const listPageArithmetic: ExchangeCheck = {
  name: 'listPageArithmetic',
  roles: PAGE_ARITHMETIC_ROLES,
  appliesTo: (x) => x.operation?.roles.pageLength !== undefined && x.response.status === 200,
  run(contract, x, _options, verdict) {
    const operation = x.operation!;
    const pageVerdict = new PageVerdict(contract, operation, verdict);
    const body = jsonBody(x.response);
    if (!body || !Array.isArray(body.data)) {
      pageVerdict.cannot('the list answer held no data array', 'pageLength');
      return [];
    }
    const requested = requestedPage(x);
    const length = body.data.length;
    const rawMeta = body.meta;
    const metaObject =
      rawMeta !== null && typeof rawMeta === 'object' && !Array.isArray(rawMeta) ? (rawMeta as Json) : undefined;
    const unusable = metaObject ? unusableMeta(operation, metaObject) : 'the list answer had no meta';
    if (!metaObject || unusable !== undefined) {
      if (requested.limit !== undefined) {
        if (length > requested.limit)
          pageVerdict.fail(
            'pageLength',
            '/data',
            `data holds ${length} items, more than page[limit]=${requested.limit}`,
            `≤ ${requested.limit}`,
            length,
          );
        pageVerdict.holdUnlessBroken('pageLength');
      } else pageVerdict.cannot(`${unusable} and the request gave no page[limit]`, 'pageLength');
      if (metaObject)
        pageVerdict.cannot(unusable!, 'metaPages', 'metaPageNumber', 'metaOffsetEcho', 'metaLimitEffective');
      if (metaObject) judgeDeprecatedMeta(operation, metaObject as Record<string, number>, pageVerdict);
      return pageVerdict.findings;
    }
    const meta = metaObject as unknown as PageMeta;
    if (requested.offset !== undefined) {
      if (meta.offset !== requested.offset)
        pageVerdict.fail(
          'metaOffsetEcho',
          '/meta/offset',
          `meta.offset is ${meta.offset}, the request asked for offset ${requested.offset}`,
          requested.offset,
          meta.offset,
        );
      pageVerdict.holdUnlessBroken('metaOffsetEcho');
    }
    // A page size below 1 cannot be the limit applied (section 8: page.limit has a minimum of 1).
    const metaLimitUsable = meta.limit >= 1;
    if (!metaLimitUsable)
      pageVerdict.fail(
        'metaLimitEffective',
        '/meta/limit',
        `meta.limit is ${meta.limit}: a page size below 1 cannot be the limit applied${requested.limit === undefined ? '' : ` (the request asked for ${requested.limit})`}`,
        requested.limit === undefined ? '≥ 1' : `≤ ${requested.limit}`,
        meta.limit,
      );
    else if (requested.limit !== undefined && meta.limit > requested.limit)
      pageVerdict.fail(
        'metaLimitEffective',
        '/meta/limit',
        `meta.limit is ${meta.limit}, above the requested ${requested.limit}`,
        `≤ ${requested.limit}`,
        meta.limit,
      );
    if (meta.total < 0) {
      pageVerdict.fail(
        'metaTotal',
        '/meta/total',
        `meta.total is ${meta.total}: a count of items is never negative`,
        '≥ 0',
        meta.total,
      );
      pageVerdict.cannot(`meta.total was ${meta.total}`, 'metaPages');
    } else {
      judgePages(meta, pageVerdict);
      pageVerdict.holdUnlessBroken('metaPages');
    }
    const effectiveLimit =
      requested.limit === undefined
        ? metaLimitUsable
          ? meta.limit
          : undefined
        : metaLimitUsable
          ? Math.min(requested.limit, meta.limit)
          : requested.limit;
    const offset = requested.offset ?? meta.offset;
    const lengthUnknown =
      meta.total < 0
        ? `meta.total was ${meta.total}`
        : offset < 0
          ? `meta.offset was ${offset}`
          : effectiveLimit === undefined
            ? `meta.limit was ${meta.limit} and the request gave no page[limit]`
            : undefined;
    if (lengthUnknown !== undefined) {
      pageVerdict.cannot(lengthUnknown, 'pageLength', 'metaPageNumber');
      if (metaLimitUsable) pageVerdict.holdUnlessBroken('metaLimitEffective');
    } else {
      const limit = effectiveLimit!;
      const expectedLength = Math.min(limit, Math.max(0, meta.total - offset));
      // The maximum page size is not shown (section 8): a shorter page than was due may be a cap
      // of `length` that meta.limit does not report, which only breaks the SHOULD on meta.limit.
      if (length >= 1 && length < expectedLength)
        pageVerdict.fail(
          'metaLimitEffective',
          '/meta/limit',
          `data holds ${length} items where ${expectedLength} were due: a page size cap of ${length} that meta.limit (${meta.limit}) does not report`,
          `≤ ${length}`,
          meta.limit,
        );
      else if (length !== expectedLength)
        pageVerdict.fail(
          'pageLength',
          '/data',
          `data holds ${length} items; with total ${meta.total}, offset ${offset} and limit ${limit} it should hold ${expectedLength}`,
          expectedLength,
          length,
        );
      const page = Math.floor(offset / limit) + 1;
      if (meta.page !== page)
        pageVerdict.fail(
          'metaPageNumber',
          '/meta/page',
          `meta.page is ${meta.page}, floor(offset ${offset} / limit ${limit}) + 1 is ${page}`,
          page,
          meta.page,
        );
      pageVerdict.holdUnlessBroken('pageLength', 'metaPageNumber', 'metaLimitEffective');
    }
    judgeDeprecatedMeta(operation, metaObject as Record<string, number>, pageVerdict);
    return pageVerdict.findings;
  },
};

/**
 * meta.pages is ceil(total / limit), an empty result 0 or 1; with a limit below 1 no page count is right but for an
 * empty result.
 */
function judgePages(meta: PageMeta, verdict: PageVerdict): void {
  if (meta.total === 0) {
    if (meta.pages !== 0 && meta.pages !== 1)
      verdict.fail(
        'metaPages',
        '/meta/pages',
        `meta.pages is ${meta.pages}; an empty result has 0 or 1 pages`,
        '0 or 1',
        meta.pages,
      );
    return;
  }
  if (meta.limit < 1) {
    verdict.fail(
      'metaPages',
      '/meta/pages',
      `meta.pages is ${meta.pages} but meta.limit is ${meta.limit}: ceil(total ${meta.total} / limit ${meta.limit}) is no page count`,
      'a meta.limit of at least 1',
      meta.limit,
    );
    return;
  }
  const pages = Math.ceil(meta.total / meta.limit);
  if (meta.pages !== pages)
    verdict.fail(
      'metaPages',
      '/meta/pages',
      `meta.pages is ${meta.pages}, ceil(total ${meta.total} / limit ${meta.limit}) is ${pages}`,
      pages,
      meta.pages,
    );
}

/** Deprecated meta members (section 9): noted when sent, and each agrees with its replacement. */
function judgeDeprecatedMeta(operation: Operation, meta: Record<string, number>, verdict: PageVerdict): void {
  const present = deprecatedMetaMembers(operation).filter(({ name }) => name in meta);
  if (present.length === 0) {
    verdict.holdUnlessBroken('metaDeprecatedPresent');
    return;
  }
  const names = present.map(({ name }) => name).join(', ');
  verdict.observe('metaDeprecatedPresent', '/meta', `deprecated meta members sent: ${names}`, names);
  for (const { name, replacement } of present) {
    if (replacement === undefined) continue;
    if (meta[name] !== meta[replacement])
      verdict.fail(
        'metaDeprecatedAgree',
        `/meta/${name}`,
        `meta.${name} is ${meta[name]} but meta.${replacement} is ${meta[replacement]}`,
        meta[replacement],
        meta[name],
      );
    else verdict.holdUnlessBroken('metaDeprecatedAgree');
  }
}

const createdResourceEchoes: ExchangeCheck = {
  name: 'createdResourceEchoes',
  roles: ['attributesEcho', 'relationshipsEcho'],
  appliesTo: (x) =>
    (x.operation?.roles.attributesEcho !== undefined || x.operation?.roles.relationshipsEcho !== undefined) &&
    x.response.status === 201,
  run(contract, x, options, verdict) {
    // The answer to a request it must refuse is judged under what the request broke (invalidAnswered2xx).
    if (x.requestFindings.some(isRequestProblem)) return [];
    const operation = x.operation!;
    const sent = asObject(jsonBody(x.request)?.data);
    const created = jsonBody(x.response)?.data;
    const echo = contract.requirementOf(operation, 'attributesEcho')?.id;
    const relationshipsEcho = contract.requirementOf(operation, 'relationshipsEcho')?.id;
    if (created === null || typeof created !== 'object' || Array.isArray(created)) {
      for (const requirement of [echo, relationshipsEcho])
        if (requirement !== undefined)
          verdict.cannotJudge(requirement, 'the 201 answer held no data object', 'response');
      return [];
    }
    const findings: Finding[] = [];
    const createdAttributes = asObject((created as Json).attributes);
    const values = options.includeValues !== false;
    const shown = (value: unknown) => (values ? showValue(value) : undefined);
    const serverSet = new Set(serverAttributes(operation).map((m) => m.name));
    const sentAttributes =
      echo === undefined ? [] : Object.entries(asObject(sent.attributes)).filter(([name]) => !serverSet.has(name));
    for (const [name, value] of sentAttributes) {
      if (sameJson(createdAttributes[name], value)) continue;
      const message = values
        ? `attribute ${name} was sent as ${showValue(value)} but came back as ${showValue(createdAttributes[name])}`
        : `attribute ${name} did not come back as it was sent`;
      findings.push(
        contract.finding(echo!, 'response', {
          pointer: `/data/attributes/${name}`,
          message,
          expected: shown(value),
          actual: shown(createdAttributes[name]),
        }),
      );
    }
    if (sentAttributes.length > 0 && findings.length === 0) verdict.held(echo!, 'response');
    if (relationshipsEcho !== undefined)
      findings.push(
        ...relationshipLinkageFindings(
          contract,
          relationshipsEcho,
          echoedRelationships(operation, sent.relationships),
          (created as Json).relationships,
          shown,
          verdict,
        ),
      );
    return findings;
  },
};

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

const shownRelationshipNames = new WeakMap<Operation, { names: ReadonlySet<string> | undefined }>();

/**
 * The relationships sent whose echo is judged: those the request schema names, when it marks other
 * names not shown (x-names-not-shown: a server may echo, ignore or refuse those); else all.
 */
function echoedRelationships(operation: Operation, sent: unknown): Json {
  let shown = shownRelationshipNames.get(operation);
  if (!shown)
    shownRelationshipNames.set(
      operation,
      (shown = {
        names: operation.requestBody ? namesShownAt(operation.requestBody, '/data/relationships') : undefined,
      }),
    );
  const names = shown.names;
  return names === undefined
    ? asObject(sent)
    : Object.fromEntries(Object.entries(asObject(sent)).filter(([name]) => names.has(name)));
}

/**
 * Section 4.3: the created resource's relationships are those of the request. What a relationship
 * links to (`data`) is held; `links` and `meta` are optional members a server may add or drop.
 */
function relationshipLinkageFindings(
  contract: Contract,
  requirement: string,
  sent: unknown,
  created: unknown,
  shown: (value: unknown) => string | undefined,
  verdict: CheckVerdict,
): Finding[] {
  const createdRelationships = asObject(created);
  return Object.entries(asObject(sent)).flatMap(([name, relationship]) => {
    const linkage = asObject(relationship);
    if (!('data' in linkage)) return [];
    const came = asObject(createdRelationships[name]).data;
    if (sameJson(came, linkage.data)) {
      verdict.held(requirement, 'response');
      return [];
    }
    const pointer = `/data/relationships/${escapeToken(name)}/data`;
    return [
      contract.finding(requirement, 'response', {
        pointer,
        message: `relationship ${name} of the created resource does not link to what was sent`,
        expected: shown(linkage.data),
        actual: shown(came),
      }),
    ];
  });
}

const acceptedWithoutBody: ExchangeCheck = {
  name: 'acceptedWithoutBody',
  appliesTo: (x) => x.response.status === 202 && x.operation !== null,
  run: (contract) => [
    contract.finding('CREATE-202-ACCEPTED', 'response', {
      message: 'answered 202 Accepted; the body of 202 is not shown, so body checks were skipped',
    }),
  ],
};

// How clients read a response's JSON text beyond the value the contract validates (json-text.ts).
// Section 4 puts every body in a JSON media type; RFC 8259 asks JSON exchanged between systems to
// be UTF-8 (8.1, a MUST) and the names of one object to be unique (4, a SHOULD). A whole number
// written `10.0` or `1e1` is an integer to JSON Schema, so the contract holds; typed clients (Go's
// encoding/json, serde) refuse to decode it into one: a SHOULD.

/** The parsed value of a response's body, when it has one and it is JSON. */
function parsedResponse(response: HttpResponse): { value: unknown } | undefined {
  if (!response.bodyText) return undefined;
  const parsed = parsedBody(response);
  return parsed.ok ? parsed : undefined;
}

const bodyUtf8: ExchangeCheck = {
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

const memberNamesUnique: ExchangeCheck = {
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

/** The members a response schema types `integer`: their pointers (array indices written 0) and each one's tokens. */
interface IntegerMembers {
  pointers: ReadonlySet<string>;
  tokens: readonly (readonly string[])[];
}

const integerMembersOf = new WeakMap<object, IntegerMembers>();

/** The members a response schema types `integer`; built once per schema. */
function integerMembers(schema: Record<string, unknown>): IntegerMembers {
  let members = integerMembersOf.get(schema);
  if (!members) {
    const pointers = new Set(
      schemaMembers(schema)
        .filter((m) => m.integer)
        .map((m) => m.pointer),
    );
    integerMembersOf.set(schema, (members = { pointers, tokens: [...pointers].map(pointerTokens) }));
  }
  return members;
}

const NO_INTEGER_MEMBERS: IntegerMembers = { pointers: new Set(), tokens: [] };

const integerForm: ExchangeCheck = {
  name: 'integerForm',
  appliesTo: (x) => x.operation !== null && parsedResponse(x.response) !== undefined,
  run(contract, x, _options, verdict) {
    const document = responseDocument(contract, x.operation, x.response.status);
    const { pointers, tokens } = document ? integerMembers(document.schema) : NO_INTEGER_MEMBERS;
    // A document with no integer member cannot judge the requirement: no verdict, so it is not passed for this
    // exchange.
    if (pointers.size === 0) return [];
    const written = wholeNumbersWithFraction(x.response.bodyText!, pointers);
    // Held only where an integer member was written (and none with a fraction); otherwise nothing was judged.
    const value = parsedResponse(x.response)!.value;
    if (written.length === 0 && tokens.some((memberTokens) => hasValueAtTokens(value, memberTokens)))
      verdict.held('RES-INTEGER-FORM', 'response');
    return written.map(({ pointer, literal }) =>
      contract.finding('RES-INTEGER-FORM', 'response', {
        pointer,
        message: `${pointer} is the integer ${Number(literal)} written ${literal.slice(0, 40)}: typed clients refuse to decode it into an integer`,
        expected: String(Number(literal)),
        actual: literal.slice(0, 40),
      }),
    );
  },
};

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
const itemsMatchFilter: ExchangeCheck = {
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

/** The include names a list request sent that its contract defines. */
function definedIncludesSent(x: Exchange): string[] {
  const sent = parseQuery(x.operation!, queryString(x.request.path))[INCLUDE_PARAMETER];
  const defined = includeNames(x.operation!);
  return Array.isArray(sent) ? sent.map(String).filter((name) => defined.includes(name)) : [];
}

// The specification shows no include semantics: a list that names a requirement for the role
// `includeHonoured` says an answer with items to a request naming include names its contract
// defines carries those resources in `included` (at the level that requirement carries).
const includeHonoured: ExchangeCheck = {
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
  itemsMatchFilter,
  includeHonoured,
  createdResourceEchoes,
  acceptedWithoutBody,
  bodyUtf8,
  memberNamesUnique,
  integerForm,
];

/** Deep equality that survives pathologically deep documents (a stack overflow counts as unequal). */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return isDeepStrictEqual(a, b);
  } catch {
    return false;
  }
}

const boundSets = new WeakMap<Contract, Map<string, ReadonlySet<string>>>();

/**
 * The requirements a check may judge: those whose `judgedBy` names it, and those an operation names for one of its
 * roles. Computed once per contract.
 */
export function requirementsBoundTo(contract: Contract, check: ExchangeCheck): ReadonlySet<string> {
  let byCheck = boundSets.get(contract);
  if (!byCheck) boundSets.set(contract, (byCheck = new Map<string, ReadonlySet<string>>()));
  let bound = byCheck.get(check.name);
  if (!bound) {
    const byRole = (check.roles ?? []).flatMap((role) => contract.requirementsInRole(role));
    bound = new Set([...contract.requirementsJudgedBy(check.name), ...byRole]);
    byCheck.set(check.name, bound);
  }
  return bound;
}

const operationBoundSets = new WeakMap<Operation, Map<string, ReadonlySet<string>>>();

/**
 * The requirements a check may judge on an exchange of `operation`: those whose `judgedBy` names
 * it, and those this operation names for the check's roles. A role's requirement of another
 * operation is not among them, so a check cannot blame one list for another's page.
 */
export function requirementsBoundFor(
  contract: Contract,
  check: ExchangeCheck,
  operation: Operation | null,
): ReadonlySet<string> {
  if (operation === null || !check.roles?.length) return contract.requirementsJudgedBy(check.name);
  let byCheck = operationBoundSets.get(operation);
  if (!byCheck) operationBoundSets.set(operation, (byCheck = new Map<string, ReadonlySet<string>>()));
  let bound = byCheck.get(check.name);
  if (!bound) {
    const byRole = check.roles.flatMap((role) => operation.roles[role] ?? []);
    bound = new Set([...contract.requirementsJudgedBy(check.name), ...byRole]);
    byCheck.set(check.name, bound);
  }
  return bound;
}

/**
 * Every judge that can break a requirement: the catalogue's (schema routes, judgedBy) and the checks judging a role an
 * operation names it for.
 */
export function judgesOf(contract: Contract, requirementId: string): string[] {
  const byRole = exchangeChecks
    .filter((check) => requirementsBoundTo(contract, check).has(requirementId))
    .map((check) => check.name);
  return [...new Set([...contract.judgesOf(requirementId), ...byRole])];
}

/** A check judged a requirement the catalogue does not bind to it: an error in the kit, never a finding. */
function unbound(check: ExchangeCheck, requirement: string, operation: Operation | null): Error {
  const where = operation === null ? '' : ` on an exchange of ${operation.operationId}`;
  return new Error(
    `check ${check.name} judged ${requirement}, which the catalogue does not bind to it${where} (add ${check.name} to its judgedBy${check.roles ? `, or name it in the operation's x-requirements for the role ${check.roles.join(' or ')}` : ''})`,
  );
}

/** A check's verdict recorded in an assessment, refusing a requirement the catalogue does not bind to the check. */
class AssessedVerdict implements CheckVerdict {
  constructor(
    private readonly check: ExchangeCheck,
    private readonly operation: Operation | null,
    private readonly bound: ReadonlySet<string>,
    private readonly assessment: Assessment,
  ) {}

  held(requirement: string, location: Location = 'exchange'): void {
    this.own(requirement);
    this.assessment.judged.push({ requirement, location });
  }

  cannotJudge(requirement: string, reason: string, location: Location = 'exchange'): void {
    this.own(requirement);
    this.assessment.unjudged.push({ requirement, location, reason });
  }

  found(finding: Finding): void {
    this.own(finding.requirement);
    this.assessment.findings.push(finding);
    this.assessment.judged.push({ requirement: finding.requirement, location: finding.location });
  }

  private own(requirement: string): void {
    if (!this.bound.has(requirement)) throw unbound(this.check, requirement, this.operation);
  }
}

/**
 * Runs every check that applies, and says what each judged and could not judge; `includeValues: false` keeps body
 * values out of messages.
 */
export function assessChecks(contract: Contract, exchange: Exchange, options: ValidateOptions = {}): Assessment {
  const assessment: Assessment = { findings: [], judged: [], unjudged: [] };
  for (const check of exchangeChecks) {
    if (!check.appliesTo(exchange)) continue;
    const verdict = new AssessedVerdict(
      check,
      exchange.operation,
      requirementsBoundFor(contract, check, exchange.operation),
      assessment,
    );
    for (const finding of check.run(contract, exchange, options, verdict)) verdict.found(finding);
  }
  return assessment;
}

const NO_VERDICT: CheckVerdict = { held: () => undefined, cannotJudge: () => undefined };

/**
 * Runs every check that applies, for its findings only (the proxy's path); `includeValues: false` keeps body values out
 * of messages.
 */
export function checkExchange(contract: Contract, exchange: Exchange, options: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const check of exchangeChecks) {
    if (!check.appliesTo(exchange)) continue;
    for (const finding of check.run(contract, exchange, options, NO_VERDICT)) {
      if (!requirementsBoundFor(contract, check, exchange.operation).has(finding.requirement))
        throw unbound(check, finding.requirement, exchange.operation);
      findings.push(finding);
    }
  }
  return findings;
}
