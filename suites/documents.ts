// Request documents built from the contract's schemas, not written by hand: the complete one
// fills every attribute (and the relationships the target's fixtures allow), the minimal one only
// what is required. A new schema member shows up in the complete document, and so in every case
// derived from it.
import {
  bodyMembers,
  hasValueAt,
  loadContract,
  recordKinds,
  withValueAt,
  type BodyMember,
  type Operation,
} from '../contract/index.ts';
import type { Fixtures } from '../targets/target.ts';

export type Document = Record<string, unknown>;

/**
 * Stand-ins for fixtures a target did not name, in documents that are rejected anyway: a
 * well-formed ObjectId that names no record.
 */
export const PLACEHOLDER_FIXTURES: Fixtures = Object.fromEntries(
  recordKinds(loadContract().operations).map((kind) => [kind, '000000000000000000000000']),
);

const ATTRIBUTES = '/data/attributes';

/**
 * The body members a target's fixtures fill, with the fixture each takes: members naming a record
 * that must exist for a creation to succeed (`x-record` in the contract; docs/certification.md §5).
 */
export function fixtureMembers(operation: Operation): [pointer: string, fixture: keyof Fixtures][] {
  return bodyMembers(operation).flatMap((m) => (m.record === undefined ? [] : [[m.pointer, m.record]]));
}

/** The fixtures a complete document of this operation refers to that the target did not name. */
export function missingFixtures(operation: Operation, fixtures: Fixtures): (keyof Fixtures)[] {
  return fixtureMembers(operation)
    .filter(([, key]) => fixtures[key] === undefined)
    .map(([, key]) => key);
}

/**
 * Every attribute with a value of its type (the values the specification shows, where it shows
 * some), the resource type, and the relationships whose records `fixtures` names. Free strings
 * carry `tag`, so two documents with different tags never collide (e.g. on a unique customId).
 */
export function completeDocument(operation: Operation, fixtures: Fixtures, tag: string): Document {
  const available = fixtureMembers(operation)
    .filter(([, key]) => fixtures[key] !== undefined)
    .map(([pointer]) => pointer);
  // A required member naming a record the target did not name holds a stand-in (the document stays
  // valid; missingFixtures says which, and a case meant to be served is not run without it).
  const namesMissingRecord = (member: BodyMember) =>
    member.record !== undefined && !member.required && !available.includes(member.pointer);
  const wanted = (member: BodyMember) =>
    !namesMissingRecord(member) &&
    (member.required ||
      member.pointer === ATTRIBUTES ||
      member.pointer.startsWith(`${ATTRIBUTES}/`) ||
      available.some((p) => p === member.pointer || p.startsWith(`${member.pointer}/`)));
  return buildDocument(operation, wanted, (member) => sampleValue(member, fixtures, tag));
}

/**
 * Only the required members: the smallest document the schema accepts. A required member naming a
 * record (`x-record`) holds the target's record of its kind, a stand-in where the target named none
 * (requiredFixturesMissing says which: a case that means the document to be served does not send it then).
 */
export function minimalDocument(operation: Operation, fixtures: Fixtures, tag: string): Document {
  return buildDocument(
    operation,
    (member) => member.required,
    (member) => sampleValue(member, { ...PLACEHOLDER_FIXTURES, ...fixtures }, tag),
  );
}

/** The fixtures the minimal document refers to (its required `x-record` members) that the target did not name. */
export function requiredFixturesMissing(operation: Operation, fixtures: Fixtures): (keyof Fixtures)[] {
  const minimal = minimalDocument(operation, PLACEHOLDER_FIXTURES, 'required');
  return fixtureMembers(operation)
    .filter(([pointer, key]) => fixtures[key] === undefined && hasValueAt(minimal, pointer))
    .map(([, key]) => key);
}

/** The complete document with placeholder records where the target named none: for cases the target must reject. */
export function rejectionBase(operation: Operation, fixtures: Fixtures, tag: string): Document {
  return completeDocument(operation, { ...PLACEHOLDER_FIXTURES, ...fixtures }, tag);
}

/** Walks the members parent-first, keeping a member when its parent was kept and `wanted` says so. */
function buildDocument(
  operation: Operation,
  wanted: (member: BodyMember) => boolean,
  value: (member: BodyMember) => unknown,
): Document {
  const kept = new Set<string>(['']);
  let document: Document = {};
  for (const member of bodyMembers(operation)) {
    if (!kept.has(parentOf(member.pointer)) || !wanted(member)) continue;
    kept.add(member.pointer);
    document = withValueAt(document, member.pointer, value(member)) as Document;
  }
  return document;
}

function parentOf(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}

function sampleValue(member: BodyMember, fixtures: Fixtures, tag: string): unknown {
  const fixture = member.record;
  if (fixture) return fixtures[fixture] ?? PLACEHOLDER_FIXTURES[fixture];
  if (member.const !== undefined) return member.const;
  // Allowed values are not shown for these members (section 2.3): only the values seen are sent.
  if (member.valuesSeen?.length) return member.valuesSeen[0];
  if (member.enum?.length) return member.enum[0];
  const name = member.pointer.slice(member.pointer.lastIndexOf('/') + 1);
  const samples: Record<string, unknown> = {
    object: {},
    array: [],
    string: `${name} ${tag}`,
    number: 1,
    boolean: true,
    null: null,
  };
  return samples[member.types[0]];
}
