// What the proxy cannot judge as sent. The contract judges a request as the proxy reads it; an
// upstream may read the same bytes otherwise (a path it normalizes to an operation, a header
// the proxy drops as hop-by-hop, the second of two Content-Types, the first of two equal JSON
// member names, `1e1` read as 1). Each check below names one such place. Report mode logs what
// they find (INFO, direction request) and forwards the request as sent; enforce mode refuses it
// (errors.ts: REFUSAL_STATUSES), so what reaches the upstream is what was judged.
import {
  parseQueryPairs,
  pathWithoutQuery,
  PROTOTYPE_KEYS,
  queryString,
  withoutTrailingSlashes,
  type Contract,
  type Finding,
  type Operation,
} from '../contract/index.ts';

/** What the checks read of one request. */
export interface AdmissionRequest {
  method: string;
  /** Origin-form path and query, as the client sent it. */
  path: string;
  /** Header names and values as received: `[name, value, name, value, ...]`. */
  rawHeaders: readonly string[];
  /** The operation the path routes to, if any. */
  operation: Operation | null;
  /** Whether the proxy adds X-Forwarded-* headers of its own (--forwarded-headers). */
  forwardedHeaders?: boolean;
}

/** What the checks found of one request, each null when it holds. */
interface AdmissionReading {
  path: string | null;
  connectionNames: string | null;
  repeated: string | null;
  shape: string | null;
  number: string | null;
  methodOverride: string | null;
  separator: string | null;
  bodyOnGet: string | null;
  rewrite: string | null;
  prototypeKey: string | null;
  forwarded: string | null;
  frameworkReading: string | null;
  documentMerge: string | null;
}

const contractHeadersOf = new WeakMap<Contract, ReadonlySet<string>>();

/**
 * Headers whose value the contract reads (a proxy must forward exactly what it judged), lower case; built once per
 * contract, not per request.
 */
function contractHeaders(contract: Contract): ReadonlySet<string> {
  let headers = contractHeadersOf.get(contract);
  if (!headers)
    contractHeadersOf.set(
      contract,
      (headers = new Set([
        'authorization',
        contract.legacyHeader.toLowerCase(),
        'content-type',
        'content-encoding',
        'content-length',
      ])),
    );
  return headers;
}

/** Each rule and the part of the reading that breaks it. */
const admissionChecks: { rule: string; found: keyof AdmissionReading }[] = [
  { rule: 'PROXY-PATH-NOT-CANONICAL', found: 'path' },
  { rule: 'PROXY-CONNECTION-NAMES-CONTRACT-HEADER', found: 'connectionNames' },
  { rule: 'PROXY-DUPLICATE-HEADER', found: 'repeated' },
  { rule: 'PROXY-QUERY-SHAPE', found: 'shape' },
  { rule: 'PROXY-NUMBER-FORM', found: 'number' },
  { rule: 'PROXY-METHOD-OVERRIDE', found: 'methodOverride' },
  { rule: 'PROXY-QUERY-SEPARATOR', found: 'separator' },
  { rule: 'PROXY-BODY-ON-GET', found: 'bodyOnGet' },
  { rule: 'PROXY-REWRITE-HEADER', found: 'rewrite' },
  { rule: 'PROXY-PROTOTYPE-KEY', found: 'prototypeKey' },
  { rule: 'PROXY-FORWARDED-HEADER', found: 'forwarded' },
  { rule: 'PROXY-QUERY-READING', found: 'frameworkReading' },
  { rule: 'PROXY-QUERY-MERGES-DOCUMENT', found: 'documentMerge' },
];

/** Headers with which some server frameworks read a request as another method. */
export const METHOD_OVERRIDE_HEADERS: ReadonlySet<string> = new Set([
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]);
/** Query parameters with which some server frameworks read a request as another method. */
export const METHOD_OVERRIDE_PARAMETERS: ReadonlySet<string> = new Set(['_method']);
/** Headers with which some servers route a request to another path than its own. */
export const REWRITE_HEADERS: ReadonlySet<string> = new Set(['x-original-url', 'x-rewrite-url']);
/** Headers the proxy writes itself under --forwarded-headers: the client's own would pass for the proxy's. */
const FORWARDED_HEADERS = new Set(['x-forwarded-host', 'x-forwarded-proto', 'forwarded']);
/** Methods whose body the contract never judges, and some servers read anyway. */
const BODILESS_METHODS = new Set(['GET', 'HEAD']);

