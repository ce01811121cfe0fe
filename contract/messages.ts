// Turns ajv errors into sentences a person would write ("page[limit] must be a number ≥ 1,
// got 0"), with the pointer of the member at fault and the expected and actual values.
import type { ErrorObject } from 'ajv';
import { escapeToken, unescapeToken } from './resolve.ts';
import { parameterName } from './query.ts';
import { scalarText } from './scalar-text.ts';
import { cutText, FINDING_LIMITS, FINDING_TEXT_MAX, SCHEMA_ERRORS_DESCRIBED, SCHEMA_ERRORS_WORDED } from './bounds.ts';

export interface SchemaProblem {
  keyword: string;
  pointer: string;
  message: string;
  expected: string;
  actual?: string;
  /** Set on a problem standing for more of one shape that were only counted: how many beyond itself. */
  omitted?: number;
}

type Schema = Record<string, unknown>;

/**
 * One problem per schema error, up to a bound per shape (keyword and schema path: the same rule
 * broken by every item of an array has one shape). Past the first `listedPerShape` of a
 * shape, errors are only counted into one problem standing for them: no report lists more
 * (contract/bounds.ts), and describing hundreds of them would cost more than finding them.
 */
export function problemsFromErrors(
  errors: ErrorObject[],
  inQuery: boolean,
  includeValues: boolean,
  listedPerShape: number = FINDING_LIMITS.perRule,
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  // The messages listed so far at each pointer: a key joining pointer and message would be built
  // and hashed for every problem, where most pointers come once.
  const listedAt = new Map<string, string[]>();
  const shapes = new Map<string, { listed: number; firstUncounted: ErrorObject | null; uncounted: number }>();
  // Past the first errors, the rest are not read: the message is known to be broken.
  const read = errors.length > SCHEMA_ERRORS_DESCRIBED ? errors.slice(0, SCHEMA_ERRORS_DESCRIBED) : errors;
  let worded = 0;
  for (const error of withoutSameMemberEchoes(withoutBranchNoise(read))) {
    // The schema path ends in the keyword, and ajv's generated code hands out the same string each time (a cheap key).
    let shape = shapes.get(error.schemaPath);
    if (!shape) shapes.set(error.schemaPath, (shape = { listed: 0, firstUncounted: null, uncounted: 0 }));
    if (shape.listed >= listedPerShape) {
      shape.firstUncounted ??= error;
      shape.uncounted += 1;
      continue;
    }
    shape.listed += 1;
    // An error without its schema (the quick validator's, validate.ts) can only be located.
    const problem =
      error.parentSchema !== undefined && (worded < SCHEMA_ERRORS_WORDED || inQuery)
        ? describeError(error, inQuery, includeValues)
        : locatedOnly(error, inQuery);
    worded += 1;
    const messages = listedAt.get(problem.pointer);
    if (messages?.includes(problem.message)) continue;
    if (messages) messages.push(problem.message);
    else listedAt.set(problem.pointer, [problem.message]);
    problems.push(problem);
  }
  for (const { firstUncounted, uncounted } of shapes.values()) {
    if (firstUncounted === null) continue;
    const { keyword, pointer, expected } = locatedOnly(firstUncounted, inQuery);
    problems.push({
      keyword,
      pointer,
      message: `and ${uncounted} more like ${pointer || 'the document'} (${keyword}), not described`,
      expected,
      omitted: uncounted - 1,
    });
  }
  return problems;
}

const combinators = new Set(['oneOf', 'anyOf', 'not']);

/**
 * oneOf/anyOf/not report every failing branch; the person wants one sentence about the member.
 * When the value's JSON type picks exactly one branch (an identifier object among null, object
 * and array), that branch's own errors say what is wrong inside it; otherwise the combinator's
 * summary ("null, an object or an array") does.
 */
function withoutBranchNoise(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const error of errors.filter((e) => combinators.has(e.keyword))) {
    const prefix = error.schemaPath + '/';
    const branch = error.keyword === 'not' ? -1 : branchOfType(error.parentSchema?.[error.keyword], error.data);
    const keep = branch < 0 ? undefined : `${prefix}${branch}/`;
    kept = kept.filter((e) =>
      e === error
        ? keep === undefined
        : !e.schemaPath.startsWith(prefix) || (keep !== undefined && e.schemaPath.startsWith(keep)),
    );
  }
  return kept;
}

