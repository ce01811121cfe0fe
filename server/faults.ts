// The fault catalogue: each fault breaks one MUST requirement of schemas/requirements.yaml, as
// data (name, requirement, what changes, how to see it) plus small hooks at the pipeline's named
// points (types.ts). Where a fault cannot help tripping another check, its description says so.
import {
  deprecatedMetaMembers,
  FILTER_PARAMETER,
  filterMembers,
  INCLUDE_PARAMETER,
  isListOperation,
  listIncludedSchema,
  listItemAttributes,
  listOperations,
  loadContract,
  MEDIA_TYPE,
  namesShownAt,
  PAGE_PARAMETER,
  serverAttributes,
  servedFilterMember,
  smallestQuery,
  unescapeToken,
  type Contract,
  type Operation,
  type OperationRole,
  type Scheme,
} from '../contract/index.ts';
import { knownTokens } from './credentials.ts';
import { DEFAULT_PAGE_LIMIT, REFERENCE_FIXTURES, SEED_SIZES } from './defaults.ts';
import {
  changeCreated,
  changeCreatedWhere,
  changeErrors,
  createdStatus,
  creates,
  overlook,
  overlookRole,
  withoutMember,
  withStatus,
  type OperationsHaving,
} from './hook-helpers.ts';
import { CONDITION_CODES, conditionProblem, errorReply, isErrorDocument, unauthorizedReply } from './problems.ts';
import type {
  CredentialContext,
  CredentialDecision,
  Creation,
  Reply,
  ServerHooks,
  RequestContext,
  SeedItem,
  StageName,
  Tokens,
} from './types.ts';

export interface FaultTrigger {
  method: string;
  /**
   * Relative to the base URL, e.g. `/attribute-configs`. `{list}` stands for the first list the
   * fault applies to (the first list of the contract, for a fault of no role) with the smallest
   * query it serves: `{list}&page[limit]=5` is `/notification-groups?filter[type]=portal&page[limit]=5`;
   * `{listPath}` for its path alone.
   */
  path: string;
  /** Credentials appear as the placeholders `{sessionToken}`, `{pat}` and `{forbiddenToken}`. */
  headers?: Record<string, string>;
  body?: string;
}

/** The operations a fault bound to a role applies to: every list, every create operation, or (`operation`) one. */
export type FaultScope = 'lists' | 'creations';

/**
 * A fault as the catalogue writes it. It breaks `requirement`, a rule every operation shares
 * (AUTH-, ERR-, MEDIA-, RES-, or one of `operation`'s own), or, with `role`, the requirement each
 * operation it applies to names for that role in its `x-requirements` (`appliesTo` narrows them to
 * the lists or the create operations, `having` to those with what its hooks change, `operation`
 * to one). `appliesTo` and `operation` also narrow what a fault of a shared rule acts on. A fault
 * whose operation or requirement the contract no longer holds, or that acts on no operation it
 * holds, does not apply, and `run --fault` refuses it.
 */
export interface FaultEntry {
  /** kebab-case, e.g. `meta-total-not-integer`. */
  name: string;
  requirement?: string;
  role?: OperationRole;
  appliesTo?: FaultScope;
  having?: OperationsHaving;
  /** The one operation it is about, by operationId (its hooks are written for that operation's data). */
  operation?: string;
  /** What changes, in one sentence. */
  description: string;
  /**
   * True when one exchange, judged by the contract alone (judgeExchange, knowing no tokens and no
   * other page), reports `requirement` for `trigger`.
   */
  detectableInOneExchange: boolean;
  trigger?: FaultTrigger;
  /**
   * `generation`: only inputs drawn from the contract's schemas (`run --generate`) reach it, the
   * fixed suite does not (suites/generative-fault-proof.test.ts proves both).
   */
  foundBy?: 'generation';
  /** True when it breaks the requirement now and then, whatever the request: sent again, it is answered right. */
  intermittent?: true;
  /** Its hooks; a function for a fault that keeps state (a count of requests), called once per server built. */
  hooks: ServerHooks | (() => ServerHooks);
}

/** A fault of the catalogue bound to the contract loaded. */
export interface FaultDefinition extends Omit<FaultEntry, 'hooks' | 'requirement'> {
  /** The MUST it breaks: as written, or the requirement of its role on the first operation it applies to. */
  requirement: string;
  /** Every requirement it breaks: with a role, each operation's it applies to. */
  requirements: string[];
}

export class UnknownFaultError extends Error {
  constructor(
    readonly unknown: string[],
    readonly valid: string[],
  ) {
    super(
      `unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid faults: ${valid.join(', ')}`,
    );
    this.name = 'UnknownFaultError';
  }
}

/** A fault of the catalogue the contract gives nothing to break: its operation or its requirement is gone. */
export class InapplicableFaultError extends Error {
  constructor(
    readonly name: string,
    readonly reason: string,
  ) {
    super(`fault "${name}" does not apply to this contract: ${reason}`);
    this.name = 'InapplicableFaultError';
  }
}

// --- Triggers -------------------------------------------------------------------------------

const SESSION = { Authorization: 'Bearer r:{sessionToken}' };
const SESSION_JSON_API = { ...SESSION, 'Content-Type': MEDIA_TYPE };

const attributeConfigBody = (data: Record<string, unknown> = {}) =>
  JSON.stringify({
    data: {
      type: 'AttributeConfig',
      attributes: { target: 'User', type: 'boolean', label: 'Receives the newsletter' },
      ...data,
    },
  });
const highlightBody = (data: Record<string, unknown> = {}) =>
  JSON.stringify({
    data: {
      type: 'Highlight',
      attributes: {
        collectionItemId: REFERENCE_FIXTURES.collectionItemId,
        color: 'yellow',
        range: '0-24',
        summary: 'Key definition',
      },
      relationships: { owner: { data: { type: 'User', id: REFERENCE_FIXTURES.ownerUserId } } },
      ...data,
    },
  });

/** Whether the `type` of a list's included resources is fixed by its schema (a const or allowed values). */
function includedTypeIsFixed(operation: Operation): boolean {
  const type = (listIncludedSchema(operation)?.properties as Record<string, Record<string, unknown>> | undefined)?.type;
  return type !== undefined && (type.const !== undefined || Array.isArray(type.enum));
}

/** A resource with the first letter of its `type` in lower case. */
function withTypeInLowerCase(resource: unknown): unknown {
  const { type } = (resource ?? {}) as { type?: unknown };
  if (typeof type !== 'string') return resource;
  return { ...(resource as object), type: type.charAt(0).toLowerCase() + type.slice(1) };
}

const listTrigger = (query: string, headers: Record<string, string> = SESSION): FaultTrigger => ({
  method: 'GET',
  path: `{list}${query}`,
  headers,
});
const createTrigger = (
  path: string,
  body: string,
  headers: Record<string, string> = SESSION_JSON_API,
): FaultTrigger => ({ method: 'POST', path, headers, body });