/** The rule ids of every admission check, in order. */
export const ADMISSION_RULES: readonly string[] = admissionChecks.map((c) => c.rule);

/** Findings for what the proxy could not judge as the upstream will read it (empty: it can). */
export function admissionFindings(contract: Contract, request: AdmissionRequest): Finding[] {
  // One pass over the path, the headers and the query each, whatever the number of checks, into one reading.
  const reading: AdmissionReading = {
    path: nonCanonicalPath(contract, pathWithoutQuery(request.path)),
    connectionNames: null,
    repeated: null,
    shape: null,
    number: null,
    methodOverride: null,
    separator: null,
    bodyOnGet: null,
    rewrite: null,
    prototypeKey: null,
    forwarded: null,
    frameworkReading: null,
    documentMerge: null,
  };
  readHeaders(contract, request, reading);
  readQuery(request, reading);
  const findings: Finding[] = [];
  for (const check of admissionChecks) {
    const message = reading[check.found];
    if (message !== null) findings.push(contract.finding(check.rule, 'request', { message }));
  }
  return findings;
}

const PLAIN_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;

/** A value some number parser reads as a number (so its form matters). */
function looksNumeric(value: string): boolean {
  return value.trim() !== '' && Number.isFinite(Number(value));
}

const UNRESERVED_ENCODED = /%(2[dDeE]|5[fF]|7[eE]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA])/;

/**
 * A character or sequence one of the checks of nonCanonicalPath before its case variants looks for: without one, none
 * of them finds anything.
 */
const NOT_PLAIN = /[^\x21-\x7e]|%|\\|;|\/\/|\/\.\.?(\/|$)/;

/** Why a path is not in canonical form, or null. */
export function nonCanonicalPath(contract: Contract, path: string): string | null {
  const base = contract.basePath;
  const lower = path.toLowerCase();
  const underBase = lower === base || lower.startsWith(`${base}/`);
  const plain = !NOT_PLAIN.test(path);
  if (!underBase && plain) return null;
  if (!plain) {
    // Outside ASCII, a server may fold case (the Kelvin sign K, a dotless i) or normalize to an operation's path.
    if (/[^\x21-\x7e]/.test(path)) return 'the path holds a space, a control character or a character outside ASCII';
    if (/%25/.test(path)) return 'the path percent-encodes a % (double encoding)';
    if (/%(?:[01][0-9a-f]|20|7f|[89a-f][0-9a-f])/i.test(path))
      return 'the path percent-encodes a space, a control character or a byte outside ASCII';
    if (/%2f|%5c/i.test(path)) return 'the path holds a percent-encoded / or \\';
    if (path.includes('\\')) return 'the path holds a backslash';
    if (UNRESERVED_ENCODED.test(path)) return 'the path percent-encodes a character that needs no encoding';
    if (path.includes(';')) return 'the path holds a ; (path parameters)';
    if (/\/\.\.?(\/|$)/.test(path) || /\/%2e/i.test(path)) return 'the path holds a dot segment';
    if (path.includes('//')) return 'the path holds an empty segment';
  }
  if (underBase && !path.startsWith(base)) return `the path's root is a case variant of ${base}`;
  if (underBase) {
    const rest = withoutTrailingSlashes(path.slice(base.length));
    const templates = templatesByLowerCase(contract);
    const variant = templates.get(rest.toLowerCase())?.find((template) => template !== rest);
    if (variant !== undefined) return `the path is a case variant of ${base}${variant}`;
    const extended = rest.includes('.') ? /^(.*)\.[A-Za-z0-9]+$/.exec(rest) : null;
    const withExtension = extended && templates.get(extended[1].toLowerCase())?.[0];
    if (withExtension) return `the path is ${base}${withExtension} with an extension, which some servers strip`;
  }
  return null;
}

const lowerCaseTemplates = new WeakMap<Contract, ReadonlyMap<string, readonly string[]>>();

/** The operations' path templates by their lower case, each list in the operations' order; built once per contract. */
function templatesByLowerCase(contract: Contract): ReadonlyMap<string, readonly string[]> {
  let templates = lowerCaseTemplates.get(contract);
  if (!templates) {
    const byLowerCase = new Map<string, string[]>();
    for (const { pathTemplate } of contract.operations) {
      const lower = pathTemplate.toLowerCase();
      byLowerCase.set(lower, [...(byLowerCase.get(lower) ?? []), pathTemplate]);
    }
    lowerCaseTemplates.set(contract, (templates = byLowerCase));
  }
  return templates;
}