/** The index of the only branch whose declared type admits the value, or -1. */
function branchOfType(branches: unknown, value: unknown): number {
  if (!Array.isArray(branches)) return -1;
  const matching = branches.flatMap((branch: Schema, index) => (admitsType(branch.type, value) ? [index] : []));
  return matching.length === 1 ? matching[0] : -1;
}

function admitsType(type: unknown, value: unknown): boolean {
  if (type === undefined) return true;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => t === actual || (t === 'integer' && Number.isInteger(value)));
}

/**
 * Several keywords failing on one member say one thing: an allowed-values error already tells
 * the type, and a combinator over a value of the wrong type adds nothing to the type error.
 */
function withoutSameMemberEchoes(errors: ErrorObject[]): ErrorObject[] {
  if (!errors.some((e) => e.keyword === 'type' || combinators.has(e.keyword))) return errors;
  const byPath = (keywords: string[]) =>
    new Set(errors.filter((e) => keywords.includes(e.keyword)).map((e) => e.instancePath));
  const withValues = byPath(['enum', 'const']);
  const withType = byPath(['type']);
  return errors.filter((e) => {
    if (e.keyword === 'type') return !withValues.has(e.instancePath);
    if (combinators.has(e.keyword)) return !withType.has(e.instancePath);
    return true;
  });
}

/** Pointers are cut where they are made: every message, route and key built from one reads the cut one. */
function cutPointer(pointer: string): string {
  return cutText(pointer, FINDING_TEXT_MAX.pointer);
}

/** A body error past the worded ones: where and which keyword, in a sentence that costs nothing to build. */
function locatedOnly(error: ErrorObject, inQuery: boolean): SchemaProblem {
  const path =
    error.keyword === 'required'
      ? `${error.instancePath}/${escapeToken(String((error.params as { missingProperty: string }).missingProperty))}`
      : error.instancePath;
  const pointer = cutPointer(inQuery ? locate(path.split('/').slice(1).map(unescapeToken), true) : path);
  return {
    keyword: error.keyword,
    pointer,
    message: `${pointer || 'the document'} breaks the schema (${error.keyword})`,
    expected: `valid (${error.keyword})`,
  };
}

function describeError(error: ErrorObject, inQuery: boolean, includeValues: boolean): SchemaProblem {
  const schema = (error.parentSchema ?? {}) as Schema;
  const tokens =
    inQuery || error.keyword === 'required' ? error.instancePath.split('/').slice(1).map(unescapeToken) : [];
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    const memberTokens = [...tokens, missing, ...queryMemberOf(schema, missing, inQuery)];
    const where = cutPointer(locate(memberTokens, inQuery));
    return { keyword: 'required', pointer: where, message: `${name(where)} is required`, expected: 'present' };
  }
  // A body's pointer is ajv's instance path, already escaped.
  const where = cutPointer(inQuery ? locate(tokens, true) : error.instancePath);
  const got = includeValues ? showValue(error.data) : jsonTypeOf(error.data);
  const expected = expectationOf(error, schema);
  return {
    keyword: error.keyword,
    pointer: where,
    message: `${name(where)} must be ${expected}, got ${got}`,
    expected,
    actual: got,
  };
}

/** A missing required deepObject parameter is named by its required member: `filter[type]`. */
function queryMemberOf(parent: Schema, missing: string, inQuery: boolean): string[] {
  if (!inQuery) return [];
  const member = ((parent.properties ?? {}) as Record<string, Schema>)[missing];
  const required = member?.required as string[] | undefined;
  return member?.type === 'object' && required?.length ? [required[0]] : [];
}

function locate(tokens: string[], inQuery: boolean): string {
  if (inQuery) return parameterName(tokens);
  return tokens.map((t) => '/' + escapeToken(t)).join('');
}

function name(where: string): string {
  return where === '' ? 'the document' : where;
}

const expectations = new WeakMap<Schema, Map<string, string>>();

/** What the schema asks for, worded once per schema and keyword: every item of an array asks the same. */
function expectationOf(error: ErrorObject, schema: Schema): string {
  if (error.parentSchema === undefined) return expectation(error, schema);
  let byKeyword = expectations.get(schema);
  if (!byKeyword) expectations.set(schema, (byKeyword = new Map<string, string>()));
  let expected = byKeyword.get(error.keyword);
  if (expected === undefined) byKeyword.set(error.keyword, (expected = expectation(error, schema)));
  return expected;
}

