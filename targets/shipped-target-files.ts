// The target files the kit ships give one record of each kind the contract names (`x-record`):
// targets/example.yaml those of the reference server it runs against as shipped, the README's
// examples/targets/ ids of their own. `npm run targets:settings` rewrites their fixtures blocks
// from the contract, so that a change of the contract leaves them readable and complete; the rest
// of each file is written by hand.
import { loadContract, recordKindLabel, recordKinds, type Contract } from '../contract/index.ts';
import { readFixturesBlock, withFixturesBlock, type FixtureLine } from './fixtures-block.ts';
import { membersNaming } from './settings.ts';

/** The id of the reference server's record of a kind: server/defaults.ts `referenceRecordId`, handed in. */
export type ReferenceRecordId = (kind: string) => string;

export interface ShippedTargetFile {
  /** From the repository's root. */
  path: string;
  /**
   * Where its ids come from: the reference server's record of each kind, or ids of its own, kept for the kinds that
   * stay, a new kind taking the one after the highest the file gives (`first` when it gives none).
   */
  ids: 'reference server' | { first: string };
  /** Whether each record's line says which record it is. */
  describesRecords: boolean;
}

export const SHIPPED_TARGET_FILES: readonly ShippedTargetFile[] = [
  { path: 'targets/example.yaml', ids: 'reference server', describesRecords: true },
  { path: 'examples/targets/staging.yaml', ids: { first: '6553f100c0ffee0000000001' }, describesRecords: false },
  { path: 'examples/targets/vendor.yaml', ids: { first: '6553f100c0ffee00000000a1' }, describesRecords: false },
];

/** Where a shipped target file is. */
export function shippedTargetFileUrl(file: ShippedTargetFile): URL {
  return new URL(`../${file.path}`, import.meta.url);
}

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** The id after the highest of `taken`, as 24 hex digits; `first` when none is taken. */
function nextId(taken: string[], first: string, file: string): string {
  const other = taken.find((id) => !OBJECT_ID.test(id));
  if (other !== undefined)
    throw new Error(`${file}: its id ${other} is not 24 hex digits, so no next id is drawn from its ids`);
  if (taken.length === 0) return first;
  const highest = taken.map((id) => BigInt(`0x${id}`)).reduce((a, b) => (a > b ? a : b));
  return (highest + 1n).toString(16).padStart(24, '0');
}

/** The kinds the file gives that the contract still names, in the file's order, then the others in the contract's. */
function kindsInOrder(given: FixtureLine[], named: string[]): string[] {
  const kept = given.map((line) => line.kind).filter((kind) => named.includes(kind));
  return [...kept, ...named.filter((kind) => !kept.includes(kind))];
}

/** Each kind's id by the file's rule. */
function recordsByRule(
  file: ShippedTargetFile,
  given: FixtureLine[],
  kinds: string[],
  referenceRecordId: ReferenceRecordId,
): FixtureLine[] {
  const rule = file.ids;
  if (rule === 'reference server') return kinds.map((kind) => ({ kind, id: referenceRecordId(kind) }));
  const taken = given.map((line) => line.id);
  return kinds.map((kind) => {
    const id = given.find((line) => line.kind === kind)?.id ?? nextId(taken, rule.first, file.path);
    taken.push(id);
    return { kind, id };
  });
}

/** What a record's line says of it: the record, by its kind's name, and the operations that send its id. */
export function recordComment(kind: string, contract: Contract = loadContract()): string {
  const record = recordKindLabel(kind).replace(/ id$/, '');
  const operations = [...new Set(membersNaming(kind, contract).map((m) => m.operation.operationId))];
  return `an existing ${record}, for ${operations.join(' and ')}`;
}

/** The file's text with its fixtures block giving one record of each kind the contract names, by the file's rule. */
export function shippedTargetFileText(
  file: ShippedTargetFile,
  text: string,
  referenceRecordId: ReferenceRecordId,
  contract: Contract = loadContract(),
): string {
  const given = readFixturesBlock(text, file.path);
  const records = recordsByRule(file, given, kindsInOrder(given, recordKinds(contract.operations)), referenceRecordId);
  const described = file.describesRecords
    ? records.map((record) => ({ ...record, comment: recordComment(record.kind, contract) }))
    : records;
  return withFixturesBlock(text, file.path, described);
}
