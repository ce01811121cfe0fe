// What the cases need to know about each operation, read from the contract: the statuses that
// mean success, an input a permitted caller gets served, an input that must be rejected, and for
// each list its filter's members and values.
import { randomUUID } from 'node:crypto';
import {
  bodyMembers,
  FILTER_PARAMETER,
  filterMembers,
  filterRequired,
  listOperations as listsOf,
  loadContract,
  MEDIA_TYPE,
  memberValue,
  PAGE_PARAMETER,
  refusableFindings,
  refusalsFor,
  servedFilterMember,
  smallestQuery,
  validateRequest,
  type Operation,
  type OperationRole,
  type RecordIds,
} from '../contract/index.ts';
import { settingSource, type Fixtures } from '../targets/target.ts';
import type { Answer, ConformanceCase } from './case.ts';
import { completeDocument, missingFixtures } from './documents.ts';

export interface OperationInput {
  query?: string;
  document?: unknown;
}

/** Why the 403 cases are not run when the target names no forbidden credential. */
export const NO_FORBIDDEN_TOKEN = 'no forbidden credential configured (--forbidden-token or LAS_FORBIDDEN_TOKEN)';

/**
 * Why a case that must be served is not run when its document would name records the target did not give
 * (docs/certification.md §5).
 */
export function noFixturesReason(missing: (keyof Fixtures)[]): string {
  return `the target names no ${missing.map((name) => `${name} fixture (${settingSource(name)})`).join(' or ')}, the record a complete document refers to`;
}

export const contract = loadContract();
export const operations = contract.operations;
/** Every list of the contract: a GET whose success body's `data` is an array, wherever it stands. */
export const listOperations = listsOf(contract);
export const createOperations = contract.operations.filter((o) => o.requestBody !== undefined);

/** The requirement an operation names for a role (its `x-requirements`), or undefined when it names none. */
export function roleId(operation: Operation, role: OperationRole): string | undefined {
  return contract.requirementOf(operation, role)?.id;
}

/** The requirements an operation names for each of `roles` that it names one for. */
export function roleIds(operation: Operation, roles: readonly OperationRole[]): string[] {
  return roles.flatMap((role) => roleId(operation, role) ?? []);
}

/** A fresh tag for free strings, so documents never collide (e.g. on a unique customId). */
export function uniqueTag(): string {
  return randomUUID();
}

/** The 2xx statuses the operation lists: 200 for the list, 201 or 202 for a creation. */
export function successStatuses(operation: Operation): number[] {
  return operation.statuses.filter((status) => status >= 200 && status < 300);
}

/** The values a list's filter is served for (its served member's allowed values, section 4.1). */
export function filterValues(operation: Operation): string[] {
  return servedFilterMember(operation)?.values ?? [];
}

/**
 * What stands in a case's title for each record a list's filter names (`x-record`): the query it
 * sends names the target's (`filter[collectionItemId]=<collectionItemId>`).
 */
export function recordsInTitles(operation: Operation): RecordIds {
  const kinds = filterMembers(operation).flatMap((m) =>
    typeof m.schema['x-record'] === 'string' ? [m.schema['x-record']] : [],
  );
  return Object.fromEntries(kinds.map((kind) => [kind, `<${kind}>`]));
}

/**
 * The query that filters a list on `value` of its served member, each other required member of
 * the filter at its first allowed value: `filter[type]=user`. Without a served member, the
 * smallest query the list serves, a member naming a record (`x-record`) at the id `records` give.
 * `members` set filter members besides (or instead of) those: `{ collectionItemId: '<id>' }`.
 */
export function filterQuery(
  operation: Operation,
  value?: string,
  records: RecordIds = {},
  members: Record<string, string> = {},
): string {
  const served = servedFilterMember(operation);
  const base =
    served === undefined || value === undefined
      ? smallestQuery(operation.parameters, { records })
      : servedQuery(operation, served.name, value, records);
  const set = Object.keys(members).map((name) => `${FILTER_PARAMETER}[${name}]=`);
  const kept = base.split('&').filter((pair) => pair !== '' && !set.some((prefix) => pair.startsWith(prefix)));
  return [...kept, ...Object.entries(members).map(([name, v]) => `${FILTER_PARAMETER}[${name}]=${v}`)].join('&');
}

function servedQuery(operation: Operation, served: string, value: string, records: RecordIds): string {
  const others = filterMembers(operation).filter((m) => m.required && m.name !== served);
  const pairs = [[served, value] as const, ...others.map((m) => [m.name, memberValue(m.schema, records)] as const)];
  return pairs.map(([name, v]) => `${FILTER_PARAMETER}[${name}]=${v}`).join('&');
}

/**
 * An input a permitted caller must be served for: the first filter value (naming the target's records), or a complete
 * document.
 */
export function validInput(operation: Operation, fixtures: Fixtures): OperationInput {
  if (operation.requestBody === undefined) return { query: smallestQuery(operation.parameters, { records: fixtures }) };
  return { document: completeDocument(operation, fixtures, uniqueTag()) };
}

/** A page below its bounds (section 8): refused by every list that takes a page. */
const PAGE_BELOW_BOUNDS = `${PAGE_PARAMETER}[limit]=0&${PAGE_PARAMETER}[offset]=0`;

