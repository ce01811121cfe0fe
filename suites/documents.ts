// Request documents built from the contract's schemas, not written by hand: the complete one
// fills every attribute (and the relationships the target's fixtures allow), the minimal one only
// what is required. A new schema member shows up in the complete document, and so in every case
// derived from it.
import { bodyMembers, withValueAt, type BodyMember, type Operation } from '../contract/index.ts';
import type { Fixtures } from '../targets/target.ts';

export type Document = Record<string, unknown>;

/** The body members a target's fixtures fill: records that must exist for a creation to succeed (docs/certification.md §5). */
export const FIXTURE_MEMBERS: Record<string, keyof Fixtures> = {
  '/data/attributes/collectionItemId': 'collectionItemId',
  '/data/relationships/owner/data/id': 'ownerUserId',
};

/**
 * Stand-ins for fixtures a target did not name, in documents that are rejected anyway: a
 * well-formed ObjectId that names no record.
 */
export const PLACEHOLDER_FIXTURES: Required<Fixtures> = {
  ownerUserId: '000000000000000000000000',
  collectionItemId: '000000000000000000000000',
};

const ATTRIBUTES = '/data/attributes';

/** The fixture members of an operation's body, with the fixture each takes. */
export function fixtureMembers(operation: Operation): [pointer: string, fixture: keyof Fixtures][] {
  const pointers = new Set(bodyMembers(operation).map((m) => m.pointer));
  return Object.entries(FIXTURE_MEMBERS).filter(([pointer]) => pointers.has(pointer));
}

/** The fixtures a complete document of this operation refers to that the target did not name. */
export function missingFixtures(operation: Operation, fixtures: Fixtures): (keyof Fixtures)[] {
  return fixtureMembers(operation).filter(([, key]) => fixtures[key] === undefined).map(([, key]) => key);
}

/**
 * Every attribute with a value of its type (the values the specification shows, where it shows
 * some), the resource type, and the relationships whose records `fixtures` names. Free strings
 * carry `tag`, so two documents with different tags never collide (e.g. on a unique customId).
 */
export function completeDocument(operation: Operation, fixtures: Fixtures, tag: string): Document {
  const available = fixtureMembers(operation).filter(([, key]) => fixtures[key] !== undefined).map(([pointer]) => pointer);
  const namesMissingRecord = (member: BodyMember) => member.pointer in FIXTURE_MEMBERS && !available.includes(member.pointer);
  const wanted = (member: BodyMember) =>
    !namesMissingRecord(member) &&
    (member.required || member.pointer === ATTRIBUTES || member.pointer.startsWith(`${ATTRIBUTES}/`) || available.some((p) => p === member.pointer || p.startsWith(`${member.pointer}/`)));
  return buildDocument(operation, wanted, (member) => sampleValue(member, fixtures, tag));
}

/** Only the required members: the smallest document the schema accepts. */
export function minimalDocument(operation: Operation, tag: string): Document {
  return buildDocument(operation, (member) => member.required, (member) => sampleValue(member, {}, tag));
}

/** The complete document with placeholder records where the target named none: for cases the target must reject. */
export function rejectionBase(operation: Operation, fixtures: Fixtures, tag: string): Document {
  return completeDocument(operation, { ...PLACEHOLDER_FIXTURES, ...fixtures }, tag);
}

/** Walks the members parent-first, keeping a member when its parent was kept and `wanted` says so. */
function buildDocument(operation: Operation, wanted: (member: BodyMember) => boolean, value: (member: BodyMember) => unknown): Document {
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
  const fixture = FIXTURE_MEMBERS[member.pointer];
  if (fixture && fixtures[fixture] !== undefined) return fixtures[fixture];
  if (member.const !== undefined) return member.const;
  // Allowed values are not shown for these members (section 2.3): only the values seen are sent.
  if (member.valuesSeen?.length) return member.valuesSeen[0];
  if (member.enum?.length) return member.enum[0];
  const name = member.pointer.slice(member.pointer.lastIndexOf('/') + 1);
  const samples: Record<string, unknown> = { object: {}, array: [], string: `${name} ${tag}`, number: 1, boolean: true, null: null };
  return samples[member.types[0]];
}