/** Replaces the credential placeholders of a trigger with the server's tokens. */
export function expandTrigger(trigger: FaultTrigger, tokens: Tokens): Required<FaultTrigger> {
  const fill = (text: string) =>
    text.replace(/\{(sessionToken|pat|forbiddenToken)\}/g, (_, name: keyof Tokens) => tokens[name]);
  const headers = Object.fromEntries(Object.entries(trigger.headers ?? {}).map(([name, value]) => [name, fill(value)]));
  return {
    method: trigger.method,
    path: trigger.path,
    headers,
    body: trigger.body === undefined ? '' : fill(trigger.body),
  };
}

// --- Hook helpers ---------------------------------------------------------------------------

/** A string longer than this in a request body breaks the long-string fault. */
export const LONG_STRING_FAULT_CHARACTERS = 4096;
/** A page[offset] at or above this breaks the large-offset fault: a 32-bit signed integer overflows. */
export const LARGE_OFFSET_FAULT = 2 ** 31;

const internalError = (detail: string): Reply =>
  errorReply(500, [conditionProblem(500, CONDITION_CODES.internal, detail)]);

/** Every string of a parsed JSON document, member names included. */
function* stringsOf(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* stringsOf(item);
  else if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) {
      yield name;
      yield* stringsOf(member);
    }
  }
}

/** A reply answered 500 instead when the request's document holds a string `breaks`. */
function internalErrorOnString(breaks: (text: string) => boolean, detail: string): ServerHooks['reply'] {
  return (reply, context) => ([...stringsOf(context.document)].some(breaks) ? internalError(detail) : reply);
}

const outsideBmp = (text: string) => /[\u{10000}-\u{10FFFF}]/u.test(text);

/** One predicate per Unicode class that breaks naive code, for the faults only generated inputs reach. */
const UNICODE_CLASS_FAULTS: {
  name: string;
  described: string;
  breaks: (text: string) => boolean;
  detail: string;
  sample: string;
}[] = [
  {
    name: 'combining-mark-500',
    described: 'a combining mark (an accent written after its letter)',
    breaks: (text) => /\p{M}/u.test(text),
    detail: 'normalization failed',
    sample: 'cafe\u0301',
  },
  {
    name: 'right-to-left-500',
    described: 'right-to-left text (Hebrew, Arabic, or a bidirectional control)',
    breaks: (text) => /[\p{Script=Hebrew}\p{Script=Arabic}\u200f\u202b\u202e\u2067]/u.test(text),
    detail: 'layout of bidirectional text failed',
    sample: '\u05e9\u05dc\u05d5\u05dd',
  },
  {
    name: 'control-character-500',
    described: 'a control character other than NUL, tab, line feed and carriage return',
    breaks: (text) => /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(text),
    detail: 'the log line could not be written',
    sample: 'a\u0007b',
  },
  {
    name: 'nul-character-500',
    described: 'a NUL character (written `\\u0000` in JSON)',
    breaks: (text) => text.includes('\u0000'),
    detail: 'a C string ended early',
    sample: 'a\u0000b',
  },
  {
    name: 'lone-surrogate-500',
    described: 'a lone surrogate (a `\\ud800` escape with no partner)',
    breaks: (text) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text),
    detail: 'the text could not be encoded as UTF-8',
    sample: 'a\ud800b',
  },
];

/** Two items of an array sharing one `value` (AttributeConfig options, say): a unique index on it fails. */
function hasSharedValue(document: unknown): boolean {
  const options = (document as { data?: { attributes?: { options?: unknown } } } | undefined)?.data?.attributes
    ?.options;
  if (!Array.isArray(options)) return false;
  const values = options.map((option) => JSON.stringify((option as { value?: unknown } | null)?.value));
  return new Set(values).size < values.length;
}

/** The first attribute of a list's items whose schema names its allowed values (`enum`), with them. */
function firstEnumAttribute(operation: Operation): { name: string; values: unknown[] } | undefined {
  const attribute = listItemAttributes(operation).find((a) => Array.isArray(a.schema.enum));
  return attribute === undefined ? undefined : { name: attribute.name, values: attribute.schema.enum as unknown[] };
}

/** The attributes of a list's items whose schema is a boolean. */
function booleanAttributes(operation: Operation): string[] {
  return listItemAttributes(operation)
    .filter((a) => a.schema.type === 'boolean')
    .map((a) => a.name);
}

/**
 * A value none of `allowed` is, made from `value`: in lower case (in upper case where lower case is allowed),
 * lengthened until it is none of them.
 */
function outsideAllowed(value: unknown, allowed: readonly unknown[]): string {
  const text = String(value);
  let outside = text.toLowerCase() === text ? text.toUpperCase() : text.toLowerCase();
  while (allowed.includes(outside)) outside += '-unlisted';
  return outside;
}

/** The item with each of the attributes `names` it has changed by `change`. */
function withAttributesChanged(
  item: SeedItem,
  names: readonly string[],
  change: (value: unknown) => unknown,
): SeedItem {
  const present = names.filter((name) => name in item.attributes);
  if (present.length === 0) return item;
  return {
    ...item,
    attributes: {
      ...item.attributes,
      ...Object.fromEntries(present.map((name) => [name, change(item.attributes[name])])),
    },
  };
}

/** At most this many pages: the off-by-one fault below strikes only a total divided into one or two pages exactly. */
const EXACT_MULTIPLE_FAULT_PAGES = 2;

const permitted = (scheme: Scheme): CredentialDecision => ({ outcome: 'permitted', scheme });

function rejectScheme(scheme: Scheme): ServerHooks['credentials'] {
  return (decision) =>
    decision.outcome === 'permitted' && decision.scheme === scheme
      ? { outcome: 'unauthenticated', code: 'AUTH-401-UNKNOWN-TOKEN', detail: 'the credential is not known' }
      : decision;
}

function permitWhen(
  applies: (decision: CredentialDecision, context: CredentialContext) => boolean,
): ServerHooks['credentials'] {
  return (decision, context) =>
    applies(decision, context)
      ? permitted(context.reading.kind === 'credential' ? context.reading.scheme : 'session')
      : decision;
}

/**
 * Lets credentials the server refuses through, but only for a request that then succeeds: one
 * that fails gets the 401 it would have had, so 401-before-400 (AUTH-401-BEFORE-400) still holds.
 */
function permitWhenServed(applies: (decision: CredentialDecision, context: CredentialContext) => boolean): ServerHooks {
  return {
    credentials: permitWhen(applies),
    reply: (reply, context) => {
      const own = context.serverDecision;
      if (
        own?.outcome !== 'unauthenticated' ||
        context.credentialDecision?.outcome !== 'permitted' ||
        reply.status < 300
      )
        return reply;
      return unauthorizedReply(own.code, own.detail);
    },
  };
}