function expectation(error: ErrorObject, schema: Schema): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return withArticle(String(params.type));
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const sign = { minimum: '≥', exclusiveMinimum: '>', maximum: '≤', exclusiveMaximum: '<' }[error.keyword];
      return `${withArticle(String((schema.type as JsonSchemaType | undefined) ?? 'number'))} ${sign} ${params.limit as number}`;
    }
    case 'enum':
      return `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return JSON.stringify(params.allowedValue);
    case 'minItems':
      return `an array of at least ${params.limit as number} item${params.limit === 1 ? '' : 's'}`;
    case 'oneOf':
    case 'anyOf':
      return branchSummary(schema[error.keyword] as Schema[]);
    case 'not':
      return exclusion(schema.not as Schema);
    case 'pattern':
      return `a string matching ${params.pattern as string}`;
    default:
      return error.message ?? `valid (${error.keyword})`;
  }
}

/** What a schema's `type` holds: one name or a list of them. */
type JsonSchemaType = string | string[];

function branchSummary(branches: Schema[]): string {
  const required = branches.map((b) => (b.required && !b.type ? (b.required as string[]) : null));
  if (required.every((r) => r !== null)) return `an object with ${list(required.flat(), 'or')}`;
  const names = branches.map((b) => (b.type === undefined ? 'a value' : withArticle(String(b.type as JsonSchemaType))));
  return list([...new Set(names)], 'or');
}

/** `not: {required: [data, errors]}` reads "an object with data or errors, not both". */
function exclusion(schema: Schema | undefined): string {
  const required = (schema?.required ?? []) as string[];
  if (required.length < 2) return 'a value the schema does not exclude';
  return `an object with ${list(required, 'or')}, not ${required.length === 2 ? 'both' : 'all'}`;
}

function list(items: string[], conjunction: string): string {
  return items.length < 2
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

function withArticle(type: string): string {
  if (type.includes(',')) return type.split(',').map(withArticle).join(' or ');
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return withArticle(typeof value);
}

/** How much of a value a message shows: JSON text up to this length, else its beginning and "...". */
const SHOWN_MAX = 80;

export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text = jsonBeginning(value, SHOWN_MAX + 1);
  if (text === undefined) {
    try {
      text = JSON.stringify(value) ?? scalarText(value);
    } catch {
      // A cycle, a bigint, or nesting deeper than JSON.stringify's recursion.
      return jsonTypeOf(value);
    }
  }
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 3)}...` : text;
}

/**
 * JSON.stringify(value) when it is shorter than `limit`, else text beginning as it does and at
 * least `limit` long: a message shows only the beginning of a value, so a large document or a
 * long string is not written out whole to be cut. Undefined when, before that length, it meets
 * anything but the plain values JSON.parse makes (a toJSON method, a class instance, a bigint, a
 * function, a cycle): those take JSON.stringify's own path.
 */
function jsonBeginning(value: unknown, limit: number): string | undefined {
  let text = '';
  const ancestors: object[] = [];
  const full = () => text.length >= limit;
  function write(item: unknown, inArray: boolean): boolean {
    if (full()) return true;
    if (item === null) text += 'null';
    else if (typeof item === 'boolean' || typeof item === 'number') text += JSON.stringify(item);
    else if (typeof item === 'string') {
      // The characters before the last one taken are escaped as in the whole string (a surrogate
      // pair cut in two changes only the last), and each is at least one character of text.
      const room = limit - text.length + 1;
      text += JSON.stringify(item.length > room ? item.slice(0, room) : item);
    } else if (item === undefined && inArray) text += 'null';
    else if (typeof item !== 'object' || ancestors.includes(item)) return false;
    else if (Array.isArray(item)) return writeList(item, item, '[', ']', (element) => write(element, true));
    else {
      const prototype: unknown = Object.getPrototypeOf(item);
      if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in item) return false;
      const members = Object.entries(item).filter(([, member]) => member !== undefined);
      return writeList(
        item,
        members,
        '{',
        '}',
        ([key, member]) => write(key, false) && ((text += ':'), write(member, false)),
      );
    }
    return true;
  }
  function writeList<T>(
    container: object,
    items: T[],
    open: string,
    close: string,
    writeItem: (item: T) => boolean,
  ): boolean {
    ancestors.push(container);
    text += open;
    for (const [index, item] of items.entries()) {
      if (full()) return true;
      if (index > 0) text += ',';
      if (!writeItem(item)) return false;
    }
    ancestors.pop();
    text += close;
    return true;
  }
  return write(value, false) ? text : undefined;
}
