// fast-check arbitraries derived from a JSON Schema 2020-12 of the contract: one generic walk over
// the keywords the contract uses (type, const, enum, properties, required, additionalProperties,
// items, allOf, oneOf, anyOf, minimum, maximum, minLength, maxLength, minItems, maxItems), so a
// member added to a schema is generated without a line changed here. No maintained library derives
// fast-check (4.x) arbitraries from 2020-12 schemas; the one published package targets fast-check 1
// and older drafts. Values reach into the corners a hand-written case list misses: long strings,
// characters outside the Basic Multilingual Plane, integers past 2^31 up to the safe-integer
// bounds, fractions and doubles far past 2^53, empty and large arrays, optional members present
// and absent.
import fc from 'fast-check';
import {
  jsonTypeOfValue,
  mergeAllOf,
  schemaMembers,
  wrongTypes,
  type BodyMember,
  type JsonType,
} from '../../contract/index.ts';

type Schema = Record<string, unknown>;

/** Replaces the generated value at a pointer (a record the target names, say); undefined keeps the schema's. */
export type PointerOverride = (pointer: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;

export interface DerivationOptions {
  override?: PointerOverride;
  /** The longest string drawn (default LONG_STRING_CHARACTERS). */
  maxStringLength?: number;
}

/**
 * Strings up to this long are generated now and then: limits a server did not expect show up past a few thousand
 * characters.
 */
export const LONG_STRING_CHARACTERS = 12_000;
const LONG_STRING_FROM = 256;
const LARGE_ARRAY_ITEMS = 40;

/**
 * Any Unicode scalar value: the whole range, surrogate halves left out (no well-formed text holds
 * one alone). Every string drawn is made of these, none ASCII only: a value outside an enum or a
 * member name reaches a server's text handling as a client's would.
 */
const codePoint: fc.Arbitrary<string> = fc
  .oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((point) => String.fromCodePoint(point));

/** Text of any Unicode scalar values, from printable ASCII to the astral planes. */
function anyText(constraints: { minLength?: number; maxLength: number }): fc.Arbitrary<string> {
  return fc.string({ unit: codePoint, ...constraints });
}

/**
 * A long string: a short piece repeated to a length. Drawn as (piece, length), it shrinks in a few
 * dozen steps to the shortest length that still fails, where shrinking thousands of characters one
 * by one would take thousands of requests.
 */
function longString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.string({ unit: codePoint, minLength: 1, maxLength: 8 }), fc.integer({ min: minLength, max: maxLength }))
    .map(([piece, length]) => {
      const points = [...piece];
      return piece.repeat(Math.floor(length / points.length)) + points.slice(0, length % points.length).join('');
    });
}

function stringArbitrary(schema: Schema, longest: number): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.max(
    minLength,
    typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, longest) : longest,
  );
  const short = Math.min(maxLength, Math.max(minLength, 24));
  const long = Math.max(minLength, Math.min(maxLength, LONG_STRING_FROM));
  return fc.oneof(
    { weight: 5, arbitrary: anyText({ minLength, maxLength: short }) },
    { weight: 1, arbitrary: longString(long, maxLength) },
  );
}

/**
 * Small numbers, and any number up to the safe-integer bounds (2^31 and 2^32 among them, and ±(2^53 − 1) at the edges).
 */
function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -Number.MAX_SAFE_INTEGER;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
  const low = Math.max(Math.ceil(min), -Number.MAX_SAFE_INTEGER);
  const high = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
  const small = Math.max(low, -1000);
  const choices: fc.Arbitrary<number>[] = [
    fc.integer({ min: small, max: Math.min(small + 1000, high) }),
    fc.integer({ min: low, max: high }),
  ];
  if (!integer)
    choices.push(
      fc
        .double({ min, max: Math.min(max, Number.MAX_VALUE), noNaN: true, noDefaultInfinity: true })
        .filter((n) => n >= min && n <= max && !Object.is(n, -0)),
    );
  return fc.oneof(...choices);
}

function objectArbitrary(schema: Schema, pointer: string, options: DerivationOptions): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(properties);
  const additional =
    typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null
      ? (schema.additionalProperties as Schema)
      : undefined;
  if (names.length === 0 && additional === undefined) return freeObject();
  const required = new Set((schema.required ?? []) as string[]);
  const model = Object.fromEntries(
    names.map((name) => [name, arbitraryOf(properties[name], `${pointer}/${escape(name)}`, options)]),
  );
  const declared = fc.record(model, { requiredKeys: names.filter((name) => required.has(name)) });
  if (additional === undefined) return declared;
  // Members the schema does not name, beside those it does: a name of its own, never one of theirs.
  const extra = fc.dictionary(
    anyText({ minLength: 1, maxLength: 12 }).filter((name) => !(name in properties) && name !== '__proto__'),
    arbitraryOf(additional, `${pointer}/*`, options),
    { maxKeys: 2 },
  );
  return fc.tuple(declared, extra).map(([own, more]) => ({ ...more, ...own }));
}

/** A member whose schema says only "object": any small JSON object. */
function freeObject(): fc.Arbitrary<unknown> {
  return fc.dictionary(anyText({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2, stringUnit: codePoint }), {
    maxKeys: 4,
  });
}

