// Validation of one request or one response against the contract, returning findings.
import type { Contract, Operation } from './contract.ts';
import { MEDIA_TYPE, querySchema } from './contract.ts';
import { headerValue, readCredentials } from './credentials.ts';
import { problemsFromErrors, type SchemaProblem } from './messages.ts';
import { buildQuery, parseQueryPairs } from './query.ts';
import { escapeToken } from './resolve.ts';
import type { Finding, Headers, HttpRequest, HttpResponse, Judged, ValidateOptions } from './types.ts';
import type { ErrorObject } from 'ajv';
import { FINDING_LIMITS } from './bounds.ts';

type Schema = Record<string, unknown>;
const GENERIC = 'generic';

/** The operation a method and concrete path address, or null outside the specified three. */
export function route(
  contract: Contract,
  method: string,
  path: string,
  basePath = contract.basePath,
): Operation | null {
  const relative = relativePath(path, basePath);
  if (relative === null) return null;
  const upper = method.toUpperCase();
  return contract.operations.find((o) => o.method === upper && templateMatches(o.pathTemplate, relative)) ?? null;
}

/** The origin-form path of a request target; an absolute-form target (RFC 9112 section 3.2.2) loses its origin. */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(target);
  return match ? match[1] || '/' : target;
}

/** The path below the base path, without query or trailing slash; null when outside it. */
export function relativePath(path: string, basePath: string): string | null {
  const bare = pathWithoutQuery(path);
  const base = withoutTrailingSlashes(basePath);
  if (base !== '' && bare !== base && !(bare.startsWith(base) && bare.charCodeAt(base.length) === SLASH)) return null;
  const rest = withoutTrailingSlashes(bare.slice(base.length));
  return rest === '' ? '/' : rest;
}

const SLASH = 0x2f;

/** A request target's path: what comes before its query or fragment. */
export function pathWithoutQuery(path: string): string {
  const query = path.indexOf('?');
  const fragment = path.indexOf('#');
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  return end < 0 ? path : path.slice(0, end);
}

