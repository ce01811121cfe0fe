// The boundary phase's inputs: drawn from the contract the same way for the same seed, each class
// of value at each place it applies to, and the page limits and offsets a total gives.
import { describe, expect, it } from 'vitest';
import { loadContract, parseQuery } from '../../contract/index.ts';
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
    attributes: { color: string; options: unknown[] };
    relationships: { owner: { meta: Record<string, unknown> } };
  };
}

/** The document an input sends. */
const documentOf = (input: { bodyText?: string }) => JSON.parse(input.bodyText!) as SentDocument;

const contract = loadContract();
const list = contract.operation('listNotificationGroups');
const attributeConfig = contract.operation('createAttributeConfig');
const highlight = contract.operation('createHighlight');
const fixtures = { ownerUserId: '6553f100c0ffee0000000001', collectionItemId: '6553f100c0ffee0000000002' };

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

  it('the total is read from meta.total of a list answer', () => {
    expect(totalOf({ data: [], meta: { total: 27 } })).toBe(27);
    expect(totalOf({ data: [] })).toBeUndefined();
    expect(totalOf({ errors: [] })).toBeUndefined();
    expect(isPaged(list)).toBe(true);
    expect(isPaged(highlight)).toBe(false);
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

  it('fixed values: one outside them per Unicode class, percent-encoded UTF-8 in the query, and in bodies', () => {
    const filters = contractBoundaries(list, {}).filter((input) =>
      input.boundary.startsWith('/filter/type: outside the allowed values'),
    );
    expect(filters.map((input) => input.query)).toContainEqual(expect.stringContaining('filter[type]=portalcaf%C3%A9'));
    expect(filters.length).toBeGreaterThanOrEqual(5);
    const types = contractBoundaries(highlight, fixtures).filter((input) =>
      input.boundary.startsWith('/data/type: outside the allowed values'),
    );
    expect(types.map((input) => documentOf(input).data.type)).toContainEqual('Highlight\u{1F600}\u{1D11E}\u{20000}');
  });

  it('each invalidating change, each alternative of a place, and the smallest document member by member', () => {
    const boundaries = contractBoundaries(highlight, {}).map((input) => input.boundary);
    expect(boundaries).toEqual(
      expect.arrayContaining([
        '/data: a required member removed',
        '/data/relationships/owner/data: a null',
        'the smallest document',
        'the smallest document and /data/attributes',
      ]),
    );
    expect(contractBoundaries(list, {}).map((input) => input.boundary)).toEqual(
      expect.arrayContaining([
        '/filter/type: a required member removed',
        '/page/limit: a string where the schema wants another type',
      ]),
    );
  });

  it('draws no random choice: the inputs take no seed, and two calls give the same', () => {
    const sent = () =>
      contractBoundaries(highlight, fixtures).map(({ boundary, bodyText }) => ({ boundary, bodyText }));
    expect(contractBoundaries.length).toBe(2);
    expect(sent()).toEqual(sent());
  });

  it('every string place gets every Unicode class and a very long string at once, shrinking to one place of an otherwise complete document', () => {
    const inputs = contractBoundaries(highlight, fixtures).filter((input) =>
      input.boundary.startsWith('every string: '),
    );
    for (const { name, text } of STRING_CLASSES)
      expect(
        inputs.map((input) => documentOf(input).data.attributes),
        name,
      ).toContainEqual(expect.objectContaining({ color: text, summary: text }));
    expect(inputs.some((input) => documentOf(input).data.attributes.color.length > 4096)).toBe(true);
    const astral = inputs.find((input) => input.boundary === 'every string: astral')!;
    const colorOnly = astral.smaller!().find((input) => input.boundary === '/data/attributes/color: astral')!;
    expect(documentOf(colorOnly).data).toMatchObject({
      attributes: { color: '\u{1F600}\u{1D11E}\u{20000}', range: 'range boundary' },
      relationships: { owner: { data: { id: fixtures.ownerUserId } } },
    });
    expect(colorOnly.smaller!().map((input) => [...documentOf(input).data.attributes.color].length)).toEqual([1]);
  });

  it('an array without uniqueItems: two equal items, none, many; a long list and a long string shrink to shorter ones', () => {
    const options = contractBoundaries(attributeConfig, fixtures).filter((input) =>
      /^\/data\/attributes\/options: (two equal items|empty|\d+ items)$/.test(input.boundary),
    );
    const lists = options.map((input) => documentOf(input).data.attributes.options);
    expect(lists.map((l) => l.length)).toEqual([2, 0, MANY_ITEMS]);
    expect(lists[0][0]).toEqual(lists[0][1]);
    expect(options[2].smaller!().map((input) => documentOf(input).data.attributes.options.length)).toEqual([
      1, 2, 5, 10, 20,
    ]);
  });

  it('a free-form map: many members and odd names', () => {
    const meta = contractBoundaries(highlight, fixtures).filter((input) =>
      /^\/data\/relationships\/owner\/meta: (\d+ members|a member named)/.test(input.boundary),
    );
    const names = meta.flatMap((input) => Object.keys(documentOf(input).data.relationships.owner.meta));
    expect(names).toEqual(expect.arrayContaining(['', ' ', '__proto__', '\u0000', 'member59']));
  });

  it('a query: each place of its schema, within the URI length, never a lone surrogate', () => {
    const inputs = contractBoundaries(list, {});
    expect(
      inputs.some((input) => input.boundary.startsWith('/page/limit: ') && input.query!.includes('page[limit]=1e1')),
    ).toBe(true);
    expect(inputs.some((input) => input.boundary.startsWith('/include/0: astral'))).toBe(true);
    expect(inputs.some((input) => input.boundary.includes('lone surrogates'))).toBe(false);
  });
});
