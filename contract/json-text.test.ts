// The readings of a JSON text: the first byte that is not UTF-8, as a strict decoder finds it; a
// repeated member name, with or without the quick count, as the full scan finds it; whole numbers
// written with a fraction or exponent, at their pointers and nowhere else.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  firstInvalidUtf8,
  memberNameReading,
  repeatedMemberName,
  utf8Reading,
  utf8Text,
  wholeNumbersWithFraction,
} from './json-text.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);

/** Where a strict decoder first fails: the longest prefix it decodes whole. */
function strictDecoderStop(input: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let low = 0;
  let high = input.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    let decodes = true;
    // A prefix that ends inside a well-formed sequence fails too: retry it with up to three bytes more.
    try {
      decoder.decode(input.subarray(0, middle));
    } catch {
      decodes = [1, 2, 3].some((more) => {
        if (middle + more > input.length) return false;
        try {
          decoder.decode(input.subarray(0, middle + more));
          return true;
        } catch {
          return false;
        }
      });
    }
    if (decodes) low = middle;
    else high = middle - 1;
  }
  return low;
}

describe('firstInvalidUtf8', () => {
  const cases: { name: string; input: Uint8Array; at: number }[] = [
    { name: 'ASCII', input: bytes(0x7b, 0x7d), at: 2 },
    { name: 'a two-, three- and four-byte character', input: Buffer.from('é€😀'), at: 9 },
    { name: 'a lone continuation byte', input: bytes(0x22, 0x80, 0x22), at: 1 },
    { name: 'an overlong /', input: bytes(0x22, 0xc0, 0xaf, 0x22), at: 1 },
    { name: 'an overlong three-byte form', input: bytes(0xe0, 0x80, 0x80), at: 0 },
    { name: 'a surrogate', input: bytes(0x61, 0xed, 0xa0, 0x80), at: 1 },
    { name: 'past U+10FFFF', input: bytes(0xf4, 0x90, 0x80, 0x80), at: 0 },
    { name: 'a sequence cut short by the end', input: bytes(0x61, 0xe2, 0x82), at: 1 },
    { name: 'a sequence cut short by ASCII', input: bytes(0xe2, 0x82, 0x22), at: 0 },
    { name: 'Latin-1 é', input: bytes(0x22, 0x63, 0x61, 0x66, 0xe9, 0x22), at: 4 },
  ];
  for (const c of cases)
    test(`${c.name}: ${c.at === c.input.length ? 'UTF-8' : `not from byte ${c.at}`}`, () =>
      expect(firstInvalidUtf8(c.input)).toBe(c.at));

  test('agrees with a strict decoder on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (input) => firstInvalidUtf8(input) === strictDecoderStop(input)),
      { numRuns: 3000, seed: 8259 },
    );
  });

  test('utf8Text keeps the text every client decodes and says where the bytes stop being UTF-8', () => {
    expect(utf8Text(bytes(0x22, 0xe9, 0x22))).toEqual({ text: '"\uFFFD"', utf8: { invalidAt: 1 } });
    expect(utf8Reading(Buffer.from('"\uFFFD"'))).toBe('valid');
  });
});

describe('repeatedMemberName', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(1, 'a', '":', 'a\\":b', null),
      tie('object'),
      fc.array(tie('value'), { maxLength: 3 }),
    ),
    object: fc.array(fc.tuple(fc.constantFrom('a', 'b', 'meta', '":', 'x\\"'), tie('value'), fc.boolean()), {
      maxLength: 4,
    }),
  }));
  /** An object written with its members as listed (repeats kept), a space before some colons. */
  function written(value: unknown): string {
    if (Array.isArray(value) && value.every((m) => Array.isArray(m) && m.length === 3 && typeof m[2] === 'boolean')) {
      return `{${(value as [string, unknown, boolean][]).map(([name, member, spaced]) => `${JSON.stringify(name)}${spaced ? ' ' : ''}:${written(member)}`).join(',')}}`;
    }
    if (Array.isArray(value)) return `[${value.map(written).join(',')}]`;
    return JSON.stringify(value);
  }

  test('finds what the full scan finds, whichever way the quick count goes', () => {
    fc.assert(
      fc.property(json.object, (object) => {
        const text = written(object);
        return repeatedMemberName(text, JSON.parse(text)) === memberNameReading(text).duplicate;
      }),
      { numRuns: 2000, seed: 4 },
    );
  });

  test("the report's body: meta given twice", () => {
    const text = '{"meta":"bogus","meta":{"total":1}}';
    expect(repeatedMemberName(text, JSON.parse(text))).toBe('meta');
  });
});

