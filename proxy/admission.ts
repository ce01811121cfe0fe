// What the proxy cannot judge as sent. The contract judges a request as the proxy reads it; an
// upstream may read the same bytes otherwise (a path it normalizes to an operation, a header
// the proxy drops as hop-by-hop, the second of two Content-Types, the first of two equal JSON
// member names, `1e1` read as 1). Each check below names one such place. Report mode logs what
// they find (INFO, direction request) and forwards the request as sent; enforce mode refuses it
// (errors.ts: REFUSAL_STATUSES), so what reaches the upstream is what was judged.
import { parseQueryPairs, queryString, type Contract, type Finding, type Operation } from '../contract/index.ts';

/** What the checks read of one request. */
export interface AdmissionRequest {
  method: string;
  /** Origin-form path and query, as the client sent it. */
  path: string;
  /** Header names and values as received: `[name, value, name, value, ...]`. */
  rawHeaders: readonly string[];
  /** The operation the path routes to, if any. */
  operation: Operation | null;
}

/** What the checks found of one request, each null when it holds. */
interface AdmissionReading {
  path: string | null;
  connectionNames: string | null;
  repeated: string | null;
  shape: string | null;
  number: string | null;
}

/** Headers whose value the contract reads: a proxy must forward exactly what it judged. */
function contractHeaders(contract: Contract): string[] {
  return ['authorization', contract.legacyHeader.toLowerCase(), 'content-type', 'content-encoding', 'content-length'];
}

/** Each rule and the part of the reading that breaks it. */
const admissionChecks: { rule: string; found: keyof AdmissionReading }[] = [
  { rule: 'PROXY-PATH-NOT-CANONICAL', found: 'path' },
  { rule: 'PROXY-CONNECTION-NAMES-CONTRACT-HEADER', found: 'connectionNames' },
  { rule: 'PROXY-DUPLICATE-HEADER', found: 'repeated' },
  { rule: 'PROXY-QUERY-SHAPE', found: 'shape' },
  { rule: 'PROXY-NUMBER-FORM', found: 'number' },
];

/** The rule ids of every admission check, in order. */
export const ADMISSION_RULES: readonly string[] = admissionChecks.map((c) => c.rule);