function queryMember(context: RequestContext, parameter: string, member: string): unknown {
  const value = context.query[parameter];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[member] : undefined;
}

const credentialsLast = (order: StageName[]): StageName[] => [
  ...order.filter((s) => s !== 'credentials' && s !== 'handle'),
  'credentials',
  'handle',
];

/** A page[limit] of this (2^53 − 1, the largest whole number a double holds exactly) breaks largest-limit-500. */
export const LARGEST_LIMIT_FAULT = Number.MAX_SAFE_INTEGER;
/**
 * The intermittent fault breaks every this-many-th request of each list: more than the fixed cases send to one list,
 * fewer than generation does.
 */
export const INTERMITTENT_FAULT_PERIOD = 197;

/** A list request whose served filter member holds `value` (the member named by the contract's first list). */
function filterValueTrigger(value: (allowed: readonly unknown[]) => string): FaultTrigger | undefined {
  const list = listOperations(loadContract())[0];
  const member = list === undefined ? undefined : servedFilterMember(list);
  if (member === undefined) return undefined;
  const path = `{listPath}?${FILTER_PARAMETER}[${member.name}]=${encodeURIComponent(value(member.values))}`;
  return { method: 'GET', path, headers: SESSION };
}

/** A value outside the allowed ones with a character outside ASCII: the first allowed value and an accented letter. */
const nonAsciiOutside = (allowed: readonly unknown[]) => `${String(allowed[0])}\u00e1`;
const hasNonAscii = (text: string) => /[^\u0000-\u007f]/.test(text);

/**
 * A list reply whose `meta.total` counts every item of the list (`totalWithoutFilters`), `meta.pages`
 * with it, when the request names an include.
 */
function totalOfEveryGroupWithInclude(reply: Reply, context: RequestContext): Reply {
  const list = context.operation !== undefined && isListOperation(context.operation);
  const included = context.query[INCLUDE_PARAMETER] !== undefined;
  if (!list || !included || reply.status !== 200 || reply.json === undefined) return reply;
  const document = JSON.parse(reply.json.toString()) as { meta?: Record<string, number> };
  const meta = document.meta;
  if (meta?.totalWithoutFilters === undefined || meta.limit < 1) return reply;
  const total = meta.totalWithoutFilters;
  const counts: Record<string, number> = { total, pages: Math.ceil(total / meta.limit) };
  // Deprecated members mirror their replacements, as the server derives them.
  const mirrored = deprecatedMetaMembers(context.operation!).flatMap(({ name, replacement }) =>
    name in meta && replacement !== undefined && replacement in counts ? [[name, counts[replacement]] as const] : [],
  );
  const changed = { ...meta, ...counts, ...Object.fromEntries(mirrored) };
  return { ...reply, json: undefined, document: { ...document, meta: changed } };
}

/** A created resource without the relationships the specification names when the request sent another beside them. */
function shownRelationshipsDroppedBesideOthers(creation: Creation, context: RequestContext): Creation {
  const operation = context.operation;
  const body = operation?.requestBody;
  const shown = body === undefined ? undefined : namesShownAt(body, '/data/relationships');
  const sent = (context.document as { data?: { relationships?: unknown } } | undefined)?.data?.relationships;
  const created = creation.document?.data;
  if (shown === undefined || created === undefined || sent === null || typeof sent !== 'object') return creation;
  if (!Object.keys(sent).some((name) => !shown.has(name))) return creation;
  const held = Object.entries((created.relationships ?? {}) as Record<string, unknown>);
  const relationships = Object.fromEntries(held.filter(([name]) => !shown.has(name)));
  return { ...creation, document: { ...creation.document, data: { ...created, relationships } } };
}

/** The hooks of a server that answers 500 to every `period`-th list request it serves, counted from its start. */
function intermittentListFailure(period: number): () => ServerHooks {
  return () => {
    // Counted per list, as a pool per route would go stale: a contract with more lists does not bring the fault
    // into the few requests the fixed cases send to each.
    const served = new Map<string, number>();
    return {
      reply: (reply, context) => {
        if (context.operation === undefined || !isListOperation(context.operation)) return reply;
        const count = (served.get(context.operation.operationId) ?? 0) + 1;
        served.set(context.operation.operationId, count);
        return count % period === 0 ? internalError('a connection of the pool was stale') : reply;
      },
    };
  };
}

// --- The catalogue --------------------------------------------------------------------------

