// The inputs generated for one operation, from its schemas: queries from the query parameters'
// schema, request documents from the request body's, valid ones and near-valid ones (a valid input
// with one member changed: a wrong JSON type, a required member removed, a minimum undercut, an
// enum or constant left). Whether an input is valid is then the contract's to say (judged.ts),
// not the generator's: a change the encoding undoes is simply a valid input.
import fc from 'fast-check';
import { querySchema, scalarText, withoutValueAt, withValueAt, type Operation } from '../../contract/index.ts';
import type { Fixtures } from '../../targets/target.ts';
import { fixtureMembers } from '../documents.ts';
import {
  arbitraryOf,
  mutatedValue,
  mutationsOf,
  type DerivationOptions,
  type Mutation,
  type PointerOverride,
} from './schema-arbitrary.ts';

export interface GeneratedInput {
  /**
   * The query as an object of the operation's parameters (`{ filter: { type: 'portal' } }`), for an operation with
   * parameters.
   */
  query?: Record<string, unknown>;
  /** The request document, for an operation that takes a body. */
  document?: unknown;
  /** The change that made a valid input near-valid. */
  mutation?: Mutation;
}

type Schema = Record<string, unknown>;

/**
 * Members naming a record that must exist (the target's fixtures) take the target's record most of
 * the time, so valid documents get created and their answers judged; sometimes any string of the
 * schema, which the target may answer 404 (conditions of 404 are not shown).
 */
function fixtureOverride(operation: Operation, fixtures: Fixtures): PointerOverride {
  const fixtureOf = new Map(fixtureMembers(operation));
  return (pointer, schema) => {
    const key = fixtureOf.get(pointer);
    const value = key === undefined ? undefined : fixtures[key];
    if (value === undefined) return undefined;
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(value) },
      { weight: 1, arbitrary: arbitraryOf(schema, `${pointer}/`) },
    );
  };
}

function applied(value: unknown, mutation: Mutation, replacement: unknown): unknown {
  if (mutation.kind === 'missing') return withoutValueAt(value, mutation.pointer);
  return withValueAt(value, mutation.pointer, replacement);
}

/**
 * RFC 9110 (4.1) asks every recipient to take URIs of 8000 octets; past that a target may refuse
 * or close the connection, a choice nothing here judges. Query strings stay within it.
 */
export const MAX_QUERY_OCTETS = 8000;
/** Short enough that a query of a few such strings, percent-encoded, stays within MAX_QUERY_OCTETS. */
const QUERY_STRING_CHARACTERS = 200;

/** Valid values of a schema, and values with one member changed, half and half. */
function validAndNearValid(
  schema: Schema,
  options: DerivationOptions,
): fc.Arbitrary<{ value: unknown; mutation?: Mutation }> {
  const valid = arbitraryOf(schema, '', options);
  const mutations = mutationsOf(schema);
  const unchanged = valid.map((value) => ({ value }));
  if (mutations.length === 0) return unchanged;
  const changed = fc
    .tuple(valid, fc.constantFrom(...mutations))
    .chain(([value, mutation]) =>
      mutatedValue(mutation).map((replacement) => ({ value: applied(value, mutation, replacement), mutation })),
    );
  return fc.oneof(unchanged, changed);
}

/** The inputs of one operation: its query, its document, or both, as its schemas describe them. */
export function operationInputs(operation: Operation, fixtures: Fixtures): fc.Arbitrary<GeneratedInput> {
  if (operation.requestBody) {
    return validAndNearValid(operation.requestBody, { override: fixtureOverride(operation, fixtures) }).map(
      ({ value, mutation }) => ({ document: value, ...(mutation ? { mutation } : {}) }),
    );
  }
  return validAndNearValid(querySchema(operation), { maxStringLength: QUERY_STRING_CHARACTERS })
    .map(({ value, mutation }) => ({ query: value as Record<string, unknown>, ...(mutation ? { mutation } : {}) }))
    .filter(
      (input) =>
        Buffer.byteLength(`${operation.pathTemplate}?${queryText(operation, input.query)}`) <= MAX_QUERY_OCTETS,
    );
}

// --- The query string -------------------------------------------------------------------------

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return scalarText(value);
}

const pair = (name: string, value: unknown) => `${name}=${encodeURIComponent(text(value))}`;

/**
 * The query in the kit's encoding (JSON:API's, section 4.4 shows none): a deepObject parameter as
 * `name[member]=value`, a form array as `name=a,b`, anything else as `name=value`. Brackets stay
 * literal, as the suite's other cases send them.
 */
export function queryText(operation: Operation, query: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const parameter of operation.parameters) {
    if (!(parameter.name in query)) continue;
    const value = query[parameter.name];
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    if (parameter.style === 'deepObject' && isObject) {
      for (const [member, memberValue] of Object.entries(value as Record<string, unknown>))
        pairs.push(pair(`${parameter.name}[${member}]`, memberValue));
    } else {
      pairs.push(pair(parameter.name, value));
    }
  }
  return pairs.join('&');
}
