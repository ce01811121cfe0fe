// Query strings in the bracket convention the kit uses for deepObject parameters (JSON:API's, as section 4.4 shows
// none): `filter[type]=portal`, `page[limit]=10&page[offset]=0`, `include=a,b`. Values are coerced to the JSON type
// their schema asks for only when they really are of it, so `page[limit]=abc` stays the string "abc" and fails
// validation as a string rather than disappearing.
import { scalarText } from './scalar-text.ts';

export interface QueryPair {
  name: string;
  member?: string;
  value: string;
}

export interface QueryParameter {
  name: string;
  style?: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function decodeComponent(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Splits a raw query string (with or without the leading `?`) into decoded pairs. */
export function parseQueryPairs(raw: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  for (const part of (raw.startsWith('?') ? raw.slice(1) : raw).split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const key = decodeComponent(equals < 0 ? part : part.slice(0, equals));
    const value = equals < 0 ? '' : decodeComponent(part.slice(equals + 1));
    const open = bracketOpening(key);
    pairs.push(open > 0 ? { name: key.slice(0, open), member: key.slice(open + 1, -1), value } : { name: key, value });
  }
  return pairs;
}

/**
 * Where the `[` of a bracket key (`name[member]`, neither part holding a bracket, the name not
 * empty: `/^([^[\]]+)\[([^[\]]*)\]$/`) opens; -1 for any other key. Read without a match object
 * per key: every query key of every request comes here.
 */
function bracketOpening(key: string): number {
  const open = key.indexOf('[');
  if (open <= 0 || key.indexOf(']') !== key.length - 1 || key.indexOf('[', open + 1) >= 0) return -1;
  return open;
}

/**
 * Builds the query object the operation's parameters describe. A deepObject parameter becomes
 * an object of its members (a repeated member becomes an array, a bare `filter=x` stays a
 * string so its wrong shape is visible); a form array is split on commas. Parameters the
 * operation does not declare are kept as strings.
 */
export function buildQuery(pairs: QueryPair[], parameters: QueryParameter[]): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  const declared = parametersByName(parameters);
  for (const pair of pairs) {
    const parameter = declared.get(pair.name);
    if (!parameter) {
      const key = pair.member === undefined ? pair.name : `${pair.name}[${pair.member}]`;
      query[key] = appendValue(query[key], pair.value);
    } else if (parameter.style === 'deepObject') {
      query[pair.name] = addDeepObjectPair(query[pair.name], pair);
    } else {
      query[pair.name] = addFormPair(query[pair.name], pair, parameter.schema);
    }
  }
  for (const parameter of parameters) {
    if (parameter.name in query) query[parameter.name] = coerce(query[parameter.name], parameter.schema);
  }
  return query;
}

const declaredParameters = new WeakMap<QueryParameter[], Map<string, QueryParameter>>();

/** Built once per parameter list: an operation's parameters are read on every request. */
function parametersByName(parameters: QueryParameter[]): Map<string, QueryParameter> {
  let byName = declaredParameters.get(parameters);
  if (!byName) {
    byName = new Map(parameters.map((p) => [p.name, p]));
    declaredParameters.set(parameters, byName);
  }
  return byName;
}

/**
 * Appends in place: a key repeated thousands of times costs linear time, not quadratic (the arrays are buildQuery's
 * own).
 */
function appendValue(existing: unknown, value: unknown): unknown {
  if (existing === undefined) return value;
  if (!Array.isArray(existing)) return [existing, value];
  existing.push(value);
  return existing;
}

function addDeepObjectPair(existing: unknown, pair: QueryPair): unknown {
  if (pair.member === undefined) return existing === undefined ? pair.value : appendValue(existing, pair.value);
  // Once the parameter has the wrong shape, later members are kept beside it rather than dropped.
  if (existing !== undefined && (typeof existing !== 'object' || Array.isArray(existing)))
    return appendValue(existing, { [pair.member]: pair.value });
  const object = (existing ?? {}) as Record<string, unknown>;
  object[pair.member] = appendValue(object[pair.member], pair.value);
  return object;
}

function addFormPair(existing: unknown, pair: QueryPair, schema: Record<string, unknown>): unknown {
  if (pair.member !== undefined) return { ...(existing as object), [pair.member]: pair.value };
  if (schema.type !== 'array') return appendValue(existing, pair.value);
  const items = pair.value === '' ? [] : pair.value.split(',');
  if (!Array.isArray(existing)) return items;
  for (const item of items) existing.push(item);
  return existing;
}

/** Turns strings into the number, integer or boolean the schema asks for, when they are one. */
export function coerce(value: unknown, schema: Record<string, unknown> | undefined): unknown {
  if (!schema) return value;
  const type = schema.type;
  if (typeof value === 'string') {
    if ((type === 'number' || type === 'integer') && numberText.test(value.trim())) return Number(value);
    if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  }
  if (Array.isArray(value)) {
    const items = schema.items as Record<string, unknown> | undefined;
    return type === 'array' ? value.map((v) => coerce(v, items)) : value;
  }
  if (value !== null && typeof value === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = coerce(member, properties[key]);
    return out;
  }
  return value;
}

/** Names a query location in bracket form: ['page', 'limit'] → `page[limit]`. */
export function parameterName(tokens: string[]): string {
  if (tokens.length === 0) return '';
  return (
    tokens[0] +
    tokens
      .slice(1)
      .map((t) => `[${t}]`)
      .join('')
  );
}

type MemberSchemas = Record<string, { enum?: unknown[]; minimum?: number; 'x-record'?: unknown }>;

/** The ids of the records a request may name, by kind (`x-record`): a target's fixtures. */
export type RecordIds = Readonly<Record<string, string | undefined>>;

/**
 * The value a schema shows for a member without allowing only that one: its first `examples`, its `example` or its
 * `default`.
 */
function shownValue(schema: Record<string, unknown>): string | undefined {
  const shown: unknown =
    Array.isArray(schema.examples) && schema.examples.length > 0
      ? schema.examples[0]
      : (schema.example ?? schema.default);
  return shown === undefined || (shown !== null && typeof shown === 'object') ? undefined : scalarText(shown);
}

/**
 * The value a request gives a member of a deepObject parameter: its first allowed value, the id in `records` of the
 * kind of record it names (`x-record`), or the value its schema shows; empty when there is none.
 */
export function memberValue(schema: MemberSchemas[string], records: RecordIds): string {
  if (schema.enum !== undefined && schema.enum.length > 0) return String(schema.enum[0]);
  const record = typeof schema['x-record'] === 'string' ? records[schema['x-record']] : undefined;
  return record ?? shownValue(schema) ?? '';
}

/** The members a deepObject parameter requires, with their schemas. */
function requiredMembers(parameter: QueryParameter): [string, MemberSchemas[string]][] {
  const schema = parameter.schema as { required?: string[]; properties?: MemberSchemas };
  return (schema.required ?? []).map((member) => [member, schema.properties?.[member] ?? {}]);
}

/**
 * The smallest query an operation serves: for each required parameter, each required member at
 * its first allowed value (`filter[type]=portal`), or one naming a record (`x-record`) at the id
 * `records` give for its kind; with `smallestPage`, also each optional parameter whose required
 * members all have a minimum, at those minimums (`page[limit]=1&page[offset]=0`: the smallest
 * answer). Derived from the parameters' schemas, so a new operation brings its own.
 */
export function smallestQuery(parameters: QueryParameter[], { smallestPage = false, records = {} } = {}): string {
  const pairs = parameters.flatMap((parameter) => {
    const members = requiredMembers(parameter);
    if (parameter.required)
      return members.map(([member, schema]) => `${parameter.name}[${member}]=${memberValue(schema, records)}`);
    if (smallestPage && members.length > 0 && members.every(([, schema]) => typeof schema.minimum === 'number'))
      return members.map(([member, schema]) => `${parameter.name}[${member}]=${schema.minimum}`);
    return [];
  });
  return pairs.join('&');
}
