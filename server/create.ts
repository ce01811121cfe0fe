// The create operations (sections 4.2, 4.3; docs/certification.md §5), one handler driven by the
// contract: the created resource is the request's `data` with a fresh id, the operation's resource
// type, the attributes and relationships sent, and the attributes only a server sets (AttributeConfig
// `inUse`) at their defaults. Created resources are kept in memory, the latest MAX_KEPT_RESOURCES.
// Conditions for 404 and 409 are not shown; this server's are: a record it does not hold (an
// owner, a collection item, a relationship naming an id it neither seeded nor created) → 404, a
// `customId` already used for the operation → 409.
import {
  bodyMembers,
  escapeToken,
  MEDIA_TYPE,
  recordKindLabel,
  serverAttributes,
  unescapeToken,
  type BodyMember,
  type JsonType,
  type Operation,
} from '../contract/index.ts';
import { REFERENCE_FIXTURES } from './defaults.ts';
import type { ComposedHooks } from './hooks.ts';
import type { ObjectIdGenerator } from './object-id.ts';
import { CONDITION_CODES, conditionProblem, errorReply } from './problems.ts';
import type { Creation, Reply, RequestContext } from './types.ts';

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The request's `data` member; validation has already made sure it is an object. */
function sentData(context: RequestContext): Json {
  return objectOf(objectOf(context.document)?.data) ?? {};
}

/** What this server sets an attribute only it sets to, by the attribute's JSON type. */
const SERVER_DEFAULTS: Record<JsonType, unknown> = {
  boolean: false,
  number: 0,
  string: '',
  array: [],
  object: {},
  null: null,
};

/** Attributes whose value this server holds unique among the resources one operation created. */
const UNIQUE_ATTRIBUTES = ['customId'];

/** The created resources kept, and the unique values remembered: the oldest go first past it. */
export const MAX_KEPT_RESOURCES = 10_000;

interface UnknownRecord {
  pointer: string;
  detail: string;
}

export class CreatedResources {
  private readonly resources = new Map<string, Json>();
  /** `operationId attribute value` of every unique attribute already used. */
  private readonly usedValues = new Set<string>();

  constructor(
    private readonly hooks: ComposedHooks,
    private readonly newId: ObjectIdGenerator,
  ) {}

  create(operation: Operation, context: RequestContext): Reply {
    const data = sentData(context);
    const unknown = unknownRecord(operation, context.document) ?? this.unheldRelationship(operation, data);
    if (unknown)
      return errorReply(404, [
        conditionProblem(404, CONDITION_CODES.recordNotFound, unknown.detail, { pointer: unknown.pointer }),
      ]);
    const attributes = objectOf(data.attributes) ?? {};
    const taken = this.uniqueValues(operation, attributes).find((key) => this.usedValues.has(key.value));
    if (taken) {
      return errorReply(409, [
        conditionProblem(
          409,
          CONDITION_CODES.duplicateCustomId,
          `a ${operation.resourceType} with this ${taken.name} already exists; ${taken.name} values are unique`,
          { pointer: `/data/attributes/${taken.name}` },
        ),
      ]);
    }
    const resource = {
      id: this.newId(),
      type: operation.resourceType,
      attributes: { ...attributes, ...serverSetAttributes(operation) },
      relationships: data.relationships ?? {},
    };
    for (const key of this.uniqueValues(operation, attributes)) keep(this.usedValues, key.value);
    keep(this.resources, `${resource.type} ${resource.id}`, resource);
    return this.createdReply({ status: 201, document: { data: resource } }, context);
  }

  /** Whether this server holds a record of `type` with `id`: one it created, or a record of the fixtures. */
  holds(type: unknown, id: unknown): boolean {
    return typeof id === 'string' && (FIXTURE_IDS.has(id) || this.resources.has(`${String(type)} ${id}`));
  }

  /**
   * The first resource identifier of the request's relationships (those no `x-record` member names) naming a record
   * this server does not hold.
   */
  private unheldRelationship(operation: Operation, data: Json): UnknownRecord | undefined {
    const checked = new Set(recordMembers(operation).map((m) => m.pointer));
    for (const [name, relationship] of Object.entries(objectOf(data.relationships) ?? {})) {
      const linked = objectOf(relationship)?.data;
      const identifiers = Array.isArray(linked)
        ? linked.map((item, index) => [item, `/${index}`] as const)
        : [[linked, ''] as const];
      for (const [identifier, at] of identifiers) {
        const pointer = `/data/relationships/${escapeToken(name)}/data${at}/id`;
        const { type, id } = objectOf(identifier) ?? {};
        if (id === undefined || checked.has(pointer) || this.holds(type, id)) continue;
        return { pointer, detail: `no ${String(type)} with this id exists` };
      }
    }
    return undefined;
  }

  private uniqueValues(operation: Operation, attributes: Json): { name: string; value: string }[] {
    return UNIQUE_ATTRIBUTES.filter((name) => typeof attributes[name] === 'string').map((name) => ({
      name,
      value: `${operation.operationId} ${name} ${String(attributes[name])}`,
    }));
  }

  private createdReply(creation: Creation, context: RequestContext): Reply {
    const { status, document } = this.hooks.created(creation, context);
    return { status, contentType: MEDIA_TYPE, document };
  }
}

/** Adds to a map or set kept in insertion order, the oldest entry dropped past `limit`. */
export function keep<K, V>(kept: Map<K, V> | Set<K>, key: K, value?: V, limit = MAX_KEPT_RESOURCES): void {
  kept.delete(key);
  if (kept instanceof Map) kept.set(key, value as V);
  else kept.add(key);
  if (kept.size > limit) kept.delete(kept.keys().next().value as K);
}

/** The ids of the records the fixtures name, which this server holds from its start. */
const FIXTURE_IDS: ReadonlySet<string> = new Set(Object.values(REFERENCE_FIXTURES));

/**
 * The attributes only a server sets, at this server's defaults; one a client sent is overwritten (section 2.3: `inUse`
 * appears in responses only).
 */
function serverSetAttributes(operation: Operation): Json {
  return Object.fromEntries(
    serverAttributes(operation)
      .filter((m) => m.required)
      .map((m) => [m.name, structuredClone(SERVER_DEFAULTS[m.types[0]])]),
  );
}

/**
 * The first member of the request naming a record this server does not hold: the members the
 * contract marks `x-record`, each to hold the REFERENCE_FIXTURES record of its kind.
 */
function unknownRecord(operation: Operation, document: unknown): UnknownRecord | undefined {
  for (const member of recordMembers(operation)) {
    const value = valueAt(document, member.pointer);
    if (value !== undefined && value !== REFERENCE_FIXTURES[member.record])
      return { pointer: member.pointer, detail: `no record with this ${recordKindLabel(member.record)} exists` };
  }
  return undefined;
}

const recordMembersOf = new WeakMap<Operation, (BodyMember & { record: string })[]>();

/** The members of an operation's request that name a record (`x-record`), found once per operation. */
function recordMembers(operation: Operation): (BodyMember & { record: string })[] {
  let members = recordMembersOf.get(operation);
  if (!members) {
    members = bodyMembers(operation).filter((m): m is BodyMember & { record: string } => m.record !== undefined);
    recordMembersOf.set(operation, members);
  }
  return members;
}

/** The value at a pointer of a parsed document, or undefined when a step is missing or not an object. */
function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of pointer.split('/').slice(1).map(unescapeToken)) {
    const object = objectOf(node);
    if (!object || !(token in object)) return undefined;
    node = object[token];
  }
  return node;
}
