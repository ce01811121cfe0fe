// The boundary phase: inputs drawn on purpose, not at random, before any random input. From the contract: each place of
// an operation's schemas gets the values that break naive code, one place at a time in an otherwise valid input
// (numbers: each bound and one past it, 0, 2^31 − 1, 2^31, 2^53, exponent forms; arrays without uniqueItems:
// duplicates, empty, many; strings: empty, very long, and one per Unicode class that breaks naive code, in every string
// place of a document at once; free-form maps: many members, odd names). From the target: a paged list's total, read
// from a first answer, gives the offsets 0, total − 1, total, total + 1, and the limits 1, total, each small divisor of
// the total and one past it, each walked page by page. Which of these the target may refuse, and how, is the contract's
// to say (expectations.ts), as for any generated input. The same seed sends the same inputs. A failing input is shrunk
// (smaller()) to the smallest of its kind that still fails.
import fc from 'fast-check';
import { mergeAllOf, parseQuery, querySchema, smallestQuery, withValueAt, type Operation } from '../../contract/index.ts';
import type { Fixtures } from '../../targets/target.ts';
import { completeDocument } from '../documents.ts';
import { MAX_QUERY_OCTETS, queryText } from './inputs.ts';
import { arbitraryOf, LONG_STRING_CHARACTERS } from './schema-arbitrary.ts';

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
  { name: 'combining marks', text: 'e\u0301\u0302\u0303\u20dd', inQuery: true },
  { name: 'right-to-left', text: '\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u202eabc\u202c', inQuery: true },
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
const ODD_NAMES = ['', ' ', '__proto__', 'constructor', 'toString', 'a.b', 'a/b~1', '$ref', '\u0000', '\u{1F600}', 'n'.repeat(300)];

