// The boundary phase's inputs: drawn from the contract the same way for the same seed, each class
// of value at each place it applies to, and the page limits and offsets a total gives.
import { describe, expect, it } from 'vitest';
import { bodyMembers, parseQuery, recordKinds, recordMembers, type Operation } from '../../contract/index.ts';
import { contract, create, creates, describeWith, itWith, list, listQuery } from '../../contract/test-support.ts';
import {
  contractBoundaries,
  isPaged,
  MANY_ITEMS,
  numberTexts,
  pageBoundaries,
  STRING_CLASSES,
  totalOf,
  walkLimits,
  walkOffsets,
} from './boundary.ts';

/** The members of a sent document these tests read. */
interface SentDocument {
  data: {
    type: string;
    attributes: Record<string, unknown>;
    relationships: Record<string, { meta: Record<string, unknown>; data: { id: string } }>;
  };
}

/** The document an input sends. */
const documentOf = (input: { bodyText?: string }) => JSON.parse(input.bodyText!) as SentDocument;

/** An id for each kind of record the contract names. */
const fixtures = Object.fromEntries(
  recordKinds(contract.operations).map((kind, i) => [kind, `6553f100c0ffee00000000${String(i + 1).padStart(2, '0')}`]),
);
const ATTRIBUTE = /^\/data\/attributes\/([^/]+)$/;
/** The attributes of a create that take any string: no fixed values, no record. */
const freeStrings = (create: Operation) =>
  bodyMembers(create)
    .filter((m) => ATTRIBUTE.test(m.pointer) && m.types.join() === 'string' && !m.enum && !m.const && !m.record)
    .map((m) => ATTRIBUTE.exec(m.pointer)![1]);
/** The name of a create's first relationship whose `data` may be null, if it has one. */
const nullableRelationship = (create: Operation) =>
  bodyMembers(create)
    .filter((m) => m.types.includes('null'))
    .map((m) => /^\/data\/relationships\/([^/]+)\/data$/.exec(m.pointer)?.[1])
    .find((name) => name !== undefined);
/** A create with a relationship whose `data` may be null and two attributes taking any string, if any. */
const createWithRelationship = creates.find((o) => nullableRelationship(o) !== undefined && freeStrings(o).length >= 2);
/** A create with an array attribute, if the contract holds one. */
const createWithArray = creates.find((o) =>
  bodyMembers(o).some((m) => ATTRIBUTE.test(m.pointer) && m.types.join() === 'array'),
);
/** The value at `pointer` of `document`. */
const valueAt = (document: unknown, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token], document);
/** The list's first required query member, as a pointer (`/filter/type`), and the first value it takes. */
function requiredMember(list: Operation): { pointer: string; name: string; value: string } {
  const [name, value] = listQuery(list).split('&')[0].split('=');
  return { pointer: `/${name.replace(/\[/g, '/').replace(/\]/g, '')}`, name, value };
}

describe('pages from a total', () => {
  const cases = [
    { total: 27, limits: [1, 2, 3, 4, 9, 10, 27] },
    { total: 12, limits: [1, 2, 3, 4, 5, 6, 7, 12, 13] },
    { total: 1, limits: [1, 2] },
    { total: 0, limits: [1] },
  ];
  for (const { total, limits } of cases) {
    it(`a total of ${total}: limits 1, the total, each small divisor and one past it`, () => {
      expect(walkLimits(total)).toEqual(limits);
    });
  }

  it('a walk visits every page and the first past the end; a long one only its ends', () => {
    expect(walkOffsets(27, 9)).toEqual([0, 9, 18, 27]);
    expect(walkOffsets(27, 10)).toEqual([0, 10, 20, 30]);
    expect(walkOffsets(1000, 1)).toEqual([0, 1, 2, 998, 999, 1000]);
  });

  it('the total is read from meta.total of a list answer', () => {
    expect(totalOf({ data: [], meta: { total: 27 } })).toBe(27);
    expect(totalOf({ data: [] })).toBeUndefined();
    expect(totalOf({ errors: [] })).toBeUndefined();
  });

  itWith(create, 'create')('a create is not paged', (create) => {
    expect(isPaged(create)).toBe(false);
  });
});