const CATALOGUE: FaultEntry[] = [
  // Credentials (section 5)
  {
    name: 'session-token-rejected',
    requirement: 'AUTH-SESSION-ACCEPTED',
    description:
      'The valid session token sent as `Authorization: Bearer r:<token>` is answered 401 (a suite that sends its other cases with the session token sees those fail too).',
    detectableInOneExchange: false,
    hooks: { credentials: rejectScheme('session') },
  },
  {
    name: 'pat-rejected',
    requirement: 'AUTH-PAT-ACCEPTED',
    description: 'The valid personal access token sent as `Authorization: Bearer p:<token>` is answered 401.',
    detectableInOneExchange: false,
    hooks: { credentials: rejectScheme('pat') },
  },
  {
    name: 'legacy-header-rejected',
    requirement: 'AUTH-LEGACY-ACCEPTED',
    description: 'The valid session token sent in the legacy session header is answered 401.',
    detectableInOneExchange: false,
    hooks: { credentials: rejectScheme('legacy') },
  },
  {
    name: 'no-credentials-accepted',
    requirement: 'AUTH-401-NO-CREDENTIALS',
    description:
      'A request without credentials that would succeed is served as if it carried the session token (one that would fail is still answered 401).',
    detectableInOneExchange: true,
    trigger: listTrigger('', {}),
    hooks: permitWhenServed((_, c) => c.reading.kind === 'none'),
  },
  {
    name: 'unknown-token-accepted',
    requirement: 'AUTH-401-UNKNOWN-TOKEN',
    description:
      'A well-formed token the server does not know is accepted, in every scheme, for a request that would succeed (one that would fail is still 401, and a known token under the wrong prefix is still 401).',
    detectableInOneExchange: false,
    hooks: permitWhenServed((_, c) => c.reading.kind === 'credential' && !knownTokens(c.tokens).has(c.reading.token)),
  },
  {
    name: 'malformed-authorization-accepted',
    requirement: 'AUTH-401-MALFORMED',
    description:
      'A malformed Authorization value that contains the session token (no `Bearer`, no `r:`/`p:` prefix, an unknown prefix) is accepted for a request that would succeed (one that would fail is still 401).',
    detectableInOneExchange: true,
    trigger: listTrigger('', { Authorization: 'Bearer {sessionToken}' }),
    hooks: permitWhenServed(
      (_, c) =>
        c.reading.kind === 'malformed' &&
        c.authorization !== undefined &&
        c.authorization.includes(c.tokens.sessionToken),
    ),
  },
  {
    name: 'wrong-prefix-accepted',
    requirement: 'AUTH-401-WRONG-PREFIX',
    description:
      'The session token is accepted under `p:` and the personal access token under `r:`, for a request that would succeed (one that would fail is still 401).',
    detectableInOneExchange: false,
    hooks: permitWhenServed((v) => v.outcome === 'unauthenticated' && v.code === 'AUTH-401-WRONG-PREFIX'),
  },
  {
    name: 'forbidden-token-permitted',
    requirement: 'AUTH-403-FORBIDDEN',
    description: 'The forbidden credential is served like a permitted one instead of being answered 403.',
    detectableInOneExchange: false,
    hooks: { credentials: permitWhen((v) => v.outcome === 'forbidden') },
  },
  {
    name: 'forbidden-token-permitted-in-legacy-header',
    requirement: 'AUTH-403-FORBIDDEN',
    description:
      'The forbidden session token is answered 403 as `Authorization: Bearer r:<token>` but served like a permitted one in the legacy session header.',
    detectableInOneExchange: false,
    hooks: { credentials: permitWhen((v) => v.outcome === 'forbidden' && v.scheme === 'legacy') },
  },
  {
    name: 'validation-before-credentials',
    requirement: 'AUTH-401-BEFORE-400',
    description:
      'Request validation runs before the credential check, so an unauthenticated invalid request is answered 400 (and one to an unknown path 404, one with another media type 415).',
    detectableInOneExchange: true,
    trigger: { method: 'GET', path: '{listPath}', headers: {} },
    hooks: { stageOrder: credentialsLast },
  },

  // Lists: filter and page bounds (sections 4.1, 8)
  {
    name: 'filter-not-required',
    role: 'filterRequired',
    description:
      'A list request without its filter is answered 200 with the items of every filter value (an empty or unknown value is still 400).',
    detectableInOneExchange: true,
    trigger: { method: 'GET', path: '{listPath}', headers: SESSION },
    hooks: { findings: overlookRole('filterRequired', (_, c) => c.query.filter === undefined) },
  },
  {
    name: 'last-filter-value-rejected',
    role: 'success',
    appliesTo: 'lists',
    having: {
      what: 'a filter member with two allowed values or more',
      has: (operation) => (servedFilterMember(operation)?.values.length ?? 0) >= 2,
    },
    description:
      "The last allowed value of each list's filter member is answered 400 as if only the others were allowed.",
    detectableInOneExchange: false,
    hooks: { findings: (findings, context) => [...findings, ...lastFilterValueRefused(context)] },
  },
  {
    name: 'page-member-alone-accepted',
    role: 'pageBothMembers',
    description:
      '`page[limit]` without `page[offset]` (or the reverse) is accepted, the missing member taking its default.',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=5'),
    hooks: { findings: overlookRole('pageBothMembers') },
  },
  {
    name: 'page-limit-below-one-accepted',
    role: 'pageLimitMin',
    description:
      '`page[limit]` below 1 is accepted and answered with an empty page (`meta.limit` echoes it, `meta.pages` is 0, `meta.page` 1).',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=0&page[offset]=0'),
    hooks: {
      findings: overlookRole('pageLimitMin'),
      pageWindow: (window, page) => (page.limit < 1 ? { start: window.start, length: 0 } : window),
      listMeta: (meta, page) => (page.limit < 1 ? { ...meta, pages: 0, page: 1 } : meta),
    },
  },
  {
    name: 'page-offset-negative-accepted',
    role: 'pageOffsetMin',
    description: 'A negative `page[offset]` is accepted and read as 0 for the items (`meta.offset` still echoes it).',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=10&page[offset]=-1'),
    hooks: {
      findings: overlookRole('pageOffsetMin'),
      pageWindow: (window) => ({ start: Math.max(0, window.start), length: window.length }),
    },
  },
  {
    name: 'page-not-a-number-accepted',
    role: 'pageNotANumber',
    description: 'A `page` member that is not a number is accepted and replaced by its default.',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=ten&page[offset]=0'),
    hooks: { findings: overlookRole('pageNotANumber') },
  },

  // Lists: meta and its arithmetic
  {
    name: 'meta-total-not-integer',
    role: 'metaIntegers',
    description: '`meta.total` (and `meta.totalCount`, which mirrors it) is sent as a string, e.g. "27".',
    detectableInOneExchange: true,
    trigger: listTrigger(''),
    hooks: { listMeta: (meta) => ({ ...meta, total: String(meta.total) }) },
  },
  {
    name: 'meta-offset-not-echoed',
    role: 'metaOffsetEcho',
    description: '`meta.offset` is always 0, whatever `page[offset]` asked for.',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=10&page[offset]=10'),
    hooks: { listMeta: (meta) => ({ ...meta, offset: 0 }) },
  },
  {
    name: 'meta-pages-rounded-down',
    role: 'metaPages',
    description: '`meta.pages` (and `meta.totalPages`) is floor(total / limit) instead of ceil(total / limit).',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=10&page[offset]=0'),
    hooks: { listMeta: (meta, page) => ({ ...meta, pages: Math.floor(page.total / page.limit) }) },
  },
  {
    name: 'meta-total-inconsistent',
    role: 'metaTotal',
    description:
      "`meta.total` is one too high on every page but the last (`meta.pages` follows it), so it differs between pages; a walk that counts items against the first page's total also sees one item fewer.",
    detectableInOneExchange: false,
    hooks: {
      listMeta: (meta, page) =>
        page.offset + page.limit < page.total
          ? { ...meta, total: page.total + 1, pages: Math.ceil((page.total + 1) / page.limit) }
          : meta,
    },
  },
  {
    name: 'page-past-end-not-empty',
    role: 'pageLength',
    description:
      'A `page[offset]` at or beyond `meta.total` returns the last item instead of an empty `data` array (pages in range are right, so a walk that stops at the last page is unaffected).',
    detectableInOneExchange: true,
    trigger: listTrigger('&page[limit]=10&page[offset]=100'),
    hooks: {
      pageWindow: (window, page) =>
        page.offset >= page.total && page.total > 0 ? { start: page.total - 1, length: 1 } : window,
    },
  },

  // Lists: walking the pages
  {
    name: 'offset-ignored',
    role: 'pageWalk',
    description:
      "Every page starts at the first item whatever `page[offset]` says; each page's length and meta still follow the request.",
    detectableInOneExchange: false,
    hooks: { pageWindow: (window) => ({ start: 0, length: window.length }) },
  },
  {
    name: 'limit-ignored-in-page-start',
    role: 'pageWalk',
    description: `A page starts at \`page[offset]\` rounded down to a multiple of the default page size (${DEFAULT_PAGE_LIMIT}), as if \`page[limit]\` played no part in placing it; lengths and meta follow the request, so a walk with a limit that is not a multiple of ${DEFAULT_PAGE_LIMIT} repeats items.`,
    detectableInOneExchange: false,
    hooks: {
      pageWindow: (window, page) => ({
        start: Math.floor(page.offset / DEFAULT_PAGE_LIMIT) * DEFAULT_PAGE_LIMIT,
        length: window.length,
      }),
    },
  },
  {
    name: 'page-overlaps-previous',
    role: 'pageWalk',
    description:
      'Every page after the first starts one item early, so the last item of a page comes again first on the next and the final item is never reached; lengths and meta stay right.',
    detectableInOneExchange: false,
    hooks: {
      pageWindow: (window, page) => (page.offset > 0 ? { start: window.start - 1, length: window.length } : window),
    },
  },

  // Lists: the document and its items (section 2.2)
  {
    name: 'item-value-outside-enum',
    role: 'itemShape',
    appliesTo: 'lists',
    having: {
      what: 'an item attribute with allowed values (enum)',
      has: (operation) => firstEnumAttribute(operation) !== undefined,
    },
    description:
      'Every list item\'s first attribute with allowed values is sent outside them: in lower case ("exams" for "Exams"), or in upper case where lower case is allowed.',
    detectableInOneExchange: true,
    trigger: listTrigger(''),
    hooks: {
      seedItem: (item, operation) => {
        const attribute = firstEnumAttribute(operation);
        return attribute === undefined
          ? item
          : withAttributesChanged(item, [attribute.name], (value) => outsideAllowed(value, attribute.values));
      },
    },
  },
  {
    name: 'item-boolean-as-string',
    role: 'itemShape',
    appliesTo: 'lists',
    having: { what: 'a boolean item attribute', has: (operation) => booleanAttributes(operation).length > 0 },
    description:
      'Every boolean attribute of every list item is sent as the string "true" or "false" instead of a boolean.',
    detectableInOneExchange: true,
    trigger: listTrigger(''),
    hooks: { seedItem: (item, operation) => withAttributesChanged(item, booleanAttributes(operation), String) },
  },
  {
    name: 'included-not-an-array',
    role: 'responseShape',
    appliesTo: 'lists',
    description:
      'When `include` names something, `included` is sent as an object keyed by those names instead of an array.',
    detectableInOneExchange: true,
    trigger: listTrigger('&include=owner'),
    hooks: {
      included: (included, names) =>
        names.length > 0 ? Object.fromEntries(names.map((name) => [name, []])) : included,
    },
  },
  {
    name: 'included-type-in-lower-case',
    role: 'includedShape',
    appliesTo: 'lists',
    having: { what: 'an included resource whose type is fixed (const or enum)', has: includedTypeIsFixed },
    description:
      'Every resource of `included` carries its `type` with a lower-case first letter ("zzProofMaker" for ' +
      '"ZzProofMaker"), a type its schema does not allow.',
    detectableInOneExchange: false,
    hooks: { included: (included) => (Array.isArray(included) ? included.map(withTypeInLowerCase) : included) },
  },
  {
    name: 'filter-member-ignored',
    role: 'filterMatch',
    appliesTo: 'lists',
    having: {
      what: 'a filter member besides the one its items are grouped by',
      has: (operation) => filterMembers(operation).length > 1,
    },
    description:
      'Every filter member besides the one the items are grouped by is ignored: a group is served whole whatever ' +
      'value the member is sent.',
    detectableInOneExchange: false,
    hooks: { listFilter: () => ({}) },
  },

  // Error documents and media type (sections 4, 7)
  {
    name: 'error-status-number',
    requirement: 'ERR-STATUS-STRING',
    description: "Every error object's `status` is a number (e.g. 401) instead of a string.",
    detectableInOneExchange: true,
    trigger: listTrigger('', {}),
    hooks: { reply: changeErrors((error) => ({ ...error, status: Number(error.status) })) },
  },
  {
    name: 'errors-not-an-array',
    requirement: 'ERR-ENVELOPE',
    description:
      'Error responses carry `errors` as one error object instead of an array (so a 400 for a query parameter names no `source.parameter` either, and 404 and 409 bodies break the envelope SHOULD).',
    detectableInOneExchange: true,
    trigger: listTrigger('', {}),
    hooks: {
      reply: (reply) =>
        isErrorDocument(reply.document) ? { ...reply, document: { errors: reply.document.errors[0] } } : reply,
    },
  },
  {
    name: 'error-title-not-a-string',
    requirement: 'ERR-OBJECT-MEMBERS',
    description:
      'Every error object\'s `title` is an object (`{"en": "..."}`) instead of a string (on 404 and 409, whose body shape is not shown, that breaks the envelope SHOULD instead).',
    detectableInOneExchange: true,
    trigger: listTrigger('', {}),
    hooks: { reply: changeErrors((error) => ({ ...error, title: { en: error.title } })) },
  },
  {
    name: 'response-media-type-json',
    requirement: 'MEDIA-TYPE-RESPONSE',
    description: 'Every response is sent with `Content-Type: application/json`.',
    detectableInOneExchange: true,
    trigger: listTrigger(''),
    hooks: { reply: (reply) => ({ ...reply, contentType: 'application/json' }) },
  },
  {
    name: 'unsupported-media-type-500',
    requirement: 'ERR-NO-5XX',
    description:
      'A request body sent with a media type other than `application/vnd.api+json` is answered 500 instead of 415.',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody(), {
      ...SESSION,
      'Content-Type': 'application/json',
    }),
    hooks: { reply: (reply) => (reply.status === 415 ? withStatus(reply, 500) : reply) },
  },
  {
    name: 'malformed-json-answered-422',
    requirement: 'REQ-MALFORMED-JSON',
    description:
      'A request body that is not well-formed JSON is answered 422 instead of 400, a refusal the contract names for no condition.',
    detectableInOneExchange: true,
    trigger: createTrigger('/highlights', '{"data":'),
    hooks: {
      reply: (reply, context) =>
        reply.status === 400 && context.findings.some((f) => f.requirement === 'REQ-MALFORMED-JSON')
          ? withStatus(reply, 422)
          : reply,
    },
  },

  // Create AttributeConfig and Create Highlight (sections 2.3, 2.4, 4.2, 4.3)
  {
    name: 'attribute-config-created-200',
    role: 'success',
    operation: 'createAttributeConfig',
    description:
      'A valid AttributeConfig is answered 200 with the created document instead of 201, a success status the operation does not list.',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody()),
    hooks: { created: createdStatus('createAttributeConfig', 200) },
  },
  {
    name: 'highlight-created-200',
    role: 'success',
    operation: 'createHighlight',
    description:
      'A valid Highlight is answered 200 with the created document instead of 201, a success status the operation does not list.',
    detectableInOneExchange: true,
    trigger: createTrigger('/highlights', highlightBody()),
    hooks: { created: createdStatus('createHighlight', 200) },
  },
  {
    name: 'in-use-missing',
    role: 'serverAttributes',
    description:
      'A created resource lacks the attributes only the server sets (an AttributeConfig its `attributes.inUse`).',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody()),
    hooks: {
      created: changeCreatedWhere(
        (operation) => operation.roles.serverAttributes !== undefined,
        (data, context) => ({
          ...data,
          attributes: withoutServerAttributes(data.attributes as Record<string, unknown>, context.operation!),
        }),
      ),
    },
  },
  {
    name: 'created-id-not-a-string',
    requirement: 'RES-ID-STRING',
    description: "A created resource's `id` is a number instead of a string.",
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody()),
    hooks: {
      created: changeCreatedWhere(creates, (data) => ({ ...data, id: Number.parseInt(String(data.id).slice(-6), 16) })),
    },
  },
  {
    name: 'created-type-misspelled',
    role: 'responseShape',
    operation: 'createAttributeConfig',
    description: 'The created AttributeConfig\'s `type` is sent as "attributeConfig".',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody()),
    hooks: { created: changeCreated('createAttributeConfig', (data) => ({ ...data, type: 'attributeConfig' })) },
  },
  {
    name: 'relationships-dropped',
    role: 'relationshipsEcho',
    description:
      'A created resource whose operation echoes relationships (a Highlight, and any other whose x-requirements name relationshipsEcho) is sent without the relationships of the request.',
    detectableInOneExchange: true,
    trigger: createTrigger('/highlights', highlightBody()),
    hooks: {
      created: changeCreatedWhere(
        (operation) => operation.roles.relationshipsEcho !== undefined,
        (data) => withoutMember(data, 'relationships'),
      ),
    },
  },
  {
    name: 'attribute-config-wrong-type-accepted',
    requirement: 'AC-DATA-TYPE',
    operation: 'createAttributeConfig',
    description: 'A `data.type` other than AttributeConfig is accepted and created as an AttributeConfig.',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', attributeConfigBody({ type: 'Highlight' })),
    hooks: { findings: overlook('AC-DATA-TYPE') },
  },
  {
    name: 'highlight-wrong-type-accepted',
    requirement: 'HL-DATA-TYPE',
    operation: 'createHighlight',
    description: 'A `data.type` other than Highlight is accepted and created as a Highlight.',
    detectableInOneExchange: true,
    trigger: createTrigger('/highlights', highlightBody({ type: 'AttributeConfig' })),
    hooks: { findings: overlook('HL-DATA-TYPE') },
  },
  {
    name: 'attribute-type-mismatch-accepted',
    requirement: 'AC-TYPE-MISMATCH',
    operation: 'createAttributeConfig',
    description:
      'An AttributeConfig attribute of the wrong JSON type is accepted with 201 and left out of the created resource (so its echo, a SHOULD, differs too).',
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/attribute-configs',
      attributeConfigBody({ attributes: { target: 'User', type: 'boolean', required: 'yes' } }),
    ),
    hooks: {
      findings: overlook('AC-TYPE-MISMATCH', (f) => f.pointer.startsWith('/data/attributes/')),
      created: changeCreated('createAttributeConfig', (data, context) => ({
        ...data,
        attributes: withoutOverlooked(data.attributes as Record<string, unknown>, context),
      })),
    },
  },
  {
    name: 'attributes-required-not-enforced',
    requirement: 'AC-ATTRIBUTES-REQUIRED',
    operation: 'createAttributeConfig',
    description: 'An AttributeConfig without `data.attributes` is created with `inUse` as its only attribute.',
    detectableInOneExchange: true,
    trigger: createTrigger('/attribute-configs', JSON.stringify({ data: { type: 'AttributeConfig' } })),
    hooks: { findings: overlook('AC-ATTRIBUTES-REQUIRED') },
  },
  {
    name: 'owner-type-not-checked',
    requirement: 'HL-OWNER-TYPE',
    operation: 'createHighlight',
    description:
      'A Highlight whose owner is not of type User is accepted with 202 Accepted (a User owner still gets 201).',
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/highlights',
      highlightBody({ relationships: { owner: { data: { type: 'Group', id: REFERENCE_FIXTURES.ownerUserId } } } }),
    ),
    hooks: {
      findings: overlook('HL-OWNER-TYPE'),
      created: (creation: Creation, context) =>
        context.overlooked.some((f) => f.requirement === 'HL-OWNER-TYPE')
          ? { status: 202, document: { meta: { accepted: true } } }
          : creation,
    },
  },
  {
    name: 'long-string-500',
    requirement: 'ERR-NO-5XX',
    description: `A request document holding a string longer than ${LONG_STRING_FAULT_CHARACTERS} characters is answered 500 (a column too narrow for it).`,
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/attribute-configs',
      attributeConfigBody({
        attributes: { target: 'User', type: 'boolean', label: 'x'.repeat(LONG_STRING_FAULT_CHARACTERS + 1) },
      }),
    ),
    foundBy: 'generation',
    hooks: {
      reply: internalErrorOnString(
        (text) => text.length > LONG_STRING_FAULT_CHARACTERS,
        'the value does not fit its column',
      ),
    },
  },
  {
    name: 'astral-character-500',
    requirement: 'ERR-NO-5XX',
    description:
      'A request document holding a character outside the Basic Multilingual Plane (an emoji, say) is answered 500 (a three-byte UTF-8 column).',
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/highlights',
      highlightBody({
        attributes: { collectionItemId: REFERENCE_FIXTURES.collectionItemId, color: 'yellow \u{1F7E8}' },
      }),
    ),
    foundBy: 'generation',
    hooks: { reply: internalErrorOnString(outsideBmp, 'incorrect string value') },
  },
  {
    name: 'large-offset-500',
    requirement: 'ERR-NO-5XX',
    appliesTo: 'lists',
    description: `A list page at \`page[offset]\` ${LARGE_OFFSET_FAULT} (2^31) or above is answered 500 (a 32-bit integer overflows).`,
    detectableInOneExchange: true,
    trigger: listTrigger(`&page[limit]=10&page[offset]=${LARGE_OFFSET_FAULT}`),
    foundBy: 'generation',
    hooks: {
      reply: (reply, context) => {
        const offset = (context.query.page as { offset?: unknown } | undefined)?.offset;
        return reply.status === 200 && typeof offset === 'number' && offset >= LARGE_OFFSET_FAULT
          ? internalError('integer overflow')
          : reply;
      },
    },
  },
  ...UNICODE_CLASS_FAULTS.map(({ name, described, breaks, detail, sample }) => ({
    name,
    requirement: 'ERR-NO-5XX',
    description: `A request document holding ${described} is answered 500.`,
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/highlights',
      highlightBody({ attributes: { collectionItemId: REFERENCE_FIXTURES.collectionItemId, color: sample } }),
    ),
    foundBy: 'generation' as const,
    hooks: { reply: internalErrorOnString(breaks, detail) },
  })),
  {
    name: 'duplicate-option-values-500',
    requirement: 'ERR-NO-5XX',
    operation: 'createAttributeConfig',
    description:
      'An AttributeConfig whose `options` hold two entries with one `value` is answered 500 (a unique index on the option value).',
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/attribute-configs',
      attributeConfigBody({
        attributes: {
          target: 'User',
          type: 'boolean',
          options: [
            { value: 'a', label: 'A' },
            { value: 'a', label: 'B' },
          ],
        },
      }),
    ),
    foundBy: 'generation',
    hooks: {
      reply: (reply, context) =>
        hasSharedValue(context.document) ? internalError('duplicate key value violates unique constraint') : reply,
    },
  },
  {
    name: 'meta-pages-off-at-exact-multiple',
    role: 'metaPages',
    description: `\`meta.pages\` is one too many when \`page[limit]\` (above 1) divides the total into at most ${EXACT_MULTIPLE_FAULT_PAGES} pages exactly, as floor(total / limit) + 1 has it; every other page count is right.`,
    detectableInOneExchange: true,
    trigger: listTrigger(`&page[limit]=${SEED_SIZES[0]}&page[offset]=0`),
    foundBy: 'generation',
    hooks: {
      listMeta: (meta, page) =>
        page.limit > 1 &&
        page.total > 0 &&
        page.total % page.limit === 0 &&
        page.total / page.limit <= EXACT_MULTIPLE_FAULT_PAGES
          ? { ...meta, pages: page.total / page.limit + 1 }
          : meta,
    },
  },
  {
    name: 'last-item-at-offset-equal-to-total',
    role: 'pageLength',
    description:
      'A `page[offset]` equal to the total returns the last item instead of an empty `data` array (an offset past it is right, and so is every page of a walk).',
    detectableInOneExchange: true,
    trigger: listTrigger(`&page[limit]=10&page[offset]=${SEED_SIZES[0]}`),
    foundBy: 'generation',
    hooks: {
      pageWindow: (window, page) =>
        page.offset === page.total && page.total > 0 ? { start: page.total - 1, length: 1 } : window,
    },
  },
  {
    name: 'total-of-every-group-with-include',
    role: 'pageLength',
    appliesTo: 'lists',
    description:
      'When the request names an `include`, `meta.total` counts every item of the list whatever the filter ' +
      '(`meta.totalWithoutFilters`), `meta.pages` with it; without one it is right.',
    detectableInOneExchange: true,
    trigger: listTrigger(`&include=owner&page[limit]=1&page[offset]=${SEED_SIZES[0]}`),
    foundBy: 'generation',
    hooks: { reply: totalOfEveryGroupWithInclude },
  },
  {
    name: 'owner-dropped-beside-another-relationship',
    role: 'relationshipsEcho',
    appliesTo: 'creations',
    description:
      'A created resource leaves out the relationships the specification names (`owner`) when the request sent ' +
      'one of another name beside them; sent alone, they are echoed.',
    detectableInOneExchange: true,
    trigger: createTrigger(
      '/highlights',
      highlightBody({
        relationships: { owner: { data: { type: 'User', id: REFERENCE_FIXTURES.ownerUserId } }, tag: { data: null } },
      }),
    ),
    foundBy: 'generation',
    hooks: { created: shownRelationshipsDroppedBesideOthers },
  },
  {
    name: 'largest-limit-500',
    requirement: 'ERR-NO-5XX',
    appliesTo: 'lists',
    description:
      `A list page at \`page[limit]\` ${LARGEST_LIMIT_FAULT} (2^53 − 1, the largest whole number a double ` +
      'holds exactly, a valid limit) is answered 500 (it is rounded up to 2^53 and overflows).',
    detectableInOneExchange: true,
    trigger: listTrigger(`&page[limit]=${LARGEST_LIMIT_FAULT}&page[offset]=0`),
    foundBy: 'generation',
    hooks: {
      reply: (reply, context) => {
        const limit = (context.query[PAGE_PARAMETER] as { limit?: unknown } | undefined)?.limit;
        return limit === LARGEST_LIMIT_FAULT && reply.status === 200 ? internalError('page size overflow') : reply;
      },
    },
  },
  {
    name: 'non-ascii-filter-value-500',
    requirement: 'ERR-NO-5XX',
    appliesTo: 'lists',
    description:
      'A list filter value outside the allowed ones that holds a character outside ASCII (`port%C3%A1l`) ' +
      "is answered 500 instead of 400 (the refusal's message cannot be encoded).",
    detectableInOneExchange: true,
    trigger: filterValueTrigger(nonAsciiOutside),
    foundBy: 'generation',
    hooks: {
      reply: (reply, context) => {
        const member = context.operation === undefined ? undefined : servedFilterMember(context.operation);
        const value = member === undefined ? undefined : queryMember(context, FILTER_PARAMETER, member.name);
        const outside = typeof value === 'string' && hasNonAscii(value) && !member!.values.includes(value);
        return reply.status === 400 && outside ? internalError('the message could not be encoded') : reply;
      },
    },
  },
  {
    name: 'every-197th-list-request-500',
    requirement: 'ERR-NO-5XX',
    appliesTo: 'lists',
    description:
      `Every ${INTERMITTENT_FAULT_PERIOD}th request the server serves for each list is answered 500, whatever it asks ` +
      '(a stale connection of a pool); sent again, the same request is answered.',
    detectableInOneExchange: false,
    foundBy: 'generation',
    intermittent: true,
    hooks: intermittentListFailure(INTERMITTENT_FAULT_PERIOD),
  },
];

