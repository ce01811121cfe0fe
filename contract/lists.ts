// Lists: every GET operation whose success body's `data` is an array. What the suite, the checks
// and the reference server need of one (its filter's members and their allowed values, its page
// members, its item and meta schemas) is read here from the operation's own parameters and
// schemas, whatever the operation, its path or its filter's members are called.
import type { Contract, Operation } from './contract.ts';
import { mergeAllOf, successBody } from './members.ts';

type Schema = Record<string, unknown>;

/** The query parameter holding a list's filter (section 4.1, as JSON:API names it). */
export const FILTER_PARAMETER = 'filter';
/** The query parameter holding a list's page (section 8). */
export const PAGE_PARAMETER = 'page';
/** The query parameter naming related resources to include (section 4.1). */
export const INCLUDE_PARAMETER = 'include';

export interface FilterMember {
  name: string;
  required: boolean;
  /** The values the schema allows (`enum`, or a `const`); empty when it names none. */
  values: string[];
  /** Its schema, where a member with no allowed values may name a record (`x-record`) or show a value. */
  schema: Schema;
}

function objectOf(value: unknown): Schema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : undefined;
}

function dataSchema(operation: Operation): Schema | undefined {
  return objectOf(objectOf(successBody(operation)?.properties)?.data);
}

/** Whether an operation is a list: a GET whose success body's `data` is an array. */
export function isListOperation(operation: Operation): boolean {
  return operation.method === 'GET' && dataSchema(operation)?.type === 'array';
}

/** Every list operation of the contract, in the contract's order. */
export function listOperations(contract: Contract): Operation[] {
  return contract.operations.filter(isListOperation);
}

/** The schema of one item of a list's `data`. */
export function listItemSchema(operation: Operation): Schema | undefined {
  return objectOf(dataSchema(operation)?.items);
}

/** The schema of a list's `meta` member, when its success body has one. */
export function listMetaSchema(operation: Operation): Schema | undefined {
  return objectOf(objectOf(successBody(operation)?.properties)?.meta);
}

/** The schema of one of an operation's query parameters. */
export function parameterSchema(operation: Operation, name: string): Schema | undefined {
  return objectOf(operation.parameters.find((p) => p.name === name)?.schema);
}

/** Whether the operation's filter parameter is required. */
export function filterRequired(operation: Operation): boolean {
  return operation.parameters.some((p) => p.name === FILTER_PARAMETER && p.required);
}

/** The members of a list's filter, each with the values its schema allows. */
export function filterMembers(operation: Operation): FilterMember[] {
  const schema = parameterSchema(operation, FILTER_PARAMETER);
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(objectOf(schema?.properties) ?? {}).map(([name, member]) => {
    const memberSchema = objectOf(member) ?? {};
    const values = Array.isArray(memberSchema.enum)
      ? memberSchema.enum
      : memberSchema.const !== undefined
        ? [memberSchema.const]
        : [];
    return { name, required: required.has(name), values: values.map(String), schema: memberSchema };
  });
}

/** The member a filter is served by: the first required member with allowed values, else the first with any. */
export function servedFilterMember(operation: Operation): FilterMember | undefined {
  const members = filterMembers(operation).filter((m) => m.values.length > 0);
  return members.find((m) => m.required) ?? members[0];
}

/**
 * The member a list is filtered on when no member of its filter names allowed values: its first
 * required member, a free one (the id of a record, say), whose values are the service's data.
 */
export function freeFilterMember(operation: Operation): FilterMember | undefined {
  const members = filterMembers(operation);
  return members.some((m) => m.values.length > 0) ? undefined : members.find((m) => m.required);
}

/**
 * The include names a list's contract defines (its `include` items' `enum`), in its order; none
 * where it shows none (List NotificationGroups: which names exist is not shown, section 4.1).
 */
export function includeNames(operation: Operation): string[] {
  const items = objectOf(parameterSchema(operation, INCLUDE_PARAMETER)?.items);
  return Array.isArray(items?.enum) ? items.enum.map(String) : [];
}

/** The schema of one resource of a list's `included`, when its success body has one. */
export function listIncludedSchema(operation: Operation): Schema | undefined {
  return objectOf(objectOf(objectOf(successBody(operation)?.properties)?.included)?.items);
}

/** The attributes of a list's items, each with its schema (`allOf` merged), in the schema's order. */
export function listItemAttributes(operation: Operation): { name: string; schema: Schema }[] {
  const item = listItemSchema(operation);
  const attributes = objectOf(objectOf(item === undefined ? undefined : mergeAllOf(item).properties)?.attributes);
  const properties = objectOf(attributes === undefined ? undefined : mergeAllOf(attributes).properties) ?? {};
  return Object.entries(properties).map(([name, schema]) => ({ name, schema: mergeAllOf(objectOf(schema) ?? {}) }));
}

/** The members of a list's page parameter (limit and offset, section 8), as its schema names them. */
export function pageMembers(operation: Operation): string[] {
  return Object.keys(objectOf(parameterSchema(operation, PAGE_PARAMETER)?.properties) ?? {});
}

/** The members a list's meta requires (total, pages, page, offset, limit). */
export function requiredMetaMembers(operation: Operation): string[] {
  return (listMetaSchema(operation)?.required ?? []) as string[];
}

const deprecatedMetaOf = new WeakMap<Operation, readonly { name: string; replacement?: string }[]>();

/**
 * The deprecated members of a list's meta, each with the member that replaces it (`x-replaced-by`, section 9); read
 * once per operation (checks ask it of every answer).
 */
export function deprecatedMetaMembers(operation: Operation): readonly { name: string; replacement?: string }[] {
  let members = deprecatedMetaOf.get(operation);
  if (!members) {
    members = Object.entries(objectOf(listMetaSchema(operation)?.properties) ?? {})
      .filter(([, schema]) => objectOf(schema)?.deprecated === true)
      .map(([name, schema]) => {
        const replacement = objectOf(schema)?.['x-replaced-by'];
        return { name, replacement: typeof replacement === 'string' ? replacement : undefined };
      });
    deprecatedMetaOf.set(operation, members);
  }
  return members;
}