/**
 * An input the operation must reject with 400: no filter (a list that requires one), a page below its bounds, or a body
 * without `data`.
 */
export function invalidInput(operation: Operation): OperationInput {
  if (operation.requestBody !== undefined) return { document: {} };
  return filterRequired(operation)
    ? {}
    : { query: `${smallestQuery(operation.parameters)}&${PAGE_BELOW_BOUNDS}`.replace(/^&/, '') };
}

/**
 * A query the list must refuse with 400 for a parameter it can name: a filter value it does not
 * allow, or (a filter that names none) a page below its bounds.
 */
export function refusedParameterQuery(operation: Operation): string {
  const served = servedFilterMember(operation);
  if (served !== undefined) return filterQuery(operation, unknownValue(served.values));
  return `${smallestQuery(operation.parameters)}&${PAGE_BELOW_BOUNDS}`.replace(/^&/, '');
}

/** A value none of `values` is: `base` (`everyone`), lengthened until it is none of them. */
export function unknownValue(values: readonly string[], base = 'everyone'): string {
  let value = base;
  while (values.includes(value)) value += '-else';
  return value;
}

/** The requirements a server breaks by serving `input`, or undefined when the contract accepts it. */
export function refusalOf(operation: Operation, input: OperationInput): string[] | undefined {
  try {
    return brokenRequirements(operation, input);
  } catch {
    return undefined;
  }
}

/**
 * What a server that serves an input breaks, credentials aside: for each MUST the input breaks,
 * the catalogue's `acceptedBreaks` (a MUST where the specification makes refusing it the
 * server's duty, a SHOULD where it does not). A case that sends the input answers to these, at
 * their levels. Deriving them keeps the cases from restating the catalogue; an input the contract
 * accepts is a mistake in the suite and stops collection.
 */
export function brokenRequirements(operation: Operation, input: OperationInput & { bodyText?: string }): string[] {
  const bodyText = input.bodyText ?? (input.document === undefined ? undefined : JSON.stringify(input.document));
  const findings = validateRequest(contract, operation, {
    method: operation.method,
    path: `${contract.basePath}${operation.pathTemplate}${input.query === undefined ? '' : `?${input.query}`}`,
    headers: { authorization: 'Bearer r:token', ...(bodyText === undefined ? {} : { 'content-type': MEDIA_TYPE }) },
    bodyText,
  });
  const ids = [
    ...new Set(refusableFindings(findings).map((f) => contract.requirementBrokenByAccepting(f.requirement).id)),
  ];
  if (ids.length === 0)
    throw new Error(
      `the contract accepts this input to ${operation.operationId}, so no case can expect it rejected: ${JSON.stringify(input)}`,
    );
  return ids;
}

/**
 * A resource type other than `type` (for wrong `type` members): the name of the type it is with
 * a word before it, `OtherHighlight`. It needs no other operation, so a contract holding one
 * create operation, or losing one, still gets its wrong-type cases.
 */
export function otherResourceType(type: unknown): string {
  return unknownValue([String(type)], `Other${String(type)}`);
}

/**
 * The statuses a case may see refusing a request that breaks `requirements`: 400, and what the catalogue names for them
 * (409 for a wrong `data.type`).
 */
export function rejectionStatuses(requirements: readonly string[]): number[] {
  return refusalsFor(contract, requirements);
}

/** The status of a record that does not exist, whose conditions the specification does not show (sections 4.2, 4.3). */
const RECORD_NOT_FOUND = 404;

/**
 * A rejection case's expectation of its answer. A document the run could fill only with stand-in
 * records (no fixture ids given) may be refused 404 for them, which the specification allows:
 * such an answer judges nothing, and says which ids would let it.
 */
export function expectRefused(
  conformance: ConformanceCase,
  operation: Operation,
  answer: Answer,
  statuses: number[],
  requirement?: string,
  what = 'the request',
): void {
  const missing = missingFixtures(operation, conformance.target.fixtures);
  if (answer.status === RECORD_NOT_FOUND && !statuses.includes(answer.status) && missing.length > 0) {
    conformance.cannotJudge(
      requirement ?? conformance.primary,
      `${what} was answered 404: the run was given no ${missing.join(' or ')} fixture, so the document names a stand-in record, and a target may refuse a record it does not hold with 404 (give the fixture ids to judge it)`,
    );
    return;
  }
  conformance.expectStatus(answer, statuses, requirement, what);
}

/** Why a target may refuse a complete document: it names values the specification does not show. */
export const UNSHOWN_VALUES_REASON =
  'the target refused, with 400, a value the kit had to choose for a member whose values the specification does not show (permission numbers), as it may; so nothing was created';

/**
 * Whether an answer is a 400 whose every error points at a request member whose values the
 * specification does not show (`x-values-not-shown`): the target refused the kit's choice of
 * value, which it may. A 400 also shows that the credentials were accepted (401 comes first).
 */
export function refusedUnshownValues(operation: Operation, answer: { status: number; json: unknown }): boolean {
  if (answer.status !== 400) return false;
  const errors = (answer.json as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return false;
  const unshown = new Set(
    bodyMembers(operation)
      .filter((m) => m.valuesNotShown)
      .map((m) => m.pointer),
  );
  return errors.every((error) =>
    unshown.has((error as { source?: { pointer?: unknown } } | null)?.source?.pointer as string),
  );
}