/** The attributes left after removing those named by overlooked findings (`/data/attributes/<name>/...`). */
function withoutOverlooked(attributes: Record<string, unknown>, context: RequestContext): Record<string, unknown> {
  const names = new Set(context.overlooked.map((f) => unescapeToken(f.pointer.split('/')[3] ?? '')));
  return Object.fromEntries(Object.entries(attributes).filter(([name]) => !names.has(name)));
}

/** The attributes without those only the server sets (serverAttributes of the operation). */
function withoutServerAttributes(attributes: Record<string, unknown>, operation: Operation): Record<string, unknown> {
  const names = new Set(serverAttributes(operation).map((attribute) => attribute.name));
  return Object.fromEntries(Object.entries(attributes ?? {}).filter(([name]) => !names.has(name)));
}

/**
 * A finding of the list's filter requirement when the query asks for the last allowed value of its served filter
 * member.
 */
function lastFilterValueRefused(context: RequestContext): ReturnType<Contract['finding']>[] {
  const operation = context.operation;
  const requirement = operation?.roles.filterRequired;
  const member = operation === undefined ? undefined : servedFilterMember(operation);
  if (requirement === undefined || member === undefined || member.values.length < 2) return [];
  const last = member.values[member.values.length - 1];
  if (queryMember(context, 'filter', member.name) !== last) return [];
  const others = member.values
    .slice(0, -1)
    .map((v) => `"${v}"`)
    .join(' or ');
  return [
    loadContract().finding(requirement, 'request', {
      pointer: `filter[${member.name}]`,
      message: `filter[${member.name}] must be ${others}, got "${last}"`,
      expected: others,
      actual: `"${last}"`,
    }),
  ];
}