function arrayArbitrary(schema: Schema, pointer: string, options: DerivationOptions): fc.Arbitrary<unknown> {
  const items =
    typeof schema.items === 'object' && schema.items !== null
      ? arbitraryOf(schema.items as Schema, `${pointer}/0`, options)
      : fc.jsonValue({ maxDepth: 1, stringUnit: codePoint });
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxLength = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(minLength, LARGE_ARRAY_ITEMS);
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(items, { minLength, maxLength: Math.min(maxLength, Math.max(minLength, 4)) }) },
    { weight: 1, arbitrary: fc.array(items, { minLength, maxLength, size: 'max' }) },
  );
}

function typedArbitrary(
  type: string,
  schema: Schema,
  pointer: string,
  options: DerivationOptions,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'object':
      return objectArbitrary(schema, pointer, options);
    case 'array':
      return arrayArbitrary(schema, pointer, options);
    case 'string':
      return stringArbitrary(schema, options.maxStringLength ?? LONG_STRING_CHARACTERS);
    case 'number':
      return numberArbitrary(schema, false);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      throw new Error(`the generator derives no values for JSON Schema type "${type}" (at "${pointer}")`);
  }
}

/** Values the schema at `pointer` accepts. */
export function arbitraryOf(schema: Schema, pointer = '', options: DerivationOptions = {}): fc.Arbitrary<unknown> {
  const merged = mergeAllOf(schema);
  const overridden = options.override?.(pointer, merged);
  if (overridden) return overridden;
  if (merged.const !== undefined) return fc.constant(merged.const);
  if (Array.isArray(merged.enum)) return fc.constantFrom(...(merged.enum as unknown[]));
  const alternatives = (merged.oneOf ?? merged.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives))
    return fc.oneof(
      ...alternatives.map((branch) => arbitraryOf({ ...withoutAlternatives(merged), ...branch }, pointer, options)),
    );
  const types = Array.isArray(merged.type)
    ? (merged.type as string[])
    : merged.type === undefined
      ? []
      : [merged.type as string];
  if (types.length === 0)
    return typeof merged.properties === 'object'
      ? objectArbitrary(merged, pointer, options)
      : fc.jsonValue({ maxDepth: 2, stringUnit: codePoint });
  const typed = fc.oneof(...types.map((type) => typedArbitrary(type, merged, pointer, options)));
  // Values the specification shows for a member whose full set it does not show: sent often, beside any other value of
  // the type.
  const seen = merged['x-values-seen'];
  return Array.isArray(seen) && seen.length > 0
    ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...(seen as unknown[])) }, { weight: 1, arbitrary: typed })
    : typed;
}

function withoutAlternatives(schema: Schema): Schema {
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema;
  return rest;
}

function escape(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

// --- Changes that make a value invalid --------------------------------------------------------

/** One change that breaks a schema at one member: what a near-valid input differs in. */
export type Mutation =
  | { kind: 'wrong-type'; pointer: string; type: JsonType }
  | { kind: 'missing'; pointer: string }
  | { kind: 'below-minimum'; pointer: string; minimum: number }
  | { kind: 'outside-values'; pointer: string; values: unknown[] };

/**
 * Every change the schema's members allow: each wrong JSON type, each required member removed, each minimum undercut,
 * each enum or constant left.
 */
export function mutationsOf(schema: Schema): Mutation[] {
  return schemaMembers(schema)
    .filter((member) => member.pointer !== '')
    .flatMap((member): Mutation[] => [
      ...wrongTypes(member).map((type): Mutation => ({ kind: 'wrong-type', pointer: member.pointer, type })),
      ...(member.required ? [{ kind: 'missing', pointer: member.pointer } as Mutation] : []),
      ...(member.minimum !== undefined
        ? [{ kind: 'below-minimum', pointer: member.pointer, minimum: member.minimum } as Mutation]
        : []),
      ...fixedValues(member),
    ]);
}

function fixedValues(member: BodyMember): Mutation[] {
  const values = member.const !== undefined ? [member.const] : member.enum;
  return values ? [{ kind: 'outside-values', pointer: member.pointer, values }] : [];
}

const valueOfType: Record<JsonType, () => fc.Arbitrary<unknown>> = {
  string: () => anyText({ maxLength: 16 }),
  number: () => fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  boolean: () => fc.boolean(),
  null: () => fc.constant(null),
  object: () => freeObject(),
  array: () => fc.array(fc.jsonValue({ maxDepth: 1, stringUnit: codePoint }), { maxLength: 3 }),
};

/** The value a mutation puts in place (undefined: the member is removed). */
export function mutatedValue(mutation: Mutation): fc.Arbitrary<unknown> {
  switch (mutation.kind) {
    case 'wrong-type':
      return valueOfType[mutation.type]();
    case 'missing':
      return fc.constant(undefined);
    case 'below-minimum':
      return fc.oneof(
        fc.constant(mutation.minimum - 1),
        fc
          .double({ max: mutation.minimum, maxExcluded: true, noNaN: true, noDefaultInfinity: true })
          .filter((n) => n < mutation.minimum),
      );
    case 'outside-values': {
      const strings = mutation.values.filter((v): v is string => typeof v === 'string');
      const near = strings.flatMap((v) => [v.toUpperCase(), `${v} `, v.slice(1)]);
      return fc
        .oneof(fc.constantFrom(...near, ''), anyText({ maxLength: 16 }))
        .filter((v) => !mutation.values.some((allowed) => jsonTypeOfValue(allowed) === 'string' && allowed === v));
    }
  }
}
