// Turns ajv errors into sentences a person would write ("page[limit] must be a number ≥ 1,
// got 0"), with the pointer of the member at fault and the expected and actual values.
import type { ErrorObject } from 'ajv';
import { escapeToken, unescapeToken } from './resolve.ts';
import { parameterName } from './query.ts';

export interface SchemaProblem {
  keyword: string;
  pointer: string;
  message: string;
  expected: string;
  actual?: string;
}

type Schema = Record<string, unknown>;

export function problemsFromErrors(errors: ErrorObject[], inQuery: boolean, includeValues: boolean): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of withoutBranchNoise(errors)) {
    const problem = describeError(error, inQuery, includeValues);
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

/** oneOf/anyOf/not report every failing branch; the person wants the one sentence about the member. */
function withoutBranchNoise(errors: ErrorObject[]): ErrorObject[] {
  const branchPaths = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'not')
    .map((e) => e.schemaPath + '/');
  return errors.filter((e) => !branchPaths.some((p) => e.schemaPath.startsWith(p)));
}

function describeError(error: ErrorObject, inQuery: boolean, includeValues: boolean): SchemaProblem {
  const tokens = error.instancePath.split('/').slice(1).map(unescapeToken);
  const schema = (error.parentSchema ?? {}) as Schema;
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    const memberTokens = [...tokens, missing, ...queryMemberOf(schema, missing, inQuery)];
    const where = locate(memberTokens, inQuery);
    return { keyword: 'required', pointer: where, message: `${name(where)} is required`, expected: 'present' };
  }
  const where = locate(tokens, inQuery);
  const got = includeValues ? showValue(error.data) : jsonTypeOf(error.data);
  const expected = expectation(error, schema);
  return { keyword: error.keyword, pointer: where, message: `${name(where)} must be ${expected}, got ${got}`, expected, actual: got };
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
      return `${withArticle(String(schema.type ?? 'number'))} ${sign} ${params.limit}`;
    }
    case 'enum':
      return `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return JSON.stringify(params.allowedValue);
    case 'minItems':
      return `an array of at least ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'oneOf':
    case 'anyOf':
      return branchSummary(schema[error.keyword] as Schema[]);
    case 'not':
      return 'a document with data or errors, not both';
    case 'pattern':
      return `a string matching ${params.pattern}`;
    default:
      return error.message ?? `valid (${error.keyword})`;
  }
}

function branchSummary(branches: Schema[]): string {
  const names = branches.map((b) => {
    if (b.required && !b.type) return `an object with ${(b.required as string[]).join(' and ')}`;
    if (b.type === 'null') return 'null';
    if (b.type === 'array') return 'an array';
    return withArticle(String(b.type ?? 'value'));
  });
  return [...new Set(names)].join(' or ');
}

function withArticle(type: string): string {
  if (type.includes(',')) return type.split(',').map(withArticle).join(' or ');
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return withArticle(typeof value);
}

export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
