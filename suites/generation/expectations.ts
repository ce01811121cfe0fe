// What a generated input may be answered, as the fixed cases read the specification (rule zero:
// never fail a target for a choice the specification leaves open). The contract says whether the
// input is valid; an invalid one is refused as the matching fixed case expects (400, or 409 for a
// wrong `data.type`) under the requirement serving it breaks. A valid one is served, unless it
// holds a value the specification does not show: a member whose values are not shown
// (`x-values-not-shown`), a value other than those seen (`x-values-seen`), a number that is not a
// whole number a double holds exactly (fractional page members are not shown; past 2^53 a number
// cannot be echoed as sent). A create may also be refused for what its conditions leave open:
// which attributes are required, records that do not exist (404), conflicts (409). Any input may
// be answered a status the contract lists as generic (x-generic-statuses: 414, 431, ...).
import { isDeepStrictEqual } from 'node:util';
import { MEDIA_TYPE, mergeAllOf, parseQuery, querySchema, refusableFindings, validateRequest, type Contract, type Operation } from '../../contract/index.ts';
import { rejectionStatuses, successStatuses } from '../operations.ts';

type Schema = Record<string, unknown>;

export interface Expectation {
  valid: boolean;
  /** The requirement an answer outside `statuses` breaks. */
  requirement: string;
  statuses: number[];
  /** What the input is, for messages: `a valid input`, `an input whose /data/type breaks the contract`. */
  described: string;
}

/** Section 5: a permitted credential is answered neither 401 nor 403, whatever the input. */
const CREDENTIAL_STATUSES = [401, 403];

/** True when `value` holds, somewhere the schema describes, a value the specification does not show. */
export function holdsUnshownValue(schema: Schema, value: unknown): boolean {
  if (value === undefined) return false;
  const merged = mergeAllOf(schema);
  if (merged['x-values-not-shown'] === true) return true;
  const seen = merged['x-values-seen'];
  if (Array.isArray(seen) && !seen.some((v) => isDeepStrictEqual(v, value))) return true;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) return true;
  if (Array.isArray(value)) return typeof merged.items === 'object' && value.some((item) => holdsUnshownValue(merged.items as Schema, item));
  if (value === null || typeof value !== 'object') return false;
  const properties = (merged.properties ?? {}) as Record<string, Schema>;
  const additional = typeof merged.additionalProperties === 'object' ? (merged.additionalProperties as Schema) : undefined;
  return Object.entries(value).some(([name, member]) => {
    const memberSchema = properties[name] ?? additional;
    return memberSchema !== undefined && holdsUnshownValue(memberSchema, member);
  });
}

function validStatuses(operation: Operation, query: string | undefined): number[] {
  if (operation.requestBody) return operation.statuses.filter((status) => status < 500 && !CREDENTIAL_STATUSES.includes(status));
  const success = successStatuses(operation);
  return holdsUnshownValue(querySchema(operation), parseQuery(operation, query ?? '')) ? [...success, 400] : success;
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
  if (refusable.length === 0) {
    return { valid: true, requirement: contract.successRequirement(operation.operationId).id, statuses: [...validStatuses(operation, query), ...generic], described: 'a valid input' };
  }
  const first = refusable[0];
  const statuses = [...new Set([...rejectionStatuses(refusable.map((f) => contract.requirementBrokenByAccepting(f.requirement).id)), ...generic])].sort((a, b) => a - b);
  return { valid: false, requirement: contract.requirementBrokenByAccepting(first.requirement).id, statuses, described: `an input the contract rejects (${first.message})` };
}