interface QueryShapes {
  /** Lower-case parameter names. */
  roots: Set<string>;
  /** Every query key the contract defines, with the JSON type of its value. */
  members: Map<string, string>;
  /**
   * Lower-case names of the request document's top-level members (`data`), which some frameworks merge query parameters
   * into.
   */
  documentMembers: Set<string>;
}

const shapesByOperation = new WeakMap<Operation, QueryShapes>();

function queryShapes(operation: Operation): QueryShapes {
  let shapes = shapesByOperation.get(operation);
  if (!shapes) {
    shapes = {
      roots: new Set(),
      members: new Map(),
      documentMembers: new Set(Object.keys(operation.requestBody?.properties ?? {}).map((name) => name.toLowerCase())),
    };
    for (const parameter of operation.parameters) {
      shapes.roots.add(parameter.name.toLowerCase());
      const properties = parameter.schema.properties as Record<string, Record<string, unknown>> | undefined;
      if (parameter.style === 'deepObject' && properties) {
        for (const [member, schema] of Object.entries(properties))
          shapes.members.set(`${parameter.name}[${member}]`, jsonKind(schema.type));
      } else {
        shapes.members.set(parameter.name, jsonKind(parameter.schema.type));
      }
    }
    shapesByOperation.set(operation, shapes);
  }
  return shapes;
}

function jsonKind(type: unknown): string {
  return type === 'integer' || type === 'number' ? 'number' : String(type);
}

function rootOf(key: string): string {
  return key.split(/[[.]/, 1)[0].toLowerCase();
}

/**
 * One pass over the raw headers: a Connection token naming a header the contract reads, such a
 * header sent twice, a method override, a body on GET, a rewrite header, and (under
 * --forwarded-headers) the client's own forwarded headers.
 */
function readHeaders(contract: Contract, request: AdmissionRequest, reading: AdmissionReading): void {
  const raw = request.rawHeaders;
  const read = contractHeaders(contract);
  // The contract's headers seen so far: a handful at most, so a list rather than a set per request.
  const seen: string[] = [];
  const bodiless = BODILESS_METHODS.has(request.method);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (METHOD_OVERRIDE_HEADERS.has(name))
      reading.methodOverride ??= `${name} asks to read this ${request.method.slice(0, 20)} as another method`;
    else if (REWRITE_HEADERS.has(name))
      reading.rewrite ??= `${name} asks to route the request to another path than the one judged`;
    else if (request.forwardedHeaders === true && FORWARDED_HEADERS.has(name))
      reading.forwarded ??= `a peer outside --trusted-proxies sent its own ${name}, speaking for a proxy it is not`;
    if (bodiless && ((name === 'content-length' && raw[i + 1].trim() !== '0') || name === 'transfer-encoding'))
      reading.bodyOnGet ??= `a ${request.method} carrying a body (${name}), which the contract never judges`;
    if (name === 'connection') {
      for (const token of raw[i + 1].split(',')) {
        const named = token.trim().toLowerCase();
        if (reading.connectionNames === null && read.has(named))
          reading.connectionNames = `Connection names ${named}, which the proxy would judge and the upstream would never receive`;
      }
    } else if (read.has(name)) {
      if (seen.includes(name))
        reading.repeated ??= `${name} is sent more than once; the proxy and the upstream may read different ones`;
      else seen.push(name);
    }
  }
}

/** A query key's parts as qs reads them, bracketed or dotted (`a[b][c]`, `a.b`). */
const QUERY_KEY_PARTS = /[[\].]/;

/**
 * Whether any part of a query key, at any depth, is a name JavaScript merges into the prototype:
 * qs builds `constructor[prototype][type]=x` and `x[__proto__][y]=1` into nested objects.
 */
function namesPrototypeMember(key: string): boolean {
  if (!key.includes('proto') && !key.includes('constructor')) return false;
  return key.split(QUERY_KEY_PARTS).some((part) => PROTOTYPE_KEYS.has(part));
}

/**
 * One parse of the query: a `;` (a separator to some servers), a method override (which stands
 * for the request's over a header's), a prototype key, and for an operation's query a member in a
 * shape the contract does not define, a number not written plainly, what the common frameworks'
 * parsers read otherwise (queryMisreading; a key opening with a bracket; a member given twice)
 * and a key a framework merges into the request document.
 */