describe('wholeNumbersWithFraction', () => {
  const pointers = new Set(['/meta/total', '/data/0/count']);
  const cases: {
    name: string;
    text: string;
    found: { pointer: string; literal: string }[];
    at?: ReadonlySet<string>;
  }[] = [
    { name: 'plain integers', text: '{"meta":{"total":10},"data":[{"count":1}]}', found: [] },
    {
      name: 'a fraction, an exponent and a zero exponent',
      text: '{"meta":{"total":10.0},"data":[{"count":1},{"count":0e0},{"count":1E+2}]}',
      found: [
        { pointer: '/meta/total', literal: '10.0' },
        { pointer: '/data/0/count', literal: '0e0' },
        { pointer: '/data/0/count', literal: '1E+2' },
      ],
    },
    { name: 'a fraction that is not whole (the schema finds it)', text: '{"meta":{"total":1.5}}', found: [] },
    {
      name: 'a whole number with a fraction elsewhere',
      text: '{"meta":{"other":1.0,"total":1},"data":[{"count":2,"x":3e0}]}',
      found: [],
    },
    {
      name: 'numbers inside strings',
      text: '{"meta":{"total":1,"note":":1.0, [1e2"},"data":[{"count":2}]}',
      found: [],
    },
    {
      name: 'a name with an escaped quote before the member',
      text: '{"meta":{"a\\"":[1.0],"total":2.0}}',
      found: [{ pointer: '/meta/total', literal: '2.0' }],
    },
    {
      name: "the member's name spelt with a \\u escape",
      text: '{"meta":{"tot\\u0061l":3.0}}',
      found: [{ pointer: '/meta/total', literal: '3.0' }],
    },
    {
      name: 'integers as the items of an array',
      text: '{"sizes":[1,2.0],"other":[3.0]}',
      found: [{ pointer: '/sizes/0', literal: '2.0' }],
      at: new Set(['/sizes/0']),
    },
  ];
  for (const c of cases)
    test(c.name, () => expect(wholeNumbersWithFraction(c.text, c.at ?? pointers)).toEqual(c.found));

  test('finds every whole number written with a fraction, whatever digits the strings around it hold', () => {
    // Literals as written: numbers of every form, and strings holding digits before `.`, `e` and `:`.
    const literal = fc.constantFrom(
      '1',
      '10',
      '-2',
      '1.0',
      '0e0',
      '-3E+1',
      '2.5',
      '"1.0"',
      '"a1e2"',
      '"x: 1.0"',
      '"c0ffee"',
      '"v1.2"',
      '[1.0]',
      '[2,3e0]',
    );
    const member = fc.tuple(fc.constantFrom('total', 'count', 'note'), literal, fc.constantFrom('', ' ', '\n'));
    fc.assert(
      fc.property(fc.array(member, { maxLength: 6 }), (members) => {
        const text = `{"meta":{${members.map(([name, value, space], i) => `"${name}${i}":${space}${value}`).join(',')}}}`;
        const at = new Set(
          members.map(([name], i) => `/meta/${name}${i}`).concat(members.map(([name], i) => `/meta/${name}${i}/0`)),
        );
        const expected = members.flatMap(([name, value], i) => {
          const pointer = `/meta/${name}${i}`;
          if (value.startsWith('"')) return [];
          const numbers = value.startsWith('[')
            ? value
                .slice(1, -1)
                .split(',')
                .map((n) => ({ pointer: `${pointer}/0`, literal: n }))
            : [{ pointer, literal: value }];
          return numbers.filter((n) => /[.eE]/.test(n.literal) && Number.isInteger(Number(n.literal)));
        });
        expect(wholeNumbersWithFraction(text, at)).toEqual(expected);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});
