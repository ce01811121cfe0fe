// A target file's fixtures block is found, read and written in its place, the rest of the file
// kept byte for byte; a file of another shape is refused, never guessed at.
import { describe, expect, it } from 'vitest';
import { fixturesBlockLines, readFixturesBlock, withFixturesBlock } from './fixtures-block.ts';

const BEFORE = '# A target.\nbaseUrl: https://x.example/v3\n\n# Records that exist.\n';
const AFTER = '\n# Limits.\nlimits:\n  maxBodyMiB: 8 # a comment kept\n';
const fileWith = (block: string) => `${BEFORE}${block}${AFTER}`;

describe('a fixtures block', () => {
  it('reads its records in its order, with the comment after an id', () => {
    const text = fileWith(
      'fixtures:\n  shelfId: 6553f100c0ffee0000000002 # a shelf\n  penId: 6553f100c0ffee0000000001\n',
    );
    expect(readFixturesBlock(text, 't.yaml')).toEqual([
      { kind: 'shelfId', id: '6553f100c0ffee0000000002', comment: 'a shelf' },
      { kind: 'penId', id: '6553f100c0ffee0000000001' },
    ]);
  });

  it('is written in its place, every other line as it was', () => {
    const text = fileWith('fixtures:\n  shelfId: 6553f100c0ffee0000000002\n');
    const written = withFixturesBlock(text, 't.yaml', [
      { kind: 'penId', id: '6553f100c0ffee0000000001', comment: 'an existing pen' },
      { kind: 'inkId', id: '6553f100c0ffee0000000003' },
    ]);
    expect(written).toBe(
      fileWith('fixtures:\n  penId: 6553f100c0ffee0000000001 # an existing pen\n  inkId: 6553f100c0ffee0000000003\n'),
    );
  });

  it('gives no records as "fixtures: {}", which reads as none and is written over again', () => {
    expect(fixturesBlockLines([])).toEqual(['fixtures: {}']);
    const none = withFixturesBlock(fileWith('fixtures:\n  shelfId: 6553f100c0ffee0000000002\n'), 't.yaml', []);
    expect(none).toBe(fileWith('fixtures: {}\n'));
    expect(readFixturesBlock(none, 't.yaml')).toEqual([]);
    expect(withFixturesBlock(none, 't.yaml', [{ kind: 'penId', id: '6553f100c0ffee0000000001' }])).toBe(
      fileWith('fixtures:\n  penId: 6553f100c0ffee0000000001\n'),
    );
  });

  const refused: { title: string; text: string; message: string }[] = [
    {
      title: 'a file without one',
      text: fileWith('# fixtures:\n#   penId: 6553f100c0ffee0000000001\n'),
      message: 't.yaml: 0 lines start with "fixtures:"; the records are written under one',
    },
    {
      title: 'a file with two',
      text: fileWith('fixtures:\n  penId: a1\nfixtures: {}\n'),
      message: 't.yaml: 2 lines start with "fixtures:"; the records are written under one',
    },
    {
      title: 'records written on the key line',
      text: fileWith('fixtures: { penId: a1 }\n'),
      message: 't.yaml: line 5 is not "fixtures:" (nor "fixtures: {}", for none) on its own',
    },
    {
      title: 'a line under the key that is no record',
      text: fileWith('fixtures:\n  penId: a1\n  # inkId: a2\n'),
      message: 't.yaml: line 7 of its fixtures block is not "  kind: id" (a comment after it allowed)',
    },
    {
      title: 'a record nested deeper',
      text: fileWith('fixtures:\n    penId: a1\n'),
      message: 't.yaml: line 6 of its fixtures block is not "  kind: id" (a comment after it allowed)',
    },
    {
      title: 'an id YAML reads otherwise than written',
      text: fileWith("fixtures:\n  penId: '6553f100c0ffee0000000001'\n"),
      message: 't.yaml: its fixtures block does not read as YAML as the records its lines name',
    },
    {
      title: 'records past a blank line under the block',
      text: fileWith('fixtures:\n  penId: a1\n\n  inkId: a2\n'),
      message: 't.yaml: its fixtures block does not read as YAML as the records its lines name',
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.title}, naming the file`, () => {
      expect(() => readFixturesBlock(c.text, 't.yaml')).toThrow(c.message);
      expect(() => withFixturesBlock(c.text, 't.yaml', [])).toThrow(c.message);
    });
  }

  it('is not written with an id YAML would read as another value', () => {
    const text = fileWith('fixtures:\n  penId: a1\n');
    expect(() => withFixturesBlock(text, 't.yaml', [{ kind: 'penId', id: '12' }])).toThrow(
      't.yaml: the fixtures block written does not read as YAML as the records its lines name',
    );
  });
});