function readQuery(request: AdmissionRequest, reading: AdmissionReading): void {
  const raw = queryString(request.path);
  if (raw === '') return;
  if (raw.includes(';'))
    reading.separator = 'the query holds a ;, which some servers read as a separator between parameters';
  const shapes = request.operation ? queryShapes(request.operation) : null;
  if (shapes !== null) reading.frameworkReading = queryMisreading(raw);
  // The contract's members seen so far: a handful at most.
  const given: string[] = [];
  let methodOverride: string | null = null;
  for (const pair of parseQueryPairs(raw)) {
    const name = pair.name.toLowerCase();
    if (METHOD_OVERRIDE_PARAMETERS.has(name))
      methodOverride ??= `the query parameter ${name} asks to read this ${request.method.slice(0, 20)} as another method`;
    const key = pair.member === undefined ? pair.name : `${pair.name}[${pair.member}]`;
    if (reading.prototypeKey === null && namesPrototypeMember(key)) {
      reading.prototypeKey = `the query key ${key.slice(0, 80)} names a prototype member`;
    }
    if (shapes === null) continue;
    if (reading.frameworkReading === null && key.charCodeAt(0) === 0x5b /* [ */)
      reading.frameworkReading = `the query key ${key.slice(0, 80)} opens with a bracket: qs reads it as the parameter inside the brackets, the contract as another name`;
    if (
      reading.documentMerge === null &&
      shapes.documentMembers.size > 0 &&
      shapes.documentMembers.has(documentRoot(key))
    )
      reading.documentMerge = `the query key ${key.slice(0, 80)} names a member of the request document, which Rails-style frameworks merge into the body they read`;
    const kind = shapes.members.get(key);
    if (kind === undefined) {
      if (reading.shape === null && shapes.roots.has(rootOf(key)))
        reading.shape = `query member ${key.slice(0, 80)} is not one of ${[...shapes.members.keys()].join(', ')}`;
      continue;
    }
    if (given.includes(key))
      reading.frameworkReading ??= `${key} is given more than once: qs and node:querystring read a list, URLSearchParams's get the first`;
    else given.push(key);
    if (kind === 'number' && reading.number === null && looksNumeric(pair.value) && !PLAIN_INTEGER.test(pair.value)) {
      reading.number = `${key} is ${JSON.stringify(pair.value.slice(0, 40))}, not a plain decimal integer: parsers read it differently`;
    }
  }
  if (methodOverride !== null) reading.methodOverride = methodOverride;
}

/**
 * The name a query key merges into, as Rack reads it: leading brackets skipped, up to the next bracket (or dot, as
 * other binders read it).
 */
function documentRoot(key: string): string {
  return key
    .replace(/^[[\]]+/, '')
    .split(/[[\].]/, 1)[0]
    .toLowerCase();
}

/**
 * How many `&`-separated parts of a query qs (Express 4) and node:querystring (Express 5) read, empty parts counted;
 * the rest they drop.
 */
export const QUERY_PARTS_READ_MAX = 1000;

/**
 * Where the common parsers split or decode a query otherwise than the contract's reading, or
 * null: more parts than they read, a part qs splits at a `]=` after its first `=` (qs reads
 * `%5B`/`%5D` as brackets before splitting), a `%` that is no UTF-8 percent-encoding (qs keeps it
 * as sent, node:querystring and URLSearchParams decode what they can). Each test runs only when
 * the character it needs is in the query.
 */
export function queryMisreading(raw: string): string | null {
  if (raw.length >= QUERY_PARTS_READ_MAX && partsOf(raw) > QUERY_PARTS_READ_MAX)
    return `the query has ${partsOf(raw)} parts: qs and node:querystring read only the first ${QUERY_PARTS_READ_MAX}`;
  const percent = raw.includes('%');
  if (!percent && !raw.includes(']=')) return null;
  for (const part of raw.split('&')) {
    const bracketed = percent ? part.replace(/%5b/gi, '[').replace(/%5d/gi, ']') : part;
    const bracketEquals = bracketed.indexOf(']=');
    if (bracketEquals >= 0 && bracketed.indexOf('=') !== bracketEquals + 1)
      return `the query part ${part.slice(0, 80)} holds a ]= after its first =: qs splits its name there`;
    if (percent && part.includes('%') && !decodes(part))
      return `the query part ${part.slice(0, 80)} holds a % that is no UTF-8 percent-encoding: parsers decode it differently`;
  }
  return null;
}

function partsOf(raw: string): number {
  let parts = 1;
  for (let at = raw.indexOf('&'); at >= 0; at = raw.indexOf('&', at + 1)) parts += 1;
  return parts;
}

function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}