// --- Binding to the contract ----------------------------------------------------------------

/** The operations a fault applies to, or why it applies to none. */
function operationsOf(contract: Contract, fault: FaultEntry): Operation[] | string {
  const inScope = (operation: Operation) =>
    fault.appliesTo === 'lists'
      ? isListOperation(operation)
      : fault.appliesTo === 'creations'
        ? creates(operation)
        : true;
  const named =
    fault.operation === undefined
      ? contract.operations
      : contract.operations.filter((o) => o.operationId === fault.operation);
  if (fault.operation !== undefined && named.length === 0) return `the contract has no operation ${fault.operation}`;
  if (fault.role === undefined) {
    const scoped = named.filter(inScope);
    return scoped.length > 0
      ? scoped
      : `the contract has no ${fault.appliesTo === 'lists' ? 'list' : 'create operation'}`;
  }
  const playing = named.filter((operation) => inScope(operation) && operation.roles[fault.role!] !== undefined);
  const which =
    fault.operation ??
    (fault.appliesTo === undefined ? 'operation' : fault.appliesTo === 'lists' ? 'list' : 'create operation');
  if (playing.length === 0)
    return `no ${which} of the contract names a requirement for the role ${fault.role} (x-requirements)`;
  const having = fault.having === undefined ? playing : playing.filter(fault.having.has);
  return having.length > 0 ? having : `no ${which} of the contract has ${fault.having!.what}`;
}

