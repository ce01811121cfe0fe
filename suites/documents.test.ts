import { describe, expect, it } from 'vitest';
import {
  bodyMembers,
  loadContract,
  MEDIA_TYPE,
  recordKinds,
  resolvePointer,
  validateRequest,
  type Operation,
} from '../contract/index.ts';
import { completeDocument, fixtureMembers, minimalDocument, missingFixtures, rejectionBase } from './documents.ts';
import { createWithoutRecord, createWithRecord, creates, itWith } from '../contract/test-support.ts';

const contract = loadContract();
/** A create with a member of values seen in the specification, its full set not shown. */
const showingSome = creates.find((o) => bodyMembers(o).some((m) => m.valuesSeen !== undefined));
/** An id for each kind of record the contract names, none of them a stand-in. */
const fixtures = Object.fromEntries(
  recordKinds(contract.operations).map((kind, index) => [kind, `6553f100c0ffee${String(index + 1).padStart(10, '0')}`]),
);

function requestFindings(operation: Operation, document: unknown) {
  return validateRequest(contract, operation, {
    method: 'POST',
    path: `/v3${operation.pathTemplate}`,
    headers: { authorization: 'Bearer r:t', 'content-type': MEDIA_TYPE },
    bodyText: JSON.stringify(document),
  });
}

function pointersOf(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([key, child]) => pointersOf(child, `${prefix}/${key}`))];
}

describe('request documents built from the schemas', () => {
  for (const operation of creates) {
    const builds: [string, unknown][] = [
      ['complete, with fixtures', completeDocument(operation, fixtures, 'a')],
      ['complete, without fixtures', completeDocument(operation, {}, 'a')],
      ['minimal', minimalDocument(operation, fixtures, 'a')],
      ['the rejection base', rejectionBase(operation, {}, 'a')],
    ];
    for (const [name, document] of builds) {
      it(`${operation.operationId}: the ${name} document is one the contract accepts`, () => {
        expect(requestFindings(operation, document)).toEqual([]);
      });
    }

    it(`${operation.operationId}: the complete document holds every attribute member of the schema`, () => {
      const attributes = bodyMembers(operation)
        .map((m) => m.pointer)
        .filter((p) => p.startsWith('/data/attributes'));
      expect(pointersOf(completeDocument(operation, fixtures, 'a'))).toEqual(expect.arrayContaining(attributes));
    });

    it(`${operation.operationId}: different tags give documents that differ in every free string`, () => {
      const [one, two] = ['one', 'two'].map((tag) => completeDocument(operation, fixtures, tag));
      const present = pointersOf(one);
      const free = bodyMembers(operation).filter(
        (m) =>
          m.types[0] === 'string' &&
          m.const === undefined &&
          !m.enum &&
          !m.valuesSeen &&
          m.record === undefined &&
          present.includes(m.pointer),
      );
      expect(free.length).toBeGreaterThan(0);
      for (const member of free)
        expect(resolvePointer(one, member.pointer), member.pointer).not.toEqual(resolvePointer(two, member.pointer));
    });
  }

  itWith(createWithRecord, 'create naming a record')(
    'puts the fixtures where the records are named and leaves them out when the target has none',
    (operation) => {
      const named = fixtureMembers(operation);
      const withFixtures = completeDocument(operation, fixtures, 'a');
      for (const [pointer, fixture] of named)
        expect(resolvePointer(withFixtures, pointer), pointer).toBe(fixtures[fixture]);
      const without = completeDocument(operation, {}, 'a');
      // A relationship naming a record is left out whole, an attribute alone.
      const leftOut = (pointer: string) => /^\/data\/relationships\/[^/]+/.exec(pointer)?.[0] ?? pointer;
      for (const [pointer] of named)
        expect(() => resolvePointer(without, leftOut(pointer)), pointer).toThrow(/no member/);
      expect(missingFixtures(operation, {})).toEqual([...new Set(named.map(([, fixture]) => fixture))]);
    },
  );

  itWith(createWithoutRecord, 'create naming no record')(
    'needs no fixture for a create naming no record',
    (operation) => {
      expect(missingFixtures(operation, {})).toEqual([]);
      expect(fixtureMembers(operation)).toEqual([]);
    },
  );

  itWith(showingSome, 'create with a member of values seen')(
    'sends only the values the specification shows for members whose allowed values are not shown',
    (operation) => {
      const document = completeDocument(operation, {}, 'a');
      const seen = bodyMembers(operation).filter((m) => m.valuesSeen !== undefined);
      for (const member of seen)
        expect(member.valuesSeen, member.pointer).toContainEqual(resolvePointer(document, member.pointer));
    },
  );
});
