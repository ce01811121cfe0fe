// The boundary phase: inputs drawn on purpose, not at random, before any random input, and the same
// for every seed, so what a run judges never depends on its seed. From the contract: each place of
// an operation's schemas gets the values that break naive code, one place at a time in an otherwise
// valid input (numbers: the smallest and largest valid values, 2^53 − 1 where no bound is shown,
// one past each, 0, −1, −0, 2^31 − 1, 2^31, 2^32, 2^53, exponent forms; arrays without
// uniqueItems: duplicates, empty, many; strings: empty, very long, and one per Unicode class that
// breaks naive code, in every string place of a document at once; a place of fixed values: a value
// outside them in each of those classes; free-form maps: many members and odd names beside the
// members they hold); each change that makes it invalid (mutationsOf: a wrong JSON type, a required
// member removed, a value left); each alternative a place allows (null where it may be null); and,
// for a document, the smallest one alone and with each member of the complete one added. From the
// target: a paged list's total, read from a first answer, gives the offsets 0, total − 1, total,
// total + 1, and the limits 1, total, each small divisor of the total and one past it, each walked
// page by page, and the offsets around the end again with each other query parameter present. Which
// of these the target may refuse, and how, is the contract's to say (expectations.ts), as for any
// generated input. A failing input is shrunk (smaller()) to the smallest of its kind that still fails.
import fc from 'fast-check';
import {
  mergeAllOf,
  PAGE_PARAMETER,
  parseQuery,
  querySchema,
  smallestQuery,
  withoutValueAt,
  withValueAt,
  type JsonType,
  type Operation,
} from '../../contract/index.ts';
import type { Fixtures } from '../../targets/target.ts';
import { completeDocument, minimalDocument } from '../documents.ts';
import { MAX_QUERY_OCTETS, queryText } from './inputs.ts';
import { arbitraryOf, LONG_STRING_CHARACTERS, mutationsOf, type Mutation } from './schema-arbitrary.ts';

type Schema = Record<string, unknown>;

/** One input of the boundary phase, as it is sent. */
export interface BoundaryInput {
  /** What it tries, for people: `/data/attributes/label: combining marks`. */
  boundary: string;
  query?: string;
  bodyText?: string;
  /** Inputs of the same kind, each smaller, smallest first: what a failure of this one is shrunk to. */
  smaller?: () => BoundaryInput[];
}

/**
 * Strings that break naive code, one per class. A query carries no lone surrogate: no URI can (RFC 3986 encodes UTF-8).
 */
export const STRING_CLASSES: { name: string; text: string; inQuery: boolean }[] = [
  { name: 'empty', text: '', inQuery: true },
  { name: 'non-ASCII', text: 'caf\u00e9 \u00fc\u00df \u0436', inQuery: true },
  { name: 'combining marks', text: 'e\u0301\u0302\u0303\u20dd', inQuery: true },
  {
    name: 'right-to-left',
    text: '\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u202eabc\u202c',
    inQuery: true,
  },
  { name: 'astral', text: '\u{1F600}\u{1D11E}\u{20000}', inQuery: true },
  { name: 'control characters', text: 'a\u0001\u0007\u001b\u007f\u0085b', inQuery: true },
  { name: 'escaped NUL', text: 'a\u0000b', inQuery: true },
  { name: 'lone surrogates', text: 'a\ud800b\udc00', inQuery: false },
];

/** A very long string: past what a column or a buffer sized by guess holds. A query's stays within MAX_QUERY_OCTETS. */
const LONG_TEXT = 'x'.repeat(LONG_STRING_CHARACTERS);
const LONG_QUERY_TEXT = 'x'.repeat(Math.floor(MAX_QUERY_OCTETS / 4));

/** How many items "many" is, and how many members a "many members" map holds. */
export const MANY_ITEMS = 40;
const MANY_MEMBERS = 60;
/** Member names that break naive code: empty, blank, a prototype's, a path's, a pointer's, a reference's, NUL, long. */
const ODD_NAMES = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'a.b',
  'a/b~1',
  '$ref',
  '\u0000',
  '\u{1F600}',
  'n'.repeat(300),
];

/**
 * Numbers that break naive code wherever they are allowed: −1 and −0 (a sign where none is
 * expected), 2^31 − 1 and 2^31 (a signed 32-bit integer's end), 2^32 (an unsigned one's).
 */
const WIDE_NUMBERS = [-1, 2 ** 31 - 1, 2 ** 31, 2 ** 32];

