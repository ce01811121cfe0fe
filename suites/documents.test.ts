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

const contract = loadContract();
const creates = contract.operations.filter((o) => o.requestBody !== undefined);
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

  it('puts the fixtures where the records are named and leaves them out when the target has none', () => {
    const highlight = contract.operation('createHighlight');
    const withFixtures = completeDocument(highlight, fixtures, 'a') as {
      data: { attributes: Record<string, unknown>; relationships?: unknown };
    };
    expect(withFixtures.data.attributes.collectionItemId).toBe(fixtures.collectionItemId);
    expect(withFixtures.data.relationships).toEqual({ owner: { data: { id: fixtures.ownerUserId, type: 'User' } } });
    const without = completeDocument(highlight, {}, 'a') as {
      data: { attributes: Record<string, unknown>; relationships?: unknown };
    };
    expect(without.data.attributes).not.toHaveProperty('collectionItemId');
    expect(without.data).not.toHaveProperty('relationships');
    expect(missingFixtures(highlight, {})).toEqual(['collectionItemId', 'ownerUserId']);
    expect(missingFixtures(contract.operation('createAttributeConfig'), {})).toEqual([]);
    expect(fixtureMembers(contract.operation('createAttributeConfig'))).toEqual([]);
  });

  it('sends only the values the specification shows for members whose allowed values are not shown', () => {
    const attributes = (
      completeDocument(contract.operation('createAttributeConfig'), {}, 'a') as {
        data: { attributes: Record<string, unknown> };
      }
    ).data.attributes;
    expect(attributes).toMatchObject({
      target: 'User',
      type: 'boolean',
      settings: { link: { clickBehavior: 'newWindow' } },
    });
  });
});