describeWith(list, 'list')('pages of a list', (list) => {
  it('a list is paged', () => {
    expect(isPaged(list)).toBe(true);
  });

  it('offsets around the end again with an include: the page arithmetic holds whatever it means', () => {
    const withInclude = pageBoundaries(list, 27).filter((input) => input.query!.includes('&include='));
    expect(withInclude.map((input) => parseQuery(list, input.query!).page)).toContainEqual({ limit: 1, offset: 27 });
  });

  it('offsets 0, total - 1, total and total + 1 at limits 1 and the total, then the walks', () => {
    const queries = pageBoundaries(list, 27).map((input) => parseQuery(list, input.query!).page);
    for (const offset of [0, 26, 27, 28])
      for (const limit of [1, 27]) expect(queries).toContainEqual({ limit, offset });
    expect(queries).toContainEqual({ limit: 9, offset: 18 });
    expect(queries).toContainEqual({ limit: 10, offset: 30 });
  });
});

describe('boundaries from the contract', () => {
  it('numbers: the valid ends (2^53 - 1 with no maximum shown), one past each, 0, -1, -0, 2^31 - 1, 2^32', () => {
    const wide = [String(2 ** 31 - 1), String(2 ** 31), String(2 ** 32), '-1', '-0', '0'];
    expect(numberTexts({ type: 'number', minimum: 1 })).toEqual(
      expect.arrayContaining(['1', '0', '9007199254740991', '9007199254740992', ...wide, '1e1', '1E1']),
    );
    expect(numberTexts({ type: 'number', minimum: 0, maximum: 5 })).toEqual(
      expect.arrayContaining(['0', '-1', '5', '6']),
    );
    expect(numberTexts({ type: 'number' })).toEqual(
      expect.arrayContaining(['-9007199254740991', '-9007199254740992', '9007199254740991', '9007199254740992']),
    );
  });

  itWith(list, 'list')(
    'fixed values in the query: one outside them per Unicode class, percent-encoded UTF-8',
    (list) => {
      const member = requiredMember(list);
      const filters = contractBoundaries(list, {}).filter((input) =>
        input.boundary.startsWith(`${member.pointer}: outside the allowed values`),
      );
      expect(filters.map((input) => input.query)).toContainEqual(
        expect.stringContaining(`${member.name}=${member.value}caf%C3%A9`),
      );
      expect(filters.length).toBeGreaterThanOrEqual(5);
    },
  );

  itWith(create, 'create')('fixed values in a body: one outside them per Unicode class', (create) => {
    const types = contractBoundaries(create, fixtures).filter((input) =>
      input.boundary.startsWith('/data/type: outside the allowed values'),
    );
    expect(types.map((input) => documentOf(input).data.type)).toContainEqual(
      `${create.resourceType}\u{1F600}\u{1D11E}\u{20000}`,
    );
  });

  itWith(list, 'list')('each invalidating change of a query: a member removed, a member of another type', (list) => {
    expect(contractBoundaries(list, {}).map((input) => input.boundary)).toEqual(
      expect.arrayContaining([
        `${requiredMember(list).pointer}: a required member removed`,
        '/page/limit: a string where the schema wants another type',
      ]),
    );
  });

  itWith(create, 'create')('draws no random choice: the inputs take no seed, and two calls give the same', (create) => {
    const sent = () => contractBoundaries(create, fixtures).map(({ boundary, bodyText }) => ({ boundary, bodyText }));
    expect(contractBoundaries.length).toBe(2);
    expect(sent()).toEqual(sent());
  });

  itWith(createWithArray, 'create with an array attribute')(
    'an array without uniqueItems: two equal items, none, many; a long list and a long string shrink to shorter ones',
    (create) => {
      const array = bodyMembers(create).find((m) => ATTRIBUTE.test(m.pointer) && m.types.join() === 'array')!;
      const name = ATTRIBUTE.exec(array.pointer)![1];
      const options = contractBoundaries(create, fixtures).filter((input) =>
        new RegExp(`^${array.pointer}: (two equal items|empty|\\d+ items)$`).test(input.boundary),
      );
      const arrays = options.map((input) => documentOf(input).data.attributes[name] as unknown[]);
      expect(arrays.map((l) => l.length)).toEqual([2, 0, MANY_ITEMS]);
      expect(arrays[0][0]).toEqual(arrays[0][1]);
      expect(
        options[2].smaller!().map((input) => (documentOf(input).data.attributes[name] as unknown[]).length),
      ).toEqual([1, 2, 5, 10, 20]);
    },
  );
});

