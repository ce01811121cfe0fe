// What the contract's tests share: the loaded contract, its operations picked by what they have
// (never by name: removing an operation of the specification is data only, and a test whose kind of
// operation the contract no longer holds is skipped, its title saying so), and the headers of a
// well-formed request.
import { describe, it } from 'vitest';
import {
  deprecatedMetaMembers,
  FILTER_PARAMETER,
  listItemSchema,
  listOperations,
  loadContract,
  MEDIA_TYPE,
  recordMembers,
  servedFilterMember,
  smallestQuery,
  type FilterMember,
  SAMPLE_OF_TYPE,
  schemaMembers,
  successBody,
  withValueAt,
  wrongTypes,
  type Operation,
} from './index.ts';
import { completeExample, readCaseFiles } from './schema-cases.ts';

export const contract = loadContract();
/** The lists of the contract, in its order. */
export const lists = listOperations(contract);
/** The operations that take a request document, in the contract's order. */
export const creates = contract.operations.filter((o) => o.method === 'POST' && o.requestBody !== undefined);
/** A list, if the contract holds one. */
export const list: Operation | undefined = lists[0];
/** A create whose document has a member naming a record (`x-record`), if the contract holds one. */
export const createWithRecord: Operation | undefined = creates.find((o) => recordMembers([o]).length > 0);
/** A create whose document has none, if the contract holds one. */
export const createWithoutRecord: Operation | undefined = creates.find((o) => recordMembers([o]).length === 0);
/** A create, if the contract holds one. */
export const create: Operation | undefined = creates[0];
/**
 * The operation a run asks first, its preflight (suites/preflight.ts): a list, or with none a create, which it sends an
 * empty document.
 */
export const askedFirst: Operation | undefined = list ?? create;
/** The query of a request to a list: its smallest filter (the first value of each member it requires) and `page`. */
export function listQuery(operation: Operation, page?: { limit: number; offset: number }): string {
  const paging = page === undefined ? '' : `page[limit]=${page.limit}&page[offset]=${page.offset}`;
  return [smallestQuery(operation.parameters), paging].filter((part) => part !== '').join('&');
}
/** The request target of a list below the base path: its path and `listQuery`. */
export function listTarget(operation: Operation, page?: { limit: number; offset: number }): string {
  const query = listQuery(operation, page);
  return query === '' ? operation.pathTemplate : `${operation.pathTemplate}?${query}`;
}

/** A value no member of a filter in the contract allows. */
export const UNALLOWED_FILTER_VALUE = 'nobody';

/**
 * A list's request target with the member its filter is served by at a value the member does not allow (what its
 * `filterRequired` requirement refuses), the parameter naming that member, and the member; none when no member names
 * its values.
 */
export function unallowedFilter(
  operation: Operation,
): { target: string; parameter: string; member: FilterMember } | undefined {
  const member = servedFilterMember(operation);
  if (member === undefined) return undefined;
  const parameter = `${FILTER_PARAMETER}[${member.name}]`;
  const pairs = listQuery(operation)
    .split('&')
    .filter((pair) => pair !== '' && !pair.startsWith(`${parameter}=`));
  const query = [`${parameter}=${UNALLOWED_FILTER_VALUE}`, ...pairs].join('&');
  return { target: `${operation.pathTemplate}?${query}`, parameter, member };
}

/** A page of a list without meta: `count` copies of its complete item example, each under an ObjectId of its own. */
export function listPage(operation: Operation, count = 1): { data: Record<string, unknown>[] } {
  const item = itemExample(operation);
  return { data: Array.from({ length: count }, (_, i) => ({ ...item, id: (i + 1).toString(16).padStart(24, '0') })) };
}

/** A request the contract serves, its target below the base path: a list's `listTarget`, a create's example. */
export function servedRequest(operation: Operation): {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string;
} {
  if (operation.requestBody === undefined)
    return { method: operation.method, target: listTarget(operation), headers: credentials };
  return {
    method: operation.method,
    target: operation.pathTemplate,
    headers: { ...credentials, ...jsonApi },
    body: JSON.stringify(documentExample(operation)),
  };
}

