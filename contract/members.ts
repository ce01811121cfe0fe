// Enumerates, from the schemas, every typed member of a request body with its JSON type, so
// type-mismatch cases are generated rather than hand-written: a new schema member brings its
// own cases.
import type { Operation } from './operation.ts';
import { escapeToken, unescapeToken } from './resolve.ts';

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';
export const JSON_TYPES: JsonType[] = ['string', 'number', 'boolean', 'null', 'object', 'array'];

/** One sample value of each JSON type, used as the wrong value in a mismatch case. */
export const SAMPLE_OF_TYPE: Record<JsonType, unknown> = {
  string: 'not-of-this-type',
  number: 12.5,
  boolean: true,
  null: null,
  object: { unexpected: 'member' },
  array: ['unexpected'],
};

export interface BodyMember {
  /** RFC 6901 pointer; array items are addressed at index 0. */
  pointer: string;
  /** The JSON types the schema allows here (integer counts as number). */
  types: JsonType[];
  required: boolean;
  const?: unknown;
  enum?: unknown[];
  /** Values the specification shows for an enumerated member whose full set is not shown. */
  valuesSeen?: unknown[];
  /** The specification does not show which values the member takes (nor what they mean): a server may refuse any. */
  valuesNotShown?: boolean;
  /** An object whose member names beyond those it defines the specification does not show (`x-names-not-shown`). */
  namesNotShown?: boolean;
  /**
   * The member names a record the service must hold (`x-record`): the name of the target's fixture that supplies one.
   */
  record?: string;
  /** The smallest number the member takes (`minimum`). */
  minimum?: number;
  /** The schema types it `integer` (types says number): JSON Schema takes 1.0 for one, typed clients do not. */
  integer?: true;
}

type Schema = Record<string, unknown>;

/** The body schema of the operation's first success status that has one (a created resource's document). */
export function successBody(operation: Operation): Schema | undefined {
  for (const [status, body] of operation.responseBodies) if (status >= 200 && status < 300 && body) return body;
  return undefined;
}

const ATTRIBUTE = /^\/data\/attributes\/([^/]+)$/;

export interface ServerAttribute extends BodyMember {
  name: string;
}

const serverAttributesOf = new WeakMap<Operation, ServerAttribute[]>();

/**
 * Attributes the server sets in a created resource and the request does not carry (AttributeConfig
 * `inUse`, section 2.3): members of the success body's `data.attributes` that the request body's
 * schema does not have. A client that sends one has it ignored or refused, never echoed.
 */
export function serverAttributes(operation: Operation): ServerAttribute[] {
  let attributes = serverAttributesOf.get(operation);
  if (!attributes) {
    const named = (members: BodyMember[]) =>
      members.flatMap((m) => {
        const token = ATTRIBUTE.exec(m.pointer)?.[1];
        return token === undefined ? [] : [{ ...m, name: unescapeToken(token) }];
      });
    const sent = new Set(named(bodyMembers(operation)).map((m) => m.name));
    const body = successBody(operation);
    attributes = body ? named(schemaMembers(body)).filter((m) => !sent.has(m.name)) : [];
    serverAttributesOf.set(operation, attributes);
  }
  return attributes;
}

export function bodyMembers(operation: Operation): BodyMember[] {
  if (!operation.requestBody) return [];
  return schemaMembers(operation.requestBody).filter((m) => m.pointer !== '');
}

/**
 * The member names the schema of the object at `pointer` defines, when it marks other names not
 * shown (`x-names-not-shown`); undefined when it does not, or no member lies there.
 */
export function namesShownAt(schema: Schema, pointer: string): ReadonlySet<string> | undefined {
  const members = schemaMembers(schema);
  if (!members.some((m) => m.pointer === pointer && m.namesNotShown)) return undefined;
  const prefix = `${pointer}/`;
  return new Set(
    members
      .filter((m) => m.pointer.startsWith(prefix) && !m.pointer.slice(prefix.length).includes('/'))
      .map((m) => unescapeToken(m.pointer.slice(prefix.length))),
  );
}

/** Every typed member of any resolved schema, the root itself (pointer "") first. */
export function schemaMembers(schema: Schema): BodyMember[] {
  const members: BodyMember[] = [];
  collect(schema, '', true, members);
  return members;
}