/** The requirements a fault breaks in this contract, or why it breaks none. */
function requirementsOf(contract: Contract, fault: FaultEntry, operations: Operation[]): string[] | string {
  if (fault.role !== undefined) return [...new Set(operations.map((operation) => operation.roles[fault.role!]!))];
  if (fault.requirement === undefined) return 'it names neither a requirement nor a role';
  if (!contract.requirements.some((r) => r.id === fault.requirement))
    return `the catalogue holds no requirement ${fault.requirement}`;
  return [fault.requirement];
}

/**
 * The trigger with `{list}` and `{listPath}` resolved, or undefined when the contract has no list or no operation at
 * its path.
 */
function resolvedTrigger(
  contract: Contract,
  trigger: FaultTrigger | undefined,
  operations: Operation[],
): FaultTrigger | undefined {
  if (trigger === undefined) return undefined;
  let path = trigger.path;
  if (/\{list(Path)?\}/.test(path)) {
    const list = operations.find(isListOperation) ?? contract.operations.find(isListOperation);
    if (list === undefined) return undefined;
    const query = smallestQuery(list.parameters, { records: REFERENCE_FIXTURES });
    path = path
      .replace('{listPath}', list.pathTemplate)
      .replace('{list}&', query === '' ? `${list.pathTemplate}?` : `${list.pathTemplate}?${query}&`)
      .replace('{list}', query === '' ? list.pathTemplate : `${list.pathTemplate}?${query}`);
  }
  const pathname = path.split('?')[0];
  return contract.operations.some((o) => o.pathTemplate === pathname) ? { ...trigger, path } : undefined;
}