/** 2^31 − 1, 2^31 (a signed 32-bit integer's end), 2^53 (past a double's exact integers). */
const WIDE_NUMBERS = [2 ** 31 - 1, 2 ** 31, 2 ** 53];

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
  for (const [name, member] of Object.entries((merged.properties ?? {}) as Record<string, Schema>)) places.push(...placesOf(member, `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  if (typeof merged.items === 'object' && merged.items !== null) places.push(...placesOf(merged.items as Schema, `${pointer}/0`));
  return places;
}

const typesOf = (schema: Schema): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []);
const fixedValue = (schema: Schema) => schema.const !== undefined || Array.isArray(schema.enum);
const isFreeMap = (schema: Schema) => typesOf(schema).includes('object') && (Object.keys((schema.properties ?? {})).length === 0 || typeof schema.additionalProperties === 'object');

/**
 * Strings of a sampled item or member stay this short: "many" is about the count, and 60 members
 * of random text thousands of characters long made a body past what a server takes (1 MiB, the
 * reference server's limit), refused by closing the connection before the answer.
 */
const SAMPLE_STRING_CHARACTERS = 64;

/** One value of a schema, the same for the same seed. */
function sampleOf(schema: Schema, seed: number): unknown {
  return fc.sample(arbitraryOf(schema, '', { maxStringLength: SAMPLE_STRING_CHARACTERS }), { seed, numRuns: 1 })[0];
}

/** The string values a place is tried with, each named by its class. */
function stringValues(inQuery: boolean): { name: string; value: string }[] {
  return [
    ...STRING_CLASSES.filter((c) => !inQuery || c.inQuery).map((c) => ({ name: c.name, value: c.text })),
    { name: 'very long', value: inQuery ? LONG_QUERY_TEXT : LONG_TEXT },
  ];
}

/** Number texts a place is tried with: each bound and one past it, 0, the wide integers, and exponent forms. */
export function numberTexts(schema: Schema): string[] {
  const bounds = [schema.minimum, schema.maximum].filter((b): b is number => typeof b === 'number');
  const pastBounds = [typeof schema.minimum === 'number' ? schema.minimum - 1 : undefined, typeof schema.maximum === 'number' ? schema.maximum + 1 : undefined].filter((b): b is number => b !== undefined);
  const base = bounds[0] ?? 1;
  const exponents = ['1e1', '1E1', '1.0e1', `${Math.max(base, 1)}e0`, '1e-1'];
  return [...new Set([...bounds, ...pastBounds, 0, ...WIDE_NUMBERS].map(String).concat(exponents))];
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
      const shorter = () => shorterTexts(value).map((text) => documentInput(`${pointer}: ${name}, ${[...text].length} characters`, withValueAt(base, pointer, text)));
      return documentInput(`${pointer}: ${name}`, withValueAt(base, pointer, value), value.length > 1 ? shorter : undefined);
    };
    const everywhere = stringPlaces.reduce<unknown>((document, place) => withValueAt(document, place.pointer, value), base);
    return documentInput(`every string: ${name}`, everywhere, () => stringPlaces.map((place) => atOnePlace(place.pointer)));
  });
}

/** The document boundary inputs of one place besides its strings. */
function documentPlaceInputs(base: unknown, place: Place, seed: number): BoundaryInput[] {
  const { pointer, schema } = place;
  if (fixedValue(schema)) return [];
  const types = typesOf(schema);
  const inputs: BoundaryInput[] = [];
  if (types.includes('number') || types.includes('integer')) {
    for (const text of numberTexts(schema)) inputs.push({ boundary: `${pointer}: ${text}`, bodyText: withRawNumber(base, pointer, text) });
  }
  if (types.includes('array') && schema.uniqueItems !== true) {
    const items = typeof schema.items === 'object' && schema.items !== null ? (schema.items as Schema) : {};
    const existing = valueAt(base, pointer);
    const item: unknown = Array.isArray(existing) && existing.length > 0 ? existing[0] : sampleOf(items, seed);
    const many = Array.from({ length: MANY_ITEMS }, (_, i) => distinct(item, i));
    inputs.push(documentInput(`${pointer}: two equal items`, withValueAt(base, pointer, [item, item])));
    inputs.push(documentInput(`${pointer}: empty`, withValueAt(base, pointer, [])));
    inputs.push(documentInput(`${pointer}: ${MANY_ITEMS} items`, withValueAt(base, pointer, many), () => shorterLists(many).map((list) => documentInput(`${pointer}: ${list.length} items`, withValueAt(base, pointer, list)))));
  }
  if (isFreeMap(schema)) {
    const memberSchema = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : {};
    const value = sampleOf(memberSchema, seed);
    const members = (names: string[]) => Object.fromEntries(names.map((name) => [name, value]));
    const manyNames = Array.from({ length: MANY_MEMBERS }, (_, i) => `member${i}`);
    inputs.push(documentInput(`${pointer}: ${MANY_MEMBERS} members`, withValueAt(base, pointer, members(manyNames)), () => shorterLists(manyNames).map((names) => documentInput(`${pointer}: ${names.length} members`, withValueAt(base, pointer, members(names))))));
    for (const name of ODD_NAMES) inputs.push(documentInput(`${pointer}: a member named ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}`, withValueAt(base, pointer, members([name]))));
  }
  return inputs;
}

/** A copy of `value` told apart from the others by `index`: each string gets it appended. */
function distinct(value: unknown, index: number): unknown {
  if (typeof value === 'string') return `${value} ${index}`;
  if (Array.isArray(value)) return value.map((v) => distinct(v, index));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, distinct(v, index)]));
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
    .reduce<unknown>((node, token) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined), document);
}

/** The boundary inputs of an operation that takes a document: each place of its schema in the complete document. */
function documentInputs(operation: Operation, fixtures: Fixtures, seed: number): BoundaryInput[] {
  const base = completeDocument(operation, fixtures, `boundary ${seed}`);
  const places = placesOf(operation.requestBody!);
  return [...documentStringInputs(base, places), ...places.flatMap((place) => documentPlaceInputs(base, place, seed))];
}

// --- Queries ---------------------------------------------------------------------------------

function queryInput(operation: Operation, boundary: string, query: Record<string, unknown>, smaller?: () => BoundaryInput[]): BoundaryInput | undefined {
  let text: string;
  try {
    text = queryText(operation, query);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(`${operation.pathTemplate}?${text}`) <= MAX_QUERY_OCTETS ? { boundary, query: text, ...(smaller ? { smaller } : {}) } : undefined;
}

/**
 * The query boundary inputs of one place: the smallest valid query (with the smallest page for a page member, naming
 * the target's records), that place changed.
 */
function queryPlaceInputs(operation: Operation, place: Place, fixtures: Fixtures, seed: number): BoundaryInput[] {
  const { pointer, schema } = place;
  if (fixedValue(schema)) return [];
  const inPage = pointer.split('/').length > 2;
  const base = parseQuery(operation, smallestQuery(operation.parameters, { smallestPage: inPage, records: fixtures }));
  const at = (value: unknown) => withValueAt(base, pointer, value) as Record<string, unknown>;
  const types = typesOf(schema);
  const inputs: (BoundaryInput | undefined)[] = [];
  if (types.includes('string')) for (const { name, value } of stringValues(true)) inputs.push(queryInput(operation, `${pointer}: ${name}`, at(value)));
  if (types.includes('number') || types.includes('integer')) for (const text of numberTexts(schema)) inputs.push(queryInput(operation, `${pointer}: ${text}`, at(text)));
  if (types.includes('array') && schema.uniqueItems !== true) {
    const item = sampleOf((schema.items ?? {}) as Schema, seed);
    const many = Array.from({ length: MANY_ITEMS }, (_, i) => distinct(typeof item === 'string' && item !== '' ? item : 'item', i));
    inputs.push(queryInput(operation, `${pointer}: two equal items`, at([item, item])));
    inputs.push(queryInput(operation, `${pointer}: empty`, at([])));
    inputs.push(queryInput(operation, `${pointer}: ${MANY_ITEMS} items`, at(many), () => shorterLists(many).flatMap((list) => queryInput(operation, `${pointer}: ${list.length} items`, at(list)) ?? [])));
  }
  return inputs.filter((input): input is BoundaryInput => input !== undefined);
}

/** The boundary inputs the contract alone gives for one operation, in a fixed order. */
export function contractBoundaries(operation: Operation, fixtures: Fixtures, seed: number): BoundaryInput[] {
  if (operation.requestBody) return documentInputs(operation, fixtures, seed);
  return placesOf(querySchema(operation)).flatMap((place) => queryPlaceInputs(operation, place, fixtures, seed));
}

// --- Pages, from what the target answers ----------------------------------------------------

/**
 * Whether an operation serves pages (its x-requirements name a pageLength role) with a `page[limit]`/`page[offset]`, as
 * the contract's page arithmetic reads them.
 */
export function isPaged(operation: Operation): boolean {
  const page = operation.parameters.find((p) => p.name === 'page');
  const members = ((page?.schema)?.properties ?? {}) as Record<string, Schema>;
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
  const divisors = Array.from({ length: Math.min(total, SMALL_DIVISOR_LIMIT) }, (_, i) => i + 1).filter((d) => total % d === 0);
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

/** The page inputs a total gives: offsets around the end at limits 1 and the total, then each walk. */
export function pageBoundaries(operation: Operation, total: number, fixtures: Fixtures = {}): BoundaryInput[] {
  const page = (what: string, limit: number, offset: number): BoundaryInput => ({ boundary: `page ${what}: limit ${limit}, offset ${offset} (total ${total})`, query: pageQuery(operation, limit, offset, fixtures) });
  const ends = [...new Set([0, total - 1, total, total + 1])].filter((offset) => offset >= 0);
  const aroundTheEnd = [1, Math.max(1, total)].flatMap((limit) => ends.map((offset) => page('offset around the end', limit, offset)));
  const walks = walkLimits(total).flatMap((limit) => walkOffsets(total, limit).map((offset) => page(`walk at limit ${limit}`, limit, offset)));
  return [...aroundTheEnd, ...walks];
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