/** The largest whole number a double holds exactly: the largest valid value of a place whose maximum is not shown. */
const LARGEST_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * The seed the boundary phase samples its few drawn values with (an item of a list, a member of a
 * map): fixed, so the phase is the same for every run's seed.
 */
const BOUNDARY_SEED = 0;
/** The tag of the boundary phase's documents (a string member's sample names it). */
const BOUNDARY_TAG = 'boundary';

/** Limits below this that divide the total are walked; a walk longer than MAX_WALK_PAGES pages walks only its ends. */
const SMALL_DIVISOR_LIMIT = 12;
const MAX_WALK_PAGES = 40;
const WALK_END_PAGES = 3;

// --- Places of a schema ----------------------------------------------------------------------

interface Place {
  pointer: string;
  schema: Schema;
}

/** Every place the schema describes, the root's members down: properties, and array items at index 0. */
function placesOf(schema: Schema, pointer = ''): Place[] {
  const merged = mergeAllOf(schema);
  const places: Place[] = pointer === '' ? [] : [{ pointer, schema: merged }];
  for (const [name, member] of Object.entries((merged.properties ?? {}) as Record<string, Schema>))
    places.push(...placesOf(member, `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  if (typeof merged.items === 'object' && merged.items !== null)
    places.push(...placesOf(merged.items as Schema, `${pointer}/0`));
  return places;
}

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
const fixedValue = (schema: Schema) => schema.const !== undefined || Array.isArray(schema.enum);
const isFreeMap = (schema: Schema) =>
  typesOf(schema).includes('object') &&
  (Object.keys(schema.properties ?? {}).length === 0 || typeof schema.additionalProperties === 'object');

/**
 * Strings of a sampled item or member stay this short: "many" is about the count, and 60 members
 * of random text thousands of characters long made a body past what a server takes (1 MiB, the
 * reference server's limit), refused by closing the connection before the answer.
 */
const SAMPLE_STRING_CHARACTERS = 64;

/** One value of a schema, the same in every run. */
function sampleOf(schema: Schema): unknown {
  return fc.sample(arbitraryOf(schema, '', { maxStringLength: SAMPLE_STRING_CHARACTERS }), {
    seed: BOUNDARY_SEED,
    numRuns: 1,
  })[0];
}

/** The string values a place is tried with, each named by its class. */
function stringValues(inQuery: boolean): { name: string; value: string }[] {
  return [
    ...STRING_CLASSES.filter((c) => !inQuery || c.inQuery).map((c) => ({ name: c.name, value: c.text })),
    { name: 'very long', value: inQuery ? LONG_QUERY_TEXT : LONG_TEXT },
  ];
}

/**
 * Number texts a place is tried with: the smallest and largest valid values (±(2^53 − 1) where no
 * bound is shown) and one past each, 0, −0, the wide numbers, and exponent forms.
 */
export function numberTexts(schema: Schema): string[] {
  const smallest = typeof schema.minimum === 'number' ? schema.minimum : -LARGEST_EXACT;
  const largest = typeof schema.maximum === 'number' ? schema.maximum : LARGEST_EXACT;
  const ends = [smallest, smallest - 1, largest, largest + 1].map(String);
  const exponents = ['1e1', '1E1', '1.0e1', `${Math.max(smallest, 1)}e0`, '1e-1'];
  return [...new Set([...ends, '0', '-0', ...WIDE_NUMBERS.map(String), String(2 ** 53), ...exponents])];
}

/** Prefixes of a string, by whole code points, halving down to one: what a failing long string is shrunk through. */
function shorterTexts(text: string): string[] {
  const points = [...text];
  const lengths: number[] = [];
  for (let length = Math.floor(points.length / 2); length >= 1; length = Math.floor(length / 2)) lengths.push(length);
  return lengths.reverse().map((length) => points.slice(0, length).join(''));
}

// --- Documents -------------------------------------------------------------------------------

/** A document whose one number is written as `text` exactly (JSON.stringify writes no exponent). */
function withRawNumber(document: unknown, pointer: string, text: string): string {
  const marker = `\u0000number-${pointer}\u0000`;
  return JSON.stringify(withValueAt(document, pointer, marker)).replace(JSON.stringify(marker), text);
}

function documentInput(boundary: string, document: unknown, smaller?: () => BoundaryInput[]): BoundaryInput {
  return { boundary, bodyText: JSON.stringify(document), ...(smaller ? { smaller } : {}) };
}

const isStringPlace = (place: Place) => !fixedValue(place.schema) && typesOf(place.schema).includes('string');

/**
 * One input per string class, every string place of the document holding it at once: a few
 * requests instead of one per place and class. It shrinks to the one place that fails, and a long
 * text to the shortest prefix that still fails.
 */
function documentStringInputs(base: unknown, places: Place[]): BoundaryInput[] {
  const stringPlaces = places.filter(isStringPlace);
  if (stringPlaces.length === 0) return [];
  return stringValues(false).map(({ name, value }) => {
    const atOnePlace = (pointer: string): BoundaryInput => {
      const shorter = () =>
        shorterTexts(value).map((text) =>
          documentInput(`${pointer}: ${name}, ${[...text].length} characters`, withValueAt(base, pointer, text)),
        );
      return documentInput(
        `${pointer}: ${name}`,
        withValueAt(base, pointer, value),
        value.length > 1 ? shorter : undefined,
      );
    };
    const everywhere = stringPlaces.reduce<unknown>(
      (document, place) => withValueAt(document, place.pointer, value),
      base,
    );
    return documentInput(`every string: ${name}`, everywhere, () =>
      stringPlaces.map((place) => atOnePlace(place.pointer)),
    );
  });
}

/** The document boundary inputs of one place besides its strings. */
function documentPlaceInputs(base: unknown, place: Place): BoundaryInput[] {
  const { pointer, schema } = place;
  if (fixedValue(schema)) return [];
  const types = typesOf(schema);
  const inputs: BoundaryInput[] = [];
  if (types.includes('number') || types.includes('integer')) {
    for (const text of numberTexts(schema))
      inputs.push({ boundary: `${pointer}: ${text}`, bodyText: withRawNumber(base, pointer, text) });
  }
  if (types.includes('array') && schema.uniqueItems !== true) {
    const items = typeof schema.items === 'object' && schema.items !== null ? (schema.items as Schema) : {};
    const existing = valueAt(base, pointer);
    const item: unknown = Array.isArray(existing) && existing.length > 0 ? (existing[0] as unknown) : sampleOf(items);
    const many = Array.from({ length: MANY_ITEMS }, (_, i) => distinct(item, i));
    inputs.push(documentInput(`${pointer}: two equal items`, withValueAt(base, pointer, [item, item])));
    inputs.push(documentInput(`${pointer}: empty`, withValueAt(base, pointer, [])));
    inputs.push(
      documentInput(`${pointer}: ${MANY_ITEMS} items`, withValueAt(base, pointer, many), () =>
        shorterLists(many).map((list) =>
          documentInput(`${pointer}: ${list.length} items`, withValueAt(base, pointer, list)),
        ),
      ),
    );
  }
  if (isFreeMap(schema)) {
    const memberSchema = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : {};
    const value = smallestOf(memberSchema);
    // Beside the members the map holds: a member of another name must not cost those their judging (the echo of
    // `owner`).
    const held = valueAt(base, pointer);
    const kept = held !== null && typeof held === 'object' && !Array.isArray(held) ? held : {};
    const members = (names: string[]) => ({ ...kept, ...Object.fromEntries(names.map((name) => [name, value])) });
    const manyNames = Array.from({ length: MANY_MEMBERS }, (_, i) => `member${i}`);
    inputs.push(
      documentInput(`${pointer}: ${MANY_MEMBERS} members`, withValueAt(base, pointer, members(manyNames)), () =>
        shorterLists(manyNames).map((names) =>
          documentInput(`${pointer}: ${names.length} members`, withValueAt(base, pointer, members(names))),
        ),
      ),
    );
    for (const name of ODD_NAMES)
      inputs.push(
        documentInput(
          `${pointer}: a member named ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}`,
          withValueAt(base, pointer, members([name])),
        ),
      );
  }
  return inputs;
}

/**
 * The smallest value a schema accepts: its required members only, an empty array or string, the
 * least number, the first fixed value or branch. What a member of a map holds, so that the member's
 * name, not a record its value names, is what the input tries.
 */
function smallestOf(schema: Schema): unknown {
  const merged = mergeAllOf(schema);
  if (merged.const !== undefined) return merged.const;
  if (Array.isArray(merged.enum)) return merged.enum[0];
  const branches = (merged.oneOf ?? merged.anyOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return smallestOf(branches[0]);
  const type = typesOf(merged)[0] ?? 'object';
  if (type === 'object') {
    const properties = (merged.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(
      ((merged.required ?? []) as string[]).map((name) => [name, smallestOf(properties[name] ?? {})]),
    );
  }
  const least = typeof merged.minimum === 'number' ? merged.minimum : 0;
  const smallest: Record<string, unknown> = {
    array: [],
    string: '',
    number: least,
    integer: least,
    boolean: false,
    null: null,
  };
  return smallest[type];
}

/** A copy of `value` told apart from the others by `index`: each string gets it appended. */
function distinct(value: unknown, index: number): unknown {
  if (typeof value === 'string') return `${value} ${index}`;
  if (Array.isArray(value)) return value.map((v) => distinct(v, index));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, distinct(v, index)]));
  return value;
}

function shorterLists<T>(list: T[]): T[][] {
  const lengths: number[] = [];
  for (let length = Math.floor(list.length / 2); length >= 1; length = Math.floor(length / 2)) lengths.push(length);
  return lengths.reverse().map((length) => list.slice(0, length));
}

function valueAt(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, token) =>
        node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined,
      document,
    );
}

/**
 * The smallest document alone, then with each member of the complete one whose parent it holds:
 * what a server that refuses some member (a relationship it does not know, an attribute it does not
 * take) still creates, so each echo is judged on some input whatever the target refuses.
 */
function memberByMemberInputs(operation: Operation, complete: unknown, fixtures: Fixtures): BoundaryInput[] {
  const minimal = minimalDocument(operation, fixtures, BOUNDARY_TAG);
  const added = placesOf(operation.requestBody!)
    .map((place) => place.pointer)
    .filter(
      (pointer) =>
        valueAt(complete, pointer) !== undefined &&
        valueAt(minimal, pointer) === undefined &&
        valueAt(minimal, parentOf(pointer)) !== undefined,
    );
  return [
    documentInput('the smallest document', minimal),
    ...added.map((pointer) =>
      documentInput(`the smallest document and ${pointer}`, withValueAt(minimal, pointer, valueAt(complete, pointer))),
    ),
  ];
}

const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));

/** The boundary inputs of an operation that takes a document: each place of its schema in the complete document. */
function documentInputs(operation: Operation, fixtures: Fixtures): BoundaryInput[] {
  const base = completeDocument(operation, fixtures, BOUNDARY_TAG);
  const places = placesOf(operation.requestBody!);
  const changed = (boundary: string, pointer: string, value: unknown) =>
    documentInput(boundary, value === undefined ? withoutValueAt(base, pointer) : withValueAt(base, pointer, value));
  return [
    ...memberByMemberInputs(operation, base, fixtures),
    ...documentStringInputs(base, places),
    ...places.flatMap((place) => documentPlaceInputs(base, place)),
    ...places.flatMap((place) =>
      alternativesOf(place).map(({ name, value }) => changed(`${place.pointer}: ${name}`, place.pointer, value)),
    ),
    ...mutationsOf(operation.requestBody!).flatMap((mutation) =>
      mutationValues(mutation).map(({ name, value }) =>
        changed(`${mutation.pointer}: ${name}`, mutation.pointer, value),
      ),
    ),
  ];
}

// --- Alternatives and changes that make an input invalid -------------------------------------

/**
 * One value of each type and each branch (oneOf, anyOf) a place allows beside the first: `null` where it may be null.
 */
function alternativesOf(place: Place): { name: string; value: unknown }[] {
  const { schema } = place;
  const branches = ((schema.oneOf ?? schema.anyOf) as Schema[] | undefined) ?? [];
  const types = typesOf(schema);
  const ofType =
    types.length > 1
      ? types.map((type) => ({ name: `a ${type}`, value: type === 'null' ? null : sampleOf({ ...schema, type }) }))
      : [];
  const ofBranch = branches.map((branch, index) => ({
    name: `alternative ${index + 1}`,
    value: sampleOf(mergeAllOf(branch)),
  }));
  return [...ofType, ...ofBranch];
}

/** A value of each JSON type, the same every run: what a wrong-type change puts in place. */
const VALUE_OF_TYPE: Record<JsonType, unknown> = {
  string: 'x',
  number: 1,
  boolean: true,
  null: null,
  object: {},
  array: [],
};

/**
 * The values outside a place's fixed ones, in every Unicode class: the first value with the class's text after it, and
 * cased otherwise.
 */
function outsideValues(values: unknown[]): { name: string; value: unknown }[] {
  const first = values.find((v): v is string => typeof v === 'string');
  if (first === undefined) return [{ name: 'a value outside those allowed', value: 'x' }];
  const unicode = STRING_CLASSES.filter((c) => c.text !== '' && c.inQuery).map((c) => ({
    name: `outside the allowed values, ${c.name}`,
    value: `${first}${c.text}`,
  }));
  return [{ name: 'outside the allowed values, upper case', value: first.toUpperCase() }, ...unicode].filter(
    ({ value }) => !values.includes(value),
  );
}

/** The values a change that makes the input invalid puts in place (undefined: the member removed), each named. */
function mutationValues(mutation: Mutation): { name: string; value: unknown }[] {
  switch (mutation.kind) {
    case 'wrong-type':
      return [{ name: `a ${mutation.type} where the schema wants another type`, value: VALUE_OF_TYPE[mutation.type] }];
    case 'missing':
      return [{ name: 'a required member removed', value: undefined }];
    case 'below-minimum':
      return [];
    case 'outside-values':
      return outsideValues(mutation.values);
  }
}

// --- Queries ---------------------------------------------------------------------------------

function queryInput(
  operation: Operation,
  boundary: string,
  query: Record<string, unknown>,
  smaller?: () => BoundaryInput[],
): BoundaryInput | undefined {
  let text: string;
  try {
    text = queryText(operation, query);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(`${operation.pathTemplate}?${text}`) <= MAX_QUERY_OCTETS
    ? { boundary, query: text, ...(smaller ? { smaller } : {}) }
    : undefined;
}

/**
 * The query boundary inputs of one place: the smallest valid query (with the smallest page for a page member, naming
 * the target's records), that place changed.
 */
function queryPlaceInputs(operation: Operation, place: Place, fixtures: Fixtures): BoundaryInput[] {
  const { pointer, schema } = place;
  if (fixedValue(schema)) return [];
  const inPage = pointer.split('/').length > 2;
  const base = parseQuery(operation, smallestQuery(operation.parameters, { smallestPage: inPage, records: fixtures }));
  const at = (value: unknown) => withValueAt(base, pointer, value) as Record<string, unknown>;
  const types = typesOf(schema);
  const inputs: (BoundaryInput | undefined)[] = [];
  if (types.includes('string'))
    for (const { name, value } of stringValues(true))
      inputs.push(queryInput(operation, `${pointer}: ${name}`, at(value)));
  if (types.includes('number') || types.includes('integer'))
    for (const text of numberTexts(schema)) inputs.push(queryInput(operation, `${pointer}: ${text}`, at(text)));
  if (types.includes('array') && schema.uniqueItems !== true) {
    const item = sampleOf((schema.items ?? {}) as Schema);
    const many = Array.from({ length: MANY_ITEMS }, (_, i) =>
      distinct(typeof item === 'string' && item !== '' ? item : 'item', i),
    );
    inputs.push(queryInput(operation, `${pointer}: two equal items`, at([item, item])));
    inputs.push(queryInput(operation, `${pointer}: empty`, at([])));
    inputs.push(
      queryInput(operation, `${pointer}: ${MANY_ITEMS} items`, at(many), () =>
        shorterLists(many).flatMap((list) => queryInput(operation, `${pointer}: ${list.length} items`, at(list)) ?? []),
      ),
    );
  }
  return inputs.filter((input): input is BoundaryInput => input !== undefined);
}

/**
 * The query inputs of each change that makes a query invalid, in the smallest query with its smallest page:
 * percent-encoded UTF-8 for text.
 */
function queryMutationInputs(operation: Operation, fixtures: Fixtures): BoundaryInput[] {
  const base = parseQuery(operation, smallestQuery(operation.parameters, { smallestPage: true, records: fixtures }));
  return mutationsOf(querySchema(operation)).flatMap((mutation) =>
    mutationValues(mutation).flatMap(({ name, value }) => {
      const query = (
        value === undefined ? withoutValueAt(base, mutation.pointer) : withValueAt(base, mutation.pointer, value)
      ) as Record<string, unknown>;
      return queryInput(operation, `${mutation.pointer}: ${name}`, query) ?? [];
    }),
  );
}

/** The boundary inputs of each operation, by its fixtures: the same for every seed, so built once. */
const builtBoundaries = new WeakMap<Operation, Map<string, BoundaryInput[]>>();

/** The boundary inputs the contract alone gives for one operation, in a fixed order, the same for every seed. */
export function contractBoundaries(operation: Operation, fixtures: Fixtures): BoundaryInput[] {
  const byFixtures = builtBoundaries.get(operation) ?? new Map<string, BoundaryInput[]>();
  builtBoundaries.set(operation, byFixtures);
  const key = JSON.stringify(Object.entries(fixtures).sort());
  let inputs = byFixtures.get(key);
  if (inputs === undefined) {
    inputs = operation.requestBody
      ? documentInputs(operation, fixtures)
      : [
          ...placesOf(querySchema(operation)).flatMap((place) => queryPlaceInputs(operation, place, fixtures)),
          ...queryMutationInputs(operation, fixtures),
        ];
    byFixtures.set(key, inputs);
  }
  return inputs;
}

// --- Pages, from what the target answers ----------------------------------------------------

/**
 * Whether an operation serves pages (its x-requirements name a pageLength role) with a `page[limit]`/`page[offset]`, as
 * the contract's page arithmetic reads them.
 */
export function isPaged(operation: Operation): boolean {
  const page = operation.parameters.find((p) => p.name === 'page');
  const members = (page?.schema?.properties ?? {}) as Record<string, Schema>;
  return operation.roles.pageLength !== undefined && members.limit !== undefined && members.offset !== undefined;
}

/**
 * The query of one page: the smallest valid query (naming the target's records) with `page[limit]` and `page[offset]`.
 */
export function pageQuery(operation: Operation, limit: number, offset: number, fixtures: Fixtures = {}): string {
  return `${smallestQuery(operation.parameters, { records: fixtures })}&page[limit]=${limit}&page[offset]=${offset}`;
}

/** The limits a total is walked at: 1, the total, each small divisor and one past it. */
export function walkLimits(total: number): number[] {
  const divisors = Array.from({ length: Math.min(total, SMALL_DIVISOR_LIMIT) }, (_, i) => i + 1).filter(
    (d) => total % d === 0,
  );
  return [...new Set([1, ...divisors.flatMap((d) => [d, d + 1]), Math.max(1, total)])].sort((a, b) => a - b);
}

/**
 * The offsets of a walk at `limit`: every page and the first past the end, or only the pages at either end of a long
 * walk.
 */
export function walkOffsets(total: number, limit: number): number[] {
  const pages = Math.ceil(total / limit) + 1;
  const all = Array.from({ length: pages }, (_, i) => i * limit);
  return pages <= MAX_WALK_PAGES ? all : [...all.slice(0, WALK_END_PAGES), ...all.slice(-WALK_END_PAGES)];
}

/**
 * The page inputs a total gives: offsets around the end at limits 1 and the total, then each walk, then the offsets
 * around the end again with each optional parameter present.
 */
export function pageBoundaries(operation: Operation, total: number, fixtures: Fixtures = {}): BoundaryInput[] {
  const page = (what: string, limit: number, offset: number, extra = ''): BoundaryInput => ({
    boundary: `page ${what}: limit ${limit}, offset ${offset} (total ${total})`,
    query: `${pageQuery(operation, limit, offset, fixtures)}${extra}`,
  });
  const ends = [...new Set([0, total - 1, total, total + 1])].filter((offset) => offset >= 0);
  const aroundTheEnd = (extra = '', also = '') =>
    [1, Math.max(1, total)].flatMap((limit) =>
      ends.map((offset) => page(`offset around the end${also}`, limit, offset, extra)),
    );
  const walks = walkLimits(total).flatMap((limit) =>
    walkOffsets(total, limit).map((offset) => page(`walk at limit ${limit}`, limit, offset)),
  );
  const withOthers = optionalParameterPairs(operation).flatMap((pair) => aroundTheEnd(`&${pair}`, ` with ${pair}`));
  return [...aroundTheEnd(), ...walks, ...withOthers];
}

/**
 * One query pair for each optional parameter besides `page`, holding a value its schema allows
 * (an include name, say): the page arithmetic holds whatever such a parameter means.
 */
function optionalParameterPairs(operation: Operation): string[] {
  return operation.parameters
    .filter((parameter) => !parameter.required && parameter.name !== PAGE_PARAMETER && parameter.style !== 'deepObject')
    .map((parameter) => {
      const schema = mergeAllOf(parameter.schema ?? {});
      const value = typesOf(schema).includes('array') ? [parameter.name] : parameter.name;
      return queryText(operation, { [parameter.name]: value });
    });
}

/**
 * The total a list answer reports (`meta.total`), or the number of items when it reports none; undefined when it holds
 * no list.
 */
export function totalOf(json: unknown): number | undefined {
  const document = json as { data?: unknown; meta?: { total?: unknown } } | undefined;
  if (!Array.isArray(document?.data)) return undefined;
  const total = document.meta?.total;
  return Number.isSafeInteger(total) && (total as number) >= 0 ? (total as number) : undefined;
}
