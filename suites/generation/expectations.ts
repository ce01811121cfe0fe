// What a generated input may be answered, as the fixed cases read the specification (rule zero:
// never fail a target for a choice the specification leaves open). The contract says whether the
// input is valid; an invalid one is refused as the matching fixed case expects (400, or 409 for a
// wrong `data.type`) under the requirement serving it breaks. A valid one is served, unless it is
// open: it holds a place whose encoding or meaning the specification does not show, as the
// contract marks it. That is a member whose values are not shown (`x-values-not-shown`: an
// `include`, even empty), a value other than those seen (`x-values-seen`), a member name an object
// does not define where others are not shown (`x-names-not-shown`: a Highlight relationship
// besides `owner`), a number that is not a whole number a double holds exactly (fractional page
// members are not shown; past 2^53 a number cannot be echoed as sent), or a form only a convention
// makes wrong (a request finding below MUST: a bare `page=`), or a query number written other than
// in plain decimal digits (`1e1`: how a query writes numbers is not shown). An open input may be answered
// anything but a 5xx, and nothing else is judged of its answer. A create may also be refused for
// what its conditions leave open: which attributes are required, records that do not exist (404),
// conflicts (409). Any input may be answered a status the contract lists as generic
// (x-generic-statuses: 414, 431, ...).
import { isDeepStrictEqual } from 'node:util';
import { exchangeChecks, MEDIA_TYPE, mergeAllOf, parseQuery, parseQueryPairs, querySchema, refusableFindings, requirementsBoundTo, validateRequest, type Contract, type Finding, type Operation } from '../../contract/index.ts';
import { rejectionStatuses, successStatuses } from '../operations.ts';

type Schema = Record<string, unknown>;

export interface Expectation {
  valid: boolean;
  /**
   * The input holds a place whose encoding or meaning the specification does not show: any answer
   * but a 5xx is right, and only what judges a 5xx judges it.
   */
  open: boolean;
  /** The requirement an answer outside `statuses` breaks. */
  requirement: string;
  statuses: number[];
  /** What the input is, for messages: `a valid input`, `an input whose /data/type breaks the contract`. */
  described: string;
}

/** Section 5: a permitted credential is answered neither 401 nor 403, whatever the input. */
const CREDENTIAL_STATUSES = [401, 403];

/**
 * Whether the value at one place, under its merged schema, is what the walk looks for; an object's extra member names
 * are asked with `name`.
 */
type PlaceTest = (schema: Schema, value: unknown) => boolean;

/** True when `test` holds at some place of `value` the schema describes: the value itself, an item, a member. */
function somePlace(schema: Schema, value: unknown, test: PlaceTest): boolean {
  if (value === undefined) return false;
  const merged = mergeAllOf(schema);
  if (test(merged, value)) return true;
  if (Array.isArray(value)) return typeof merged.items === 'object' && merged.items !== null && value.some((item) => somePlace(merged.items as Schema, item, test));
  if (value === null || typeof value !== 'object') return false;
  const properties = (merged.properties ?? {}) as Record<string, Schema>;
  const additional = typeof merged.additionalProperties === 'object' ? (merged.additionalProperties as Schema) : undefined;
  return Object.entries(value).some(([name, member]) => {
    const memberSchema = properties[name] ?? additional;
    return memberSchema !== undefined && somePlace(memberSchema, member, test);
  });
}

/** A value the specification does not show at this place: see the header. */
const unshownAt: PlaceTest = (schema, value) => {
  if (schema['x-values-not-shown'] === true) return true;
  const seen = schema['x-values-seen'];
  if (Array.isArray(seen) && !seen.some((v) => isDeepStrictEqual(v, value))) return true;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) return true;
  // A list of values not shown is open however many it holds: how an empty one is written is not shown either.
  if (Array.isArray(value)) return typeof schema.items === 'object' && schema.items !== null && mergeAllOf(schema.items as Schema)['x-values-not-shown'] === true;
  if (value === null || typeof value !== 'object' || schema['x-names-not-shown'] !== true) return false;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.keys(value).some((name) => !(name in properties));
};

/** True when `value` holds, somewhere the schema describes, a value or member name the specification does not show. */
export function holdsUnshownValue(schema: Schema, value: unknown): boolean {
  return somePlace(schema, value, unshownAt);
}