/** Findings for what the proxy could not judge as the upstream will read it (empty: it can). */
export function admissionFindings(contract: Contract, request: AdmissionRequest): Finding[] {
  // One pass over the path, the headers and the query each, whatever the number of checks.
  const reading: AdmissionReading = { path: nonCanonicalPath(contract, pathOf(request.path)), ...headerCounts(contract, request.rawHeaders), ...queryReading(request) };
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

/** Why a path is not in canonical form, or null. */
export function nonCanonicalPath(contract: Contract, path: string): string | null {
  const base = contract.basePath;
  const lower = path.toLowerCase();
  const underBase = lower === base || lower.startsWith(`${base}/`);
  if (!underBase && !/%|\\|;|\/\/|\/\.\.?(\/|$)/.test(path)) return null;
  if (/%2f|%5c/i.test(path)) return 'the path holds a percent-encoded / or \\';
  if (path.includes('\\')) return 'the path holds a backslash';
  if (UNRESERVED_ENCODED.test(path)) return 'the path percent-encodes a character that needs no encoding';
  if (path.includes(';')) return 'the path holds a ; (path parameters)';
  if (/\/\.\.?(\/|$)/.test(path) || /\/%2e/i.test(path)) return 'the path holds a dot segment';
  if (path.includes('//')) return 'the path holds an empty segment';
  if (underBase && !path.startsWith(base)) return `the path's root is a case variant of ${base}`;
  if (underBase) {
    const rest = path.slice(base.length).replace(/\/+$/, '');
    const variant = contract.operations.find((o) => o.pathTemplate.toLowerCase() === rest.toLowerCase() && o.pathTemplate !== rest);
    if (variant) return `the path is a case variant of ${base}${variant.pathTemplate}`;
  }
  return null;
}

interface QueryShapes {
  /** Lower-case parameter names. */
  roots: Set<string>;
  /** Every query key the contract defines, with the JSON type of its value. */
  members: Map<string, string>;
}

const shapesByOperation = new WeakMap<Operation, QueryShapes>();

function queryShapes(operation: Operation): QueryShapes {
  let shapes = shapesByOperation.get(operation);
  if (!shapes) {
    shapes = { roots: new Set(), members: new Map() };
    for (const parameter of operation.parameters) {
      shapes.roots.add(parameter.name.toLowerCase());
      const properties = parameter.schema.properties as Record<string, Record<string, unknown>> | undefined;
      if (parameter.style === 'deepObject' && properties) {
        for (const [member, schema] of Object.entries(properties)) shapes.members.set(`${parameter.name}[${member}]`, jsonKind(schema.type));
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

function pathOf(path: string): string {
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

interface HeaderReading {
  connectionNames: string | null;
  repeated: string | null;
}

/** One pass over the raw headers: a Connection token naming a header the contract reads, and such a header sent twice. */
function headerCounts(contract: Contract, raw: readonly string[]): HeaderReading {
  const read = contractHeaders(contract);
  const seen = new Set<string>();
  const reading: HeaderReading = { connectionNames: null, repeated: null };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === 'connection') {
      for (const token of raw[i + 1].split(',')) {
        const named = token.trim().toLowerCase();
        if (reading.connectionNames === null && read.includes(named)) reading.connectionNames = `Connection names ${named}, which the proxy would judge and the upstream would never receive`;
      }
    } else if (read.includes(name)) {
      if (seen.has(name) && reading.repeated === null) reading.repeated = `${name} is sent more than once; the proxy and the upstream may read different ones`;
      seen.add(name);
    }
  }
  return reading;
}

interface QueryReading {
  shape: string | null;
  number: string | null;
}

const NO_QUERY_PROBLEM: QueryReading = { shape: null, number: null };

/** One parse of the query: a member in a shape the contract does not define, and a number not written plainly. */
function queryReading(request: AdmissionRequest): QueryReading {
  const raw = queryString(request.path);
  if (!request.operation || raw === '') return NO_QUERY_PROBLEM;
  const shapes = queryShapes(request.operation);
  const reading: QueryReading = { shape: null, number: null };
  for (const pair of parseQueryPairs(raw)) {
    const key = pair.member === undefined ? pair.name : `${pair.name}[${pair.member}]`;
    const kind = shapes.members.get(key);
    if (kind === undefined) {
      if (reading.shape === null && shapes.roots.has(rootOf(key))) reading.shape = `query member ${key.slice(0, 80)} is not one of ${[...shapes.members.keys()].join(', ')}`;
    } else if (kind === 'number' && reading.number === null && looksNumeric(pair.value) && !PLAIN_INTEGER.test(pair.value)) {
      reading.number = `${key} is ${JSON.stringify(pair.value.slice(0, 40))}, not a plain decimal integer: parsers read it differently`;
    }
  }
  return reading;
}

/**
 * The first object member name repeated within one object of a JSON text, or null. A scanner
 * over the text, with an explicit stack: no recursion, whatever the nesting.
 */
export function duplicateMemberName(text: string): string | null {
  const stack: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (end < text.length) {
        const d = text.charCodeAt(end);
        if (escaped) escaped = false;
        else if (d === 0x5c) escaped = true;
        else if (d === 0x22) break;
        end += 1;
      }
      const top = stack[stack.length - 1];
      if (expectingKey && top) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? safeJsonString(raw) : raw;
        if (top.has(name)) return name;
        top.add(name);
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectingKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
      expectingKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectingKey = false;
    } else if (c === 0x2c /* , */) {
      expectingKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
  }
  return null;
}

function safeJsonString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