export function withoutTrailingSlashes(path: string): string {
  return path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

const templatePatterns = new Map<string, RegExp>();

/** Compiled once per template: routing runs on every proxied request. */
function templateMatches(template: string, path: string): boolean {
  let pattern = templatePatterns.get(template);
  if (!pattern) {
    const source = template
      .split('/')
      .map((segment) => (/^\{.+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment)))
      .join('/');
    pattern = new RegExp(`^${source}$`);
    templatePatterns.set(template, pattern);
  }
  return pattern.test(path);
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The query of a request target: what follows the first `?`, up to a `#`. */
export function queryString(path: string): string {
  const index = path.indexOf('?');
  if (index < 0) return '';
  const fragment = path.indexOf('#', index + 1);
  return fragment < 0 ? path.slice(index + 1) : path.slice(index + 1, fragment);
}

// The last few queries parsed: validateRequest and the exchange checks of one exchange read
// the same query in turn. Callers only read the parsed object.
const RECENT_QUERIES = 4;
const recentQueries: { operation: Operation; rawQuery: string; query: Record<string, unknown> }[] = [];

/** The operation's query, parsed and coerced per its parameter schemas. */
export function parseQuery(operation: Operation, rawQuery: string): Record<string, unknown> {
  for (const entry of recentQueries)
    if (entry.operation === operation && entry.rawQuery === rawQuery) return entry.query;
  const query = buildQuery(parseQueryPairs(rawQuery), operation.parameters);
  recentQueries.unshift({ operation, rawQuery, query });
  if (recentQueries.length > RECENT_QUERIES) recentQueries.pop();
  return query;
}

export function mediaTypeEssence(contentType: string | undefined): string {
  const value = contentType ?? '';
  const parameters = value.indexOf(';');
  return (parameters < 0 ? value : value.slice(0, parameters)).trim().toLowerCase();
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

// The last few bodies parsed: validateRequest, validateResponse and the exchange checks of one
// exchange read the same two messages in turn. A short list rather than a WeakMap: ephemeron
// entries keep every parsed body alive into old-generation collection, which cost more than the
// parse they saved (bench/contract.bench.ts). A large body's parse is many times its bytes (a
// megabyte of `{}` items is a quarter of a million objects): it is kept only until the task that
// parsed it ends, so that a thread judging nothing holds no parse of a large body.
const RECENT_PARSES = 4;
const LARGE_BODY_CHARS = 64 * 1024;
const recentParses: { message: HttpRequest | HttpResponse; text: string; parsed: JsonParse }[] = [];
let forgetLargeScheduled = false;

/**
 * Lets go of the parses of large bodies now (a caller about to measure its heap); otherwise done when the parsing task
 * ends.
 */
export function forgetLargeParses(): void {
  forgetLargeScheduled = false;
  for (let i = recentParses.length - 1; i >= 0; i--)
    if (recentParses[i].text.length > LARGE_BODY_CHARS) recentParses.splice(i, 1);
}

/** The message's body parsed once, however many validators and checks read it. */
export function parsedBody(message: HttpRequest | HttpResponse): JsonParse {
  const text = message.bodyText ?? '';
  for (const entry of recentParses) if (entry.message === message && entry.text === text) return entry.parsed;
  const parsed = parseJson(text);
  recentParses.unshift({ message, text, parsed });
  if (recentParses.length > RECENT_PARSES) recentParses.pop();
  if (text.length > LARGE_BODY_CHARS && !forgetLargeScheduled) {
    forgetLargeScheduled = true;
    setImmediate(forgetLargeParses).unref();
  }
  return parsed;
}

/** Appends in a loop: spreading a list of findings into push() overflows the stack past ~100,000. */
function append(findings: Finding[], more: readonly Finding[]): void {
  for (const finding of more) findings.push(finding);
}

export function validateRequest(
  contract: Contract,
  operation: Operation,
  request: HttpRequest,
  options: ValidateOptions = {},
): Finding[] {
  const includeValues = options.includeValues ?? true;
  const findings = credentialFindings(contract, request);
  if (operation.parameters.length > 0) {
    const query = parseQuery(operation, queryString(request.path));
    const found = boundedSchemaErrors(contract, querySchema(operation), query, request.path.length);
    if (found.errors.length > 0)
      append(
        findings,
        routeProblems(contract, operation.operationId, 'request', undefined, problemsOf(found, true, includeValues)),
      );
  }
  if (operation.requestBody)
    append(
      findings,
      requestBodyFindings(
        contract,
        operation.operationId,
        operation.requestBody,
        request,
        includeValues,
        options.bodyOmitted === true,
        options.listedPerShape,
      ),
    );
  return findings;
}

/** The request's credential findings, in a list of their own (the caller adds to it). */
function credentialFindings(contract: Contract, request: HttpRequest): Finding[] {
  const reading = readCredentials(request.headers, contract.legacyHeader);
  if (reading.kind === 'none') {
    return [
      contract.finding('AUTH-CREDENTIALS-PRESENT', 'request', {
        pointer: 'Authorization',
        message: `no credentials: expected Authorization: Bearer r:<session token> or p:<personal access token>, or ${contract.legacyHeader}`,
        expected: 'credentials in one of the three schemes',
        actual: 'none',
      }),
    ];
  }
  if (reading.kind === 'malformed') {
    return [
      contract.finding('AUTH-401-MALFORMED', 'request', {
        pointer: 'Authorization',
        message: `malformed credentials: ${reading.reason}`,
        expected: 'Bearer r:<token> or Bearer p:<token>',
        actual: 'malformed',
      }),
    ];
  }
  return [];
}

function requestBodyFindings(
  contract: Contract,
  operationId: string,
  schema: Schema,
  request: HttpRequest,
  includeValues: boolean,
  bodyOmitted: boolean,
  listedPerShape: number | undefined,
): Finding[] {
  const findings: Finding[] = [];
  if ((request.bodyText ?? '') !== '' || bodyOmitted)
    append(findings, mediaTypeFindings(contract, 'request', request.headers));
  if (!bodyOmitted)
    append(
      findings,
      documentFindings(contract, operationId, 'request', undefined, schema, request, includeValues, listedPerShape),
    );
  return findings;
}

/** Parses a body and validates it; an absent or malformed body is itself a finding. */
function documentFindings(
  contract: Contract,
  operationId: string,
  location: 'request' | 'response',
  status: number | undefined,
  schema: Schema,
  message: HttpRequest | HttpResponse,
  includeValues: boolean,
  listedPerShape?: number,
): Finding[] {
  if ((message.bodyText ?? '').trim() === '') {
    return routeProblems(contract, operationId, location, status, [
      {
        keyword: 'required',
        pointer: '',
        message: `the ${location} body is required`,
        expected: 'a JSON:API document',
      },
    ]);
  }
  const parsed = parsedBody(message);
  if (!parsed.ok) {
    return routeProblems(contract, operationId, location, status, [
      {
        keyword: 'json',
        pointer: '',
        message: `the ${location} body is not well-formed JSON${includeValues ? ` (${parsed.error})` : ''}`,
        expected: 'JSON',
        actual: 'malformed JSON',
      },
    ]);
  }
  const found = boundedSchemaErrors(contract, schema, parsed.value, (message.bodyText ?? '').length);
  if (found.errors.length === 0) return [];
  return routeProblems(
    contract,
    operationId,
    location,
    status,
    problemsOf(found, false, includeValues, listedPerShape),
  );
}

/**
 * Items of a list, and members of an object beyond those the contract names, examined in full
 * once a message is known broken: a message's errors are described from its first items, so a
 * list of 500,000 wrong items costs what ten cost.
 */
export const EXAMINED_PER_LIST = FINDING_LIMITS.perRule;
/**
 * Depth to which lists and objects are cut to what is examined; deeper, values are examined whole (the schemas are far
 * shallower).
 */
const EXAMINED_DEPTH = 64;

/**
 * The schema errors of a value, built only for a bounded part of it. The quick validator (which
 * stops at the first error) says whether the value holds; only when it does not is the full
 * validator (every error, with values) run, on the value cut to its first EXAMINED_PER_LIST
 * items per list and unnamed members per object. Should every error lie past the cut, the quick
 * validator's first error stands for them.
 */
export function schemaErrors(contract: Contract, schema: Schema, value: unknown): ErrorObject[] {
  return boundedSchemaErrors(contract, schema, value).errors;
}

/**
 * Messages of at most this many characters are validated whole, every error built at once: their
 * errors are few however they are broken (a few hundred at most, well under a millisecond), and
 * the quick pass and the cut would cost more than they save.
 */
export const VALIDATED_WHOLE_MAX = 4096;

/**
 * schemaErrors, with how many list items and unnamed members were left unexamined (0 when none,
 * or when the message holds). `size`: the message's length in characters, when known.
 */
export function boundedSchemaErrors(
  contract: Contract,
  schema: Schema,
  value: unknown,
  size = Infinity,
): { errors: ErrorObject[]; unexamined: number } {
  if (size <= VALIDATED_WHOLE_MAX) {
    const whole = contract.validator(schema);
    return { errors: whole(value) ? [] : (whole.errors ?? []), unexamined: 0 };
  }
  const quick = contract.quickValidator(schema);
  if (quick(value)) return { errors: [], unexamined: 0 };
  const firstError = quick.errors?.[0];
  const full = contract.validator(schema);
  const cut = { dropped: 0 };
  full(examinedPart(value, contract.namedMembers, 0, cut));
  if (full.errors && full.errors.length > 0) return { errors: full.errors, unexamined: cut.dropped };
  return { errors: firstError ? [firstError] : [], unexamined: 0 };
}

/**
 * A problem saying how much of a broken message was not examined, located like its first problem (so it routes to the
 * same requirement).
 */
function unexaminedProblem(first: SchemaProblem, unexamined: number): SchemaProblem {
  return {
    keyword: first.keyword,
    pointer: first.pointer,
    message: `and ${unexamined} more items or members past the first ${EXAMINED_PER_LIST} of each list or object, not examined once the message was known broken`,
    expected: first.expected,
  };
}

/** The problems of a broken message's errors, and one for what was not examined. */
function problemsOf(
  found: { errors: ErrorObject[]; unexamined: number },
  inQuery: boolean,
  includeValues: boolean,
  listedPerShape?: number,
): SchemaProblem[] {
  const problems = problemsFromErrors(found.errors, inQuery, includeValues, listedPerShape);
  if (found.unexamined > 0 && problems.length > 0) problems.push(unexaminedProblem(problems[0], found.unexamined));
  return problems;
}

/**
 * The value with each list cut to its first EXAMINED_PER_LIST items and each object to the
 * members the contract names and EXAMINED_PER_LIST others. Copy on write: a value with nothing
 * to cut is returned as it is, without a copy.
 */
function examinedPart(value: unknown, named: ReadonlySet<string>, depth: number, cut: { dropped: number }): unknown {
  if (value === null || typeof value !== 'object' || depth >= EXAMINED_DEPTH) return value;
  if (Array.isArray(value)) {
    const length = Math.min(value.length, EXAMINED_PER_LIST);
    cut.dropped += value.length - length;
    let kept: unknown[] | null = value.length > length ? value.slice(0, length) : null;
    for (let i = 0; i < length; i += 1) {
      const item = examinedPart(value[i], named, depth + 1, cut);
      if (item === value[i]) continue;
      kept ??= value.slice(0, length);
      kept[i] = item;
    }
    return kept ?? value;
  }
  const object = value as Record<string, unknown>;
  let kept: Record<string, unknown> | null = null;
  let unnamed = 0;
  let index = 0;
  const keys = Object.keys(object);
  for (const key of keys) {
    const left = !named.has(key) && ++unnamed > EXAMINED_PER_LIST;
    if (left) cut.dropped += 1;
    const member = left ? undefined : examinedPart(object[key], named, depth + 1, cut);
    if (kept === null && (left || member !== object[key])) kept = copyMembers(object, keys.slice(0, index));
    if (kept !== null && !left) setMember(kept, key, member);
    index += 1;
  }
  return kept ?? value;
}

function copyMembers(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of keys) setMember(copy, key, object[key]);
  return copy;
}

/** Sets a member as JSON.parse would: a member named __proto__ stays a member. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

function routeProblems(
  contract: Contract,
  operationId: string,
  location: 'request' | 'response',
  status: number | undefined,
  problems: SchemaProblem[],
): Finding[] {
  return problems.map((problem) => {
    const requirement = contract.requirementFor({
      operation: operationId,
      location,
      status,
      keyword: problem.keyword,
      pointer: problem.pointer,
    });
    // Two literals rather than a spread: every finding of a broken message is built here.
    if (problem.omitted === undefined)
      return {
        requirement: requirement.id,
        level: requirement.level,
        location,
        pointer: problem.pointer,
        message: problem.message,
        expected: problem.expected,
        actual: problem.actual,
      };
    return {
      requirement: requirement.id,
      level: requirement.level,
      location,
      pointer: problem.pointer,
      message: problem.message,
      expected: problem.expected,
      actual: problem.actual,
      omitted: problem.omitted,
    };
  });
}

export function validateResponse(
  contract: Contract,
  operation: Operation,
  response: HttpResponse,
  options: ValidateOptions = {},
): Finding[] {
  // Whether the status is one the operation lists is an exchange check (checks/status-listed.ts).
  const findings: Finding[] = [];
  append(findings, responseMediaTypeFindings(contract, response, options.bodyOmitted === true));
  const document = responseDocument(contract, operation, response.status);
  if (document === undefined || options.bodyOmitted) return findings;
  if (document.routedAs === GENERIC) {
    // An error status the operation does not list: judged as traffic outside the operations is, when its body is a
    // JSON:API one or an error in JSON.
    if (findings.length === 0)
      append(findings, genericFindings(contract, 'response', response.status, document.schema, response, options));
    else if (errorInJson(response))
      append(
        findings,
        documentFindings(
          contract,
          GENERIC,
          'response',
          response.status,
          document.schema,
          response,
          options.includeValues ?? true,
          options.listedPerShape,
        ),
      );
    return findings;
  }
  const includeValues = options.includeValues ?? true;
  append(
    findings,
    documentFindings(
      contract,
      operation.operationId,
      'response',
      response.status,
      document.schema,
      response,
      includeValues,
      options.listedPerShape,
    ),
  );
  // Every id is judged, whatever else is wrong with the document (a wrong member elsewhere hides no id).
  if (response.status < 300) append(findings, objectIdFindings(contract, response, includeValues));
  return findings;
}

/**
 * The schema a response's body is validated against, and the operation its findings are routed
 * as (`generic` for the generic rules): the body the operation lists for the status; for an error
 * status it does not list (a generic status such as 415, a 422, a 5xx) or traffic outside the
 * operations, the generic document of that status, routed as traffic outside the operations is,
 * so that an error object is judged alike whoever answers it. Undefined when no body is judged:
 * a status listed without a body (202), or a success status the operation does not list.
 */
export function responseDocument(
  contract: Contract,
  operation: Operation | null,
  status: number,
): { routedAs: string; schema: Schema } | undefined {
  if (operation) {
    const listed = operation.responseBodies.get(status);
    if (listed) return { routedAs: operation.operationId, schema: listed };
    if (listed === null || status < 400) return undefined;
  }
  return {
    routedAs: GENERIC,
    schema: status >= 400 ? contract.schemas.ErrorDocument : contract.schemas.JsonApiDocument,
  };
}

/**
 * What validating a response judged, finding or not: its media type when it has a body, each
 * `schemaFindings` route its document gave something to judge, and the ids of its resources.
 * Mirrors validateResponse and validateGenericResponse; the suite counts these to know that a
 * requirement it reports passed was judged.
 */
export function responseCoverage(
  contract: Contract,
  operation: Operation | null,
  response: HttpResponse,
  options: ValidateOptions = {},
): Judged[] {
  const hasBody = (response.bodyText ?? '').trim() !== '';
  const bodyOmitted = options.bodyOmitted === true;
  if (!operation && !hasBody && !bodyOmitted) return [];
  const covered: Judged[] = [];
  if (hasBody || bodyOmitted) covered.push({ requirement: mediaTypeRequirements.response, location: 'response' });
  if (bodyOmitted) return covered;
  // What validateResponse validates against a schema: an operation's listed body; by the generic rules, a body in the
  // right media type.
  const document = responseDocument(contract, operation, response.status);
  if (document === undefined) return covered;
  if (
    document.routedAs === GENERIC &&
    !(hasBody && (mediaTypeFindings(contract, 'response', response.headers).length === 0 || errorInJson(response)))
  )
    return covered;
  const parsed = hasBody ? parsedBody(response) : undefined;
  const pointers = parsed?.ok ? documentPointers(parsed.value) : new Set(['']);
  for (const requirement of contract.requirementsRoutedAt(document.routedAs, 'response', response.status, pointers))
    covered.push({ requirement, location: 'response' });
  if (
    operation &&
    response.status < 300 &&
    parsed?.ok &&
    resourceIds(parsed.value).some((id) => typeof id === 'string')
  )
    covered.push({ requirement: 'RES-ID-OBJECTID', location: 'response' });
  return covered;
}

/** Past this many values a document's pointers are not read further: what was read is judged. */
const POINTERS_READ = 100_000;

/**
 * The pointers of every value in a document, array indices folded to 0 (no route names an index), and '' for the whole.
 */
function documentPointers(document: unknown): Set<string> {
  const pointers = new Set<string>();
  const pending: [unknown, string][] = [[document, '']];
  let read = 0;
  while (pending.length > 0 && read++ < POINTERS_READ) {
    const [value, pointer] = pending.pop()!;
    pointers.add(pointer);
    if (Array.isArray(value)) for (const item of value) pending.push([item, `${pointer}/0`]);
    else if (value !== null && typeof value === 'object')
      for (const [name, member] of Object.entries(value)) pending.push([member, `${pointer}/${escapeToken(name)}`]);
  }
  return pointers;
}

function primaryData(document: unknown): unknown {
  return document !== null && typeof document === 'object' ? (document as { data?: unknown }).data : undefined;
}

/** The ids of a document's primary data: one resource or a list of them (anything else has none). */
function resourceIds(document: unknown): unknown[] {
  const data = primaryData(document);
  const resources = Array.isArray(data) ? data : [data];
  return resources.map((resource) =>
    resource !== null && typeof resource === 'object' ? (resource as { id?: unknown }).id : undefined,
  );
}

function responseMediaTypeFindings(contract: Contract, response: HttpResponse, bodyOmitted: boolean): Finding[] {
  if ((response.bodyText ?? '') === '' && !bodyOmitted) return [];
  return mediaTypeFindings(contract, 'response', response.headers);
}

const mediaTypeRequirements = { request: 'MEDIA-TYPE-REQUEST', response: 'MEDIA-TYPE-RESPONSE' } as const;

/** A finding when a message's Content-Type is not the JSON:API media type. */
function mediaTypeFindings(contract: Contract, location: 'request' | 'response', headers: Headers): Finding[] {
  const type = mediaTypeEssence(headerValue(headers, 'content-type'));
  if (type === MEDIA_TYPE) return [];
  return [
    contract.finding(mediaTypeRequirements[location], location, {
      message: `${location} Content-Type must be ${MEDIA_TYPE}, got ${type || 'none'}`,
      expected: MEDIA_TYPE,
      actual: type || 'none',
    }),
  ];
}

const objectIdPatterns = new WeakMap<Contract, RegExp>();

function objectIdPattern(contract: Contract): RegExp {
  let pattern = objectIdPatterns.get(contract);
  if (!pattern) {
    pattern = new RegExp(String(contract.schemas.ObjectId['x-recommended-pattern']));
    objectIdPatterns.set(contract, pattern);
  }
  return pattern;
}

/** SHOULD: resource ids hold a 24-hex-digit ObjectId (the pattern lives in the ObjectId schema). */
function objectIdFindings(contract: Contract, response: HttpResponse, includeValues: boolean): Finding[] {
  const pattern = objectIdPattern(contract);
  const parsed = parsedBody(response);
  if (!parsed.ok) return [];
  const ids = resourceIds(parsed.value);
  const listed = Array.isArray(primaryData(parsed.value));
  const findings: Finding[] = [];
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index];
    if (typeof id === 'string' && !pattern.test(id)) {
      // The pointer is built only for an id that fails: this loop runs over every listed item.
      const pointer = listed ? `/data/${index}/id` : '/data/id';
      const got = includeValues ? JSON.stringify(id).slice(0, 40) : `a string of ${id.length} characters`;
      findings.push(
        contract.finding('RES-ID-OBJECTID', 'response', {
          pointer,
          message: `${pointer} should be a 24-hex-digit ObjectId, got ${got}`,
          expected: pattern.source,
          actual: includeValues ? id.slice(0, 40) : got,
        }),
      );
    }
  }
  return findings;
}