/** The path of a request to `operation` under the contract's base path, with `query` when given. */
export function requestPath(operation: Operation, query = ''): string {
  return `${contract.basePath}${operation.pathTemplate}${query === '' ? '' : `?${query}`}`;
}
/** The complete example of a component of the contract, from its case file in schemas/cases/. */
export function exampleOf(schema: unknown): unknown {
  const name = Object.entries(contract.schemas).find(([, component]) => component === schema)?.[0];
  const file = [...readCaseFiles().values()].find((f) => f.schema === name);
  const example = file && completeExample(file);
  if (example === undefined) throw new Error(`no complete example in schemas/cases/ for ${name ?? 'a schema'}`);
  return structuredClone(example.data);
}

/** The complete example of a create's request document. */
export const documentExample = (operation: Operation) => exampleOf(operation.requestBody) as Record<string, unknown>;
/** The complete example of one item of a list. */
export const itemExample = (operation: Operation) => exampleOf(listItemSchema(operation)) as Record<string, unknown>;

/** The complete example of an operation's success document: a created resource's, a page of a list's. */
export const successExample = (operation: Operation) => exampleOf(successBody(operation)) as Record<string, unknown>;
/** A page of a list and the query that asks for it. */
export interface ListPage {
  query: string;
  page: { data: Record<string, unknown>[]; meta: Record<string, number> };
}
/**
 * The page of a list its complete example describes, answered as the contract says: as many items as its meta says the
 * page holds, nothing included, no deprecated meta member; and the query that asks for it.
 */
export function examplePage(operation: Operation): ListPage {
  const example = successExample(operation) as { meta: Record<string, number> };
  const deprecated = new Set(deprecatedMetaMembers(operation).map((m) => m.name));
  const meta = Object.fromEntries(Object.entries(example.meta).filter(([name]) => !deprecated.has(name)));
  return {
    query: listQuery(operation, { limit: meta.limit, offset: meta.offset }),
    page: { data: listPage(operation, meta.limit).data, meta },
  };
}
/** An attribute of a list's items and a value of a type it does not take: what breaks the shape of an item. */
export function itemTypeBreak(operation: Operation): { pointer: string; value: unknown } {
  const member = schemaMembers(listItemSchema(operation) ?? {}).find((m) => /^\/attributes\/[^/]+$/.test(m.pointer))!;
  return { pointer: member.pointer, value: SAMPLE_OF_TYPE[wrongTypes(member)[0]] };
}

/** A text attribute of a create's document, which takes any string. */
export const textAttribute = (operation: Operation) =>
  schemaMembers(operation.requestBody ?? {}).find(
    (m) =>
      /^\/data\/attributes\/[^/]+$/.test(m.pointer) &&
      m.types.includes('string') &&
      m.enum === undefined &&
      m.const === undefined &&
      m.record === undefined,
  );
/** A create's complete example with a text attribute `bytes` long: a request document as large as a test needs. */
export function largeDocument(operation: Operation, bytes: number): string {
  return JSON.stringify(withValueAt(documentExample(operation), textAttribute(operation)!.pointer, 'x'.repeat(bytes)));
}

export const credentials = { authorization: 'Bearer r:token' };
export const jsonApi = { 'content-type': MEDIA_TYPE };

/**
 * The requirement the catalogue binds to an exchange check by name (`judgedBy`), when the contract holds it: a
 * requirement that applies only to what a contract may lose (`appliesWhen`) is named by what judges it.
 */
export function requirementJudgedBy(check: string): string | undefined {
  return [...contract.requirementsJudgedBy(check)][0];
}

/** Why a test needing `what` is skipped: the contract holds no operation of that kind. */
export function noneLeft(what: string): string {
  return `skipped: the contract holds no ${what}`;
}

/**
 * `it` given `operation` when the contract holds it, otherwise a skipped test whose title says what it lacks; `timeout`
 * as `it` takes it.
 */
export function itWith(operation: Operation | undefined, what: string) {
  return (title: string, test: (operation: Operation) => void | Promise<void>, timeout?: number): void => {
    if (operation === undefined) it.skip(`${title} (${noneLeft(what)})`, () => undefined);
    else it(title, () => test(operation), timeout);
  };
}

/**
 * `describe` given `operation` when the contract holds it, otherwise one skipped test whose title says what it lacks
 * (a skipped `describe` with no test in it shows nowhere in the report).
 */
export function describeWith(operation: Operation | undefined, what: string) {
  return (title: string, body: (operation: Operation) => void): void => {
    if (operation === undefined) it.skip(`${title} (${noneLeft(what)})`, () => undefined);
    else describe(title, () => body(operation));
  };
}