/**
 * True when `value` holds a number whose largest allowed value is not shown (`x-maximum-not-shown`): a server may
 * refuse it as too large.
 */
export function holdsNumberPastUnshownMaximum(schema: Schema, value: unknown): boolean {
  return somePlace(schema, value, (place, v) => place['x-maximum-not-shown'] === true && typeof v === 'number');
}

/** The requirements a 5xx answer breaks, whatever the input: those the contract binds to its check of server errors. */
export function serverErrorRequirements(contract: Contract): ReadonlySet<string> {
  const check = exchangeChecks.find((c) => c.name === 'serverError');
  if (!check) throw new Error('the contract has no serverError check, which judges 5xx answers');
  return requirementsBoundTo(contract, check);
}

/** The input as the contract reads it: the query object, or the parsed document. */
function inputValue(operation: Operation, query: string | undefined, bodyText: string | undefined): unknown {
  if (!operation.requestBody) return parseQuery(operation, query ?? '');
  try {
    return JSON.parse(bodyText ?? '');
  } catch {
    return undefined;
  }
}

/** A number in a query written as plain decimal digits: the one form every reading of a query agrees on. */
const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)$/;

/**
 * A query value that is a number written another way (`1e1`, `10.0`, `+5`, `010`): how a query writes numbers is not
 * shown, so a server may read it otherwise.
 */
function holdsNumberInAnotherForm(query: string | undefined): boolean {
  return parseQueryPairs(query ?? '').some(({ value }) => value.trim() !== '' && Number.isFinite(Number(value)) && !PLAIN_DECIMAL.test(value));
}

/** Whether a valid input is open: it holds a value or name not shown, or a form only a convention makes wrong. */
function isOpen(operation: Operation, findings: Finding[], query: string | undefined, bodyText: string | undefined): boolean {
  if (findings.some((f) => f.location === 'request' && f.level !== 'MUST')) return true;
  if (!operation.requestBody && holdsNumberInAnotherForm(query)) return true;
  const schema = operation.requestBody ?? querySchema(operation);
  return holdsUnshownValue(schema, inputValue(operation, query, bodyText));
}

function validStatuses(operation: Operation, query: string | undefined, bodyText: string | undefined): number[] {
  if (operation.requestBody) return operation.statuses.filter((status) => status < 500 && !CREDENTIAL_STATUSES.includes(status));
  const pastMaximum = holdsNumberPastUnshownMaximum(querySchema(operation), inputValue(operation, query, bodyText));
  return [...successStatuses(operation), ...(pastMaximum ? rejectionStatuses([]) : [])];
}

/** What the contract says of a generated request, and what it may be answered. */
export function expectationOf(contract: Contract, operation: Operation, query: string | undefined, bodyText: string | undefined): Expectation {
  const findings = validateRequest(contract, operation, {
    method: operation.method,
    path: `${contract.basePath}${operation.pathTemplate}${query === undefined ? '' : `?${query}`}`,
    headers: { authorization: 'Bearer r:token', ...(bodyText === undefined ? {} : { 'content-type': MEDIA_TYPE }) },
    bodyText,
  });
  const refusable = refusableFindings(findings);
  // Any input may meet a condition HTTP defines and the specification leaves open (a URI too long, say).
  const generic = [...contract.genericStatuses];
  const success = contract.successRequirement(operation.operationId).id;
  if (refusable.length === 0) {
    if (isOpen(operation, findings, query, bodyText)) {
      const anyBut5xx = [...new Set([...operation.statuses, ...generic])].filter((status) => status < 500).sort((a, b) => a - b);
      return { valid: true, open: true, requirement: success, statuses: anyBut5xx, described: 'an input whose encoding or meaning the specification does not show' };
    }
    return { valid: true, open: false, requirement: success, statuses: [...validStatuses(operation, query, bodyText), ...generic], described: 'a valid input' };
  }
  const first = refusable[0];
  const statuses = [...new Set([...rejectionStatuses(refusable.map((f) => contract.requirementBrokenByAccepting(f.requirement).id)), ...generic])].sort((a, b) => a - b);
  return { valid: false, open: false, requirement: contract.requirementBrokenByAccepting(first.requirement).id, statuses, described: `an input the contract rejects (${first.message})` };
}
