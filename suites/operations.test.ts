// The level a generated negative case answers to comes from the catalogue, not from the suite: a
// wrong-type member fails a server that serves it only where the specification makes refusing it
// the server's duty (`data`, its type, the attributes, the Highlight owner's `data`); serving any
// other wrong-type member (a relationship's links or meta, another relationship) only warns.
import { describe, expect, it } from 'vitest';
import { bodyMembers, SAMPLE_OF_TYPE, withValueAt, wrongTypes } from '../contract/index.ts';
import { rejectionBase } from './documents.ts';
import { brokenRequirements, contract, createOperations } from './operations.ts';

/** Where the specification puts a duty on the server to refuse a member of the wrong type. */
const SERVER_DUTY = [/^\/data$/, /^\/data\/type$/, /^\/data\/attributes(\/.*)?$/, /^\/data\/relationships\/owner\/data(\/.*)?$/];

describe('generated type-mismatch cases', () => {
  for (const operation of createOperations) {
    for (const member of bodyMembers(operation)) {
      const duty = SERVER_DUTY.some((pattern) => pattern.test(member.pointer));
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

  it('include relationship members the specification gives a server no duty for', () => {
    const warnOnly = createOperations.flatMap((o) => bodyMembers(o)).filter((m) => !SERVER_DUTY.some((pattern) => pattern.test(m.pointer)));
    expect(warnOnly.map((m) => m.pointer)).toEqual(expect.arrayContaining(['/data/relationships/owner/links', '/data/relationships/owner/links/self', '/data/relationships/owner/meta']));
  });
});
