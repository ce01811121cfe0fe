// A shipped target file's fixtures follow the contract by the file's rule: the reference server's
// records for the annotated example, ids of the file's own kept for the README's examples, a new
// kind taking the next one. The shipped files themselves are compared with what
// `npm run targets:settings` writes in targets/settings.test.ts.
import { describe, expect, it } from 'vitest';
import { recordKindLabel, recordKinds } from '../contract/index.ts';
import { contract, createWithRecord, itWith } from '../contract/test-support.ts';
import { referenceRecordId } from '../server/defaults.ts';
import { fixturesBlockLines, readFixturesBlock } from './fixtures-block.ts';
import { recordComment, shippedTargetFileText, type ShippedTargetFile } from './shipped-target-files.ts';

const kinds = recordKinds(contract.operations);
const ownIds: ShippedTargetFile = {
  path: 'own.yaml',
  ids: { first: '6553f100c0ffee00000000b1' },
  describesRecords: false,
};
const referenceIds: ShippedTargetFile = { path: 'example.yaml', ids: 'reference server', describesRecords: true };
/** A kind no contract names. */
const GONE = 'zzGoneRecordId';

const fileGiving = (records: [string, string][]) =>
  [
    '# Records.',
    ...fixturesBlockLines(records.map(([kind, id]) => ({ kind, id }))),
    '',
    'generate:',
    '  inputs: 5',
    '',
  ].join('\n');
const recordsOf = (file: ShippedTargetFile, text: string) =>
  readFixturesBlock(shippedTargetFileText(file, text, referenceRecordId), file.path);
/** The id `steps` after 6553f100c0ffee00000000b1. */
const ownId = (steps: number) => `6553f100c0ffee00000000${(0xb1 + steps).toString(16)}`;
const needsKinds = itWith(createWithRecord, 'create naming a record');

describe('the fixtures of a shipped target file', () => {
  it('give each kind the contract names and none it does not, a new kind taking the id after the highest given', () => {
    const text = fileGiving([[GONE, ownId(4)]]);
    expect(recordsOf(ownIds, text)).toEqual(kinds.map((kind, index) => ({ kind, id: ownId(5 + index) })));
  });

  needsKinds('keep the ids the file gives for the kinds that stay, in its order', () => {
    const given = [...kinds].reverse().map((kind, index): [string, string] => [kind, ownId(10 + index)]);
    expect(recordsOf(ownIds, fileGiving([...given, [GONE, ownId(0)]]))).toEqual(
      given.map(([kind, id]) => ({ kind, id })),
    );
  });

  needsKinds('give a file of ids of its own that gives none its first id, then the next ones', () => {
    expect(recordsOf(ownIds, fileGiving([]))).toEqual(kinds.map((kind, index) => ({ kind, id: ownId(index) })));
  });

  needsKinds('refuse to draw a next id from ids that are not ObjectIds', () => {
    expect(() => shippedTargetFileText(ownIds, fileGiving([[GONE, 'staging-record']]), referenceRecordId)).toThrow(
      'own.yaml: its id staging-record is not 24 hex digits, so no next id is drawn from its ids',
    );
  });

  needsKinds("name the reference server's records in the example, whatever it gave, each saying which it is", () => {
    const text = fileGiving(kinds.map((kind) => [kind, 'ffffffffffffffffffffffff']));
    expect(recordsOf(referenceIds, text)).toEqual(
      kinds.map((kind) => ({ kind, id: referenceRecordId(kind), comment: recordComment(kind) })),
    );
  });

  needsKinds('say of a record what it is and which operations send its id', (create) => {
    for (const kind of recordKinds([create])) {
      const comment = recordComment(kind);
      expect(comment).toMatch(new RegExp(`^an existing ${recordKindLabel(kind).replace(/ id$/, '')}, for \\w`));
      expect(comment).toContain(create.operationId);
    }
  });
});
