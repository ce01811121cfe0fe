// The level a generated negative case answers to comes from the catalogue, not from the suite: a
// wrong-type member fails a server that serves it only where the specification makes refusing it
// the server's duty (`data`, its type, the attributes, the owner relationship's `data`, relationships
// the contract requires); serving any other wrong-type member (a relationship's links or meta,
// another relationship) only warns.
import { describe, expect, it } from 'vitest';
import { bodyMembers, SAMPLE_OF_TYPE, withValueAt, wrongTypes, type BodyMember } from '../contract/index.ts';
import { rejectionBase } from './documents.ts';
import { itWith } from '../contract/test-support.ts';
import { brokenRequirements, contract, createOperations } from './operations.ts';

/** Where the specification puts a duty on the server to refuse a member of the wrong type. */
const SERVER_DUTY = [
  /^\/data$/,
  /^\/data\/type$/,
  /^\/data\/attributes(\/.*)?$/,
  /^\/data\/relationships\/owner\/data(\/.*)?$/,
];
const RELATIONSHIPS = '/data/relationships';
/** The members of an owner relationship the specification gives a server no duty to refuse. */
const OWNER_WITHOUT_DUTY = [
  '/data/relationships/owner/links',
  '/data/relationships/owner/links/self',
  '/data/relationships/owner/meta',
];
/** A create whose document has an owner relationship, if the contract holds one. */
const createWithOwner = createOperations.find((o) => bodyMembers(o).some((m) => m.pointer === OWNER_WITHOUT_DUTY[0]));

/**
 * Whether refusing `member` of a wrong type is the server's duty: where the specification puts one,
 * or in relationships the contract requires, each member from `relationships` down to it required.
 */
function serverDuty(members: BodyMember[], member: BodyMember): boolean {
  if (SERVER_DUTY.some((pattern) => pattern.test(member.pointer))) return true;
  if (member.pointer !== RELATIONSHIPS && !member.pointer.startsWith(`${RELATIONSHIPS}/`)) return false;
  const tokens = member.pointer.slice(RELATIONSHIPS.length).split('/').slice(1);
  const chain = [RELATIONSHIPS, ...tokens.map((_, i) => `${RELATIONSHIPS}/${tokens.slice(0, i + 1).join('/')}`)];
  return chain.every((pointer) => members.some((m) => m.pointer === pointer && m.required));
}

describe('generated type-mismatch cases', () => {
  for (const operation of createOperations) {
    const members = bodyMembers(operation);
    for (const member of members) {
      const duty = serverDuty(members, member);
      it(`${operation.operationId}: serving ${member.pointer} of a wrong type ${duty ? 'fails (MUST)' : 'only warns (SHOULD)'}`, () => {
        for (const type of wrongTypes(member)) {
          const document = withValueAt(rejectionBase(operation, {}, 'level'), member.pointer, SAMPLE_OF_TYPE[type]);
          const levels = brokenRequirements(operation, { document }).map((id) => contract.requirement(id).level);
          expect(levels, type).toEqual(levels.map(() => (duty ? 'MUST' : 'SHOULD')));
          expect(levels.length, type).toBeGreaterThan(0);
        }
      });
    }
  }

  itWith(createWithOwner, 'create whose document has an owner relationship')(
    'include relationship members the specification gives a server no duty for',
    (create) => {
      const warnOnly = bodyMembers(create).filter((m) => !serverDuty(bodyMembers(create), m));
      expect(warnOnly.map((m) => m.pointer)).toEqual(expect.arrayContaining(OWNER_WITHOUT_DUTY));
    },
  );
});