interface BoundFault {
  definition?: FaultDefinition;
  inapplicable?: string;
}

const boundFaults = new WeakMap<Contract, Map<string, BoundFault>>();

/** Every fault of the catalogue bound to `contract`: its definition, or why it does not apply. */
function bind(contract: Contract): Map<string, BoundFault> {
  let bound = boundFaults.get(contract);
  if (bound) return bound;
  bound = new Map();
  for (const fault of CATALOGUE) {
    const operations = operationsOf(contract, fault);
    const requirements = typeof operations === 'string' ? operations : requirementsOf(contract, fault, operations);
    if (typeof requirements === 'string') {
      bound.set(fault.name, { inapplicable: requirements });
      continue;
    }
    const { hooks: _hooks, ...written } = fault;
    const trigger = resolvedTrigger(contract, fault.trigger, operations as Operation[]);
    const detectable = fault.detectableInOneExchange && trigger !== undefined;
    bound.set(fault.name, {
      definition: {
        ...written,
        requirement: requirements[0],
        requirements,
        detectableInOneExchange: detectable,
        ...(detectable ? { trigger } : { trigger: undefined }),
      },
    });
  }
  boundFaults.set(contract, bound);
  return bound;
}

/** The faults of the catalogue that apply to `contract`, and why each other does not. */
export function faultsBoundTo(contract: Contract): { faults: FaultDefinition[]; inapplicable: Map<string, string> } {
  const bound = [...bind(contract)];
  return {
    faults: bound.flatMap(([, f]) => (f.definition ? [f.definition] : [])),
    inapplicable: new Map(
      bound.flatMap(([name, f]) => (f.inapplicable === undefined ? [] : [[name, f.inapplicable] as const])),
    ),
  };
}

/** The faults that apply to the contract loaded, each with the requirements it breaks there. */
export const FAULTS: FaultDefinition[] = faultsBoundTo(loadContract()).faults;

export const FAULT_NAMES: string[] = FAULTS.map((f) => f.name);

/** The faults of the catalogue that do not apply to the contract loaded, each with why: `run --fault` refuses them. */
export const INAPPLICABLE_FAULTS: ReadonlyMap<string, string> = faultsBoundTo(loadContract()).inapplicable;

/** Every fault of the catalogue, whether it applies to the contract loaded or not: its name and what it changes. */
export const FAULT_CATALOGUE: readonly Pick<FaultEntry, 'name' | 'description'>[] = CATALOGUE.map(
  ({ name, description }) => ({ name, description }),
);

/**
 * The hooks of the named faults, in the order given; an unknown name throws UnknownFaultError, one that does not apply
 * InapplicableFaultError.
 */
export function faultHooks(names: readonly string[]): ServerHooks[] {
  const inapplicable = names.find((name) => INAPPLICABLE_FAULTS.has(name));
  if (inapplicable !== undefined)
    throw new InapplicableFaultError(inapplicable, INAPPLICABLE_FAULTS.get(inapplicable)!);
  const unknown = names.filter((name) => !FAULT_NAMES.includes(name));
  if (unknown.length > 0) throw new UnknownFaultError(unknown, FAULT_NAMES);
  return names.map((name) => {
    const { hooks } = CATALOGUE.find((f) => f.name === name)!;
    return typeof hooks === 'function' ? hooks() : hooks;
  });
}