describeWith(createWithRelationship, 'create with a nullable relationship and free strings')(
  'boundaries of a document with relationships',
  (create) => {
    const relationship = nullableRelationship(create)!;
    const [first, second] = freeStrings(create);

    it('each invalidating change, each alternative of a place, and the smallest document member by member', () => {
      expect(contractBoundaries(create, {}).map((input) => input.boundary)).toEqual(
        expect.arrayContaining([
          '/data: a required member removed',
          `/data/relationships/${relationship}/data: a null`,
          'the smallest document',
          'the smallest document and /data/attributes',
        ]),
      );
    });

    it('every string place gets every Unicode class and a very long string at once, shrinking to one place of an otherwise complete document', () => {
      const inputs = contractBoundaries(create, fixtures).filter((input) =>
        input.boundary.startsWith('every string: '),
      );
      for (const { name, text } of STRING_CLASSES)
        expect(
          inputs.map((input) => documentOf(input).data.attributes),
          name,
        ).toContainEqual(expect.objectContaining(Object.fromEntries(freeStrings(create).map((a) => [a, text]))));
      expect(inputs.some((input) => (documentOf(input).data.attributes[first] as string).length > 4096)).toBe(true);
      const astral = inputs.find((input) => input.boundary === 'every string: astral')!;
      const firstOnly = astral.smaller!().find((input) => input.boundary === `/data/attributes/${first}: astral`)!;
      expect(documentOf(firstOnly).data.attributes).toMatchObject({
        [first]: '\u{1F600}\u{1D11E}\u{20000}',
        [second]: `${second} boundary`,
      });
      // The records the document names are the fixtures', wherever it names them.
      for (const { pointer, kind } of recordMembers([create]))
        expect(valueAt(documentOf(firstOnly), pointer), pointer).toBe(fixtures[kind]);
      expect(
        firstOnly.smaller!().map((input) => [...(documentOf(input).data.attributes[first] as string)].length),
      ).toEqual([1]);
    });

    it('a free-form map: many members and odd names', () => {
      const meta = contractBoundaries(create, fixtures).filter((input) =>
        new RegExp(`^/data/relationships/${relationship}/meta: (\\d+ members|a member named)`).test(input.boundary),
      );
      const names = meta.flatMap((input) => Object.keys(documentOf(input).data.relationships[relationship].meta));
      expect(names).toEqual(expect.arrayContaining(['', ' ', '__proto__', '\u0000', 'member59']));
    });
  },
);

itWith(list, 'list')('a query: each place of its schema, within the URI length, never a lone surrogate', (list) => {
  const inputs = contractBoundaries(list, {});
  expect(
    inputs.some((input) => input.boundary.startsWith('/page/limit: ') && input.query!.includes('page[limit]=1e1')),
  ).toBe(true);
  expect(inputs.some((input) => input.boundary.startsWith('/include/0: astral'))).toBe(true);
  expect(inputs.some((input) => input.boundary.includes('lone surrogates'))).toBe(false);
});
