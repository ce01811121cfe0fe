// The deterministic items each list serves, derived from its item schema: every member the schema
// names gets a value of its type, an enumerated member each allowed value in turn (so every value
// is used in each filter's list once it holds as many items), a member naming a record (`x-record`)
// a record this server holds. Items are grouped by the value of the member the list is filtered on.
import {
  freeFilterMember,
  includeNames,
  listIncludedSchema,
  listItemAttributes,
  listItemSchema,
  memberValue,
  mergeAllOf,
  servedFilterMember,
  type Contract,
  type Operation,
} from '../contract/index.ts';
import { REFERENCE_FIXTURES, SEED_SIZES } from './defaults.ts';
import { objectIdSequence } from './object-id.ts';
import type { SeedItem } from './types.ts';

type Schema = Record<string, unknown>;

const SEED_SECONDS = 0x6553f100;
const SEED_MACHINE = '5eed00a1';
/** How deep the sampler follows nested objects and arrays: item schemas are a few levels deep. */
const MAX_SAMPLE_DEPTH = 8;

/** The member a list is filtered on and the values its items are seeded with. */
export interface SeededFilter {
  name: string;
  values: string[];
}

/**
 * The member the items of a list are grouped by: its served member, with each allowed value; or a
 * free member (no allowed values, an id say) with the one value a request gives it (the id of the
 * record of its kind this server holds, or the value its schema shows), else a sample of the
 * items' attribute of its name.
 */
export function seededFilter(operation: Operation): SeededFilter | undefined {
  const served = servedFilterMember(operation);
  if (served !== undefined) return { name: served.name, values: served.values };
  const free = freeFilterMember(operation);
  if (free === undefined) return undefined;
  const attribute = listItemAttributes(operation).find((a) => a.name === free.name);
  return {
    name: free.name,
    values: [memberValue(free.schema, REFERENCE_FIXTURES) || String(sampleOf(attribute?.schema ?? {}, 0, free.name))],
  };
}

/** The values a list's items are grouped by, in the contract's order; one unnamed group when it is filtered on none. */
export function filterGroups(operation: Operation): (string | undefined)[] {
  return seededFilter(operation)?.values ?? [undefined];
}

/** Items seeded for the filter value at `index`: the sizes in turn, so pages differ per value. */
function seedSize(index: number): number {
  return SEED_SIZES[index % SEED_SIZES.length];
}

function objectOf(value: unknown): Schema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : undefined;
}

/** A value the schema accepts, varying with `index`: enumerated values in turn, numbers and strings counting. */
export function sampleOf(schema: Schema, index: number, name: string, depth = 0): unknown {
  const record = schema['x-record'];
  if (typeof record === 'string' && record in REFERENCE_FIXTURES) return REFERENCE_FIXTURES[record];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[index % schema.enum.length];
  const seen = schema['x-values-seen'];
  if (Array.isArray(seen) && seen.length > 0) return seen[index % seen.length];
  const options = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (options) return sampleOf(options.find((o) => o.type !== 'null') ?? options[0], index, name, depth);
  const merged = mergeAllOf(schema);
  const declared: unknown = Array.isArray(merged.type) ? merged.type.find((t) => t !== 'null') : merged.type;
  const type = declared ?? (merged.properties ? 'object' : merged.items ? 'array' : 'string');
  switch (type) {
    case 'boolean':
      return index % 2 === 0;
    case 'integer':
    case 'number':
      return Math.max(typeof merged.minimum === 'number' ? merged.minimum : 0, index);
    case 'array':
      return depth >= MAX_SAMPLE_DEPTH || !objectOf(merged.items)
        ? []
        : [sampleOf(objectOf(merged.items)!, index, name, depth + 1)];
    case 'object':
      return depth >= MAX_SAMPLE_DEPTH
        ? {}
        : Object.fromEntries(
            Object.entries(objectOf(merged.properties) ?? {}).map(([member, s]) => [
              member,
              sampleOf(objectOf(s) ?? {}, index, member, depth + 1),
            ]),
          );
    case 'null':
      return null;
    default:
      return `${name} ${index + 1}`;
  }
}

/**
 * The items of a list per value of the member it is filtered on, ordered by id: each a sample of the
 * item schema with a seeded ObjectId, the filter member's attribute (when the item has one) the
 * group's value. `listIndex` keeps the ids of two lists apart.
 */
export function seedListItems(
  contract: Contract,
  operation: Operation,
  listIndex: number,
): Map<string | undefined, SeedItem[]> {
  const itemSchema = listItemSchema(operation);
  if (!itemSchema) throw new Error(`${operation.operationId}: its success body's data has no item schema to seed from`);
  const nextId = objectIdSequence(
    SEED_SECONDS,
    SEED_MACHINE + (0xb2 + listIndex).toString(16).padStart(2, '0').slice(-2),
  );
  const filtered = seededFilter(operation);
  const filteredAttribute =
    filtered !== undefined && listItemAttributes(operation).some((a) => a.name === filtered.name)
      ? filtered.name
      : undefined;
  const validate = contract.validator(itemSchema);
  const lists = new Map<string | undefined, SeedItem[]>();
  filterGroups(operation).forEach((value, groupIndex) => {
    const items: SeedItem[] = [];
    for (let index = 0; index < seedSize(groupIndex); index++) {
      const item = { ...(sampleOf(itemSchema, index, 'item') as Schema), id: nextId() } as unknown as SeedItem;
      if (filteredAttribute !== undefined) item.attributes = { ...item.attributes, [filteredAttribute]: value };
      if (!validate(item))
        throw new Error(
          `${operation.operationId}: the reference server cannot seed a valid item from its schema: ${contract.validator(itemSchema).errors?.[0]?.message ?? 'invalid'} at ${validate.errors?.[0]?.instancePath ?? ''}`,
        );
      items.push(item);
    }
    lists.set(value, items);
  });
  return lists;
}

/**
 * The resource `included` holds for each include name the list's contract defines: a sample of its
 * included schema (the name's place in the contract's order picking among allowed values), with a
 * seeded ObjectId apart from the items'. None where the contract defines no names.
 */
export function seedIncludedResources(
  contract: Contract,
  operation: Operation,
  listIndex: number,
): Map<string, Schema> {
  const schema = listIncludedSchema(operation);
  const names = includeNames(operation);
  if (schema === undefined || names.length === 0) return new Map();
  const nextId = objectIdSequence(
    SEED_SECONDS + 1,
    SEED_MACHINE + (0xb2 + listIndex).toString(16).padStart(2, '0').slice(-2),
  );
  const validate = contract.validator(schema);
  return new Map(
    names.map((name, index) => {
      const resource = { ...(sampleOf(schema, index, name) as Schema), id: nextId() };
      if (!validate(resource))
        throw new Error(
          `${operation.operationId}: the reference server cannot seed a valid included resource from its schema: ` +
            `${validate.errors?.[0]?.message ?? 'invalid'} at ${validate.errors?.[0]?.instancePath ?? ''}`,
        );
      return [name, resource];
    }),
  );
}