/** Generic JSON:API rules for a request outside the three operations: media type and envelope. */
export function validateGenericRequest(
  contract: Contract,
  request: HttpRequest,
  options: ValidateOptions = {},
): Finding[] {
  return genericFindings(contract, 'request', undefined, contract.schemas.JsonApiDocument, request, options);
}

/** Generic JSON:API rules for a response outside the three operations. */
export function validateGenericResponse(
  contract: Contract,
  response: HttpResponse,
  options: ValidateOptions = {},
): Finding[] {
  return genericFindings(
    contract,
    'response',
    response.status,
    responseDocument(contract, null, response.status)!.schema,
    response,
    options,
  );
}

/**
 * A message with a body: its media type, then (when that holds, or it is an error in JSON, and the body was kept) its
 * envelope.
 */
function genericFindings(
  contract: Contract,
  location: 'request' | 'response',
  status: number | undefined,
  schema: Schema,
  message: HttpRequest | HttpResponse,
  options: ValidateOptions,
): Finding[] {
  if ((message.bodyText ?? '').trim() === '' && !options.bodyOmitted) return [];
  const findings = mediaTypeFindings(contract, location, message.headers);
  if (
    options.bodyOmitted ||
    (findings.length > 0 && !(location === 'response' && errorInJson(message as HttpResponse)))
  )
    return findings;
  return findings.concat(
    documentFindings(
      contract,
      GENERIC,
      location,
      status,
      schema,
      message,
      options.includeValues ?? true,
      options.listedPerShape,
    ),
  );
}

/**
 * An error answer whose body is JSON under another media type (a framework's 415 is often
 * `application/json`): its error objects are judged all the same, as a listed status's are, so a
 * numeric `status` in it is found beside the media type. A body that is not JSON is judged by its
 * media type alone.
 */
function errorInJson(response: HttpResponse): boolean {
  return response.status >= 400 && parsedBody(response).ok;
}