function collect(schema: Schema, pointer: string, required: boolean, out: BodyMember[]): void {
  const merged = mergeAllOf(schema);
  const types = typesOf(merged);
  if (types.length > 0) {
    out.push({
      pointer,
      types,
      required,
      ...(merged.const !== undefined ? { const: merged.const } : {}),
      ...(Array.isArray(merged.enum) ? { enum: merged.enum } : {}),
      ...(Array.isArray(merged['x-values-seen']) ? { valuesSeen: merged['x-values-seen'] as unknown[] } : {}),
      ...(merged['x-values-not-shown'] === true ? { valuesNotShown: true } : {}),
      ...(merged['x-names-not-shown'] === true ? { namesNotShown: true } : {}),
      ...(typeof merged['x-record'] === 'string' ? { record: merged['x-record'] } : {}),
      ...(typeof merged.minimum === 'number' ? { minimum: merged.minimum } : {}),
      ...(merged.type === 'integer' ? { integer: true as const } : {}),
    });
  }
  const requiredNames = new Set((merged.required ?? []) as string[]);
  for (const [name, member] of Object.entries((merged.properties ?? {}) as Record<string, Schema>)) {
    if (typeof member !== 'object') continue;
    collect(member, `${pointer}/${escapeToken(name)}`, requiredNames.has(name), out);
  }
  if (merged.type === 'array' && merged.items && typeof merged.items === 'object') {
    collect(merged.items as Schema, `${pointer}/0`, false, out);
  }
}

/** A schema with the properties, required members and type of its `allOf` parts merged in. */
export function mergeAllOf(schema: Schema): Schema {
  const parts = (schema.allOf ?? []) as Schema[];
  if (parts.length === 0) return schema;
  const merged: Schema = {
    ...schema,
    properties: { ...(schema.properties as Schema) },
    required: [...((schema.required ?? []) as string[])],
  };
  for (const part of parts.map(mergeAllOf)) {
    Object.assign(merged.properties as Schema, part.properties);
    (merged.required as string[]).push(...((part.required ?? []) as string[]));
    merged.type ??= part.type;
  }
  return merged;
}

function typesOf(schema: Schema): JsonType[] {
  if (schema.const !== undefined) return [jsonTypeOfValue(schema.const)];
  const declared = schema.type;
  const list = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
  return [...new Set(list.map((t) => (t === 'integer' ? 'number' : t) as JsonType))];
}

export function jsonTypeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonType;
}

/** The JSON types a member does not allow. */
export function wrongTypes(member: BodyMember): JsonType[] {
  return JSON_TYPES.filter((t) => !member.types.includes(t));
}

/** A deep copy of `document` with the member at `pointer` set to `value`, parents created. */
export function withValueAt(document: unknown, pointer: string, value: unknown): unknown {
  const copy = structuredClone(document) as Record<string, unknown>;
  const tokens = pointer.split('/').slice(1).map(unescapeToken);
  let node: Record<string, unknown> = copy;
  tokens.slice(0, -1).forEach((token, index) => {
    const next = node[token];
    if (next === null || typeof next !== 'object') node[token] = /^\d+$/.test(tokens[index + 1]) ? [] : {};
    node = node[token] as Record<string, unknown>;
  });
  node[tokens[tokens.length - 1]] = value;
  return copy;
}

/** A deep copy of `document` without the member at `pointer`. */
export function withoutValueAt(document: unknown, pointer: string): unknown {
  const copy = structuredClone(document) as Record<string, unknown>;
  const tokens = pointer.split('/').slice(1).map(unescapeToken);
  let node: Record<string, unknown> | undefined = copy;
  for (const token of tokens.slice(0, -1)) node = node?.[token] as Record<string, unknown> | undefined;
  if (node && typeof node === 'object') delete node[tokens[tokens.length - 1]];
  return copy;
}

/** A member of an operation's request that names a record the service must hold, with the kind it names. */
export interface RecordMember {
  operation: Operation;
  pointer: string;
  kind: string;
}

/** Every request member the contract marks `x-record`, operation by operation, in the contract's order. */
export function recordMembers(operations: Operation[]): RecordMember[] {
  return operations.flatMap((operation) =>
    bodyMembers(operation).flatMap((m) =>
      m.record === undefined ? [] : [{ operation, pointer: m.pointer, kind: m.record }],
    ),
  );
}

/**
 * The kinds of record the contract names (`x-record`), each once, in the contract's order: what a target's fixtures
 * supply.
 */
export function recordKinds(operations: Operation[]): string[] {
  return [...new Set(recordMembers(operations).map((m) => m.kind))];
}

/** How a person calls a kind of record's id, its name in words: ownerUserId is "owner user id". */
export function recordKindLabel(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}
