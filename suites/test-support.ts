// Helpers for the tests that run the whole kit: every byte a run leaves under its report
// directory (the HTML report's embedded archive and blob archives opened up), so a test can
// search them for tokens; and the operation and fault of the reference server a run is about.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { Operation, OperationRole } from '../contract/index.ts';
import { contract, creates, lists } from '../contract/test-support.ts';
import { FAULTS, type FaultDefinition } from '../server/index.ts';

/**
 * The contract's first operation, its lists before its creates, that a fault of the reference server breaks in one
 * exchange for a role (`roles.list` of a list, `roles.create` of a create), and that fault.
 */
export function faultedOperation(roles: {
  list: OperationRole;
  create: OperationRole;
}): { operation: Operation; fault: FaultDefinition } | undefined {
  for (const operation of [...lists, ...creates]) {
    const broken = contract.requirementOf(operation, lists.includes(operation) ? roles.list : roles.create)?.id;
    const fault = FAULTS.find(
      (f) => f.detectableInOneExchange && broken !== undefined && f.requirements.includes(broken),
    );
    if (fault) return { operation, fault };
  }
  return undefined;
}

export interface ReportFile {
  /** The file's path, with `!entry` for a member of an archive. */
  path: string;
  bytes: Buffer;
}

/** Every file under `dir`, archives (zip files, the HTML report's embedded one) expanded into their members. */
export function reportFiles(dir: string): ReportFile[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .flatMap((path) => withArchiveMembers({ path, bytes: readFileSync(path) }));
}

const EMBEDDED_ZIP = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/g;

function withArchiveMembers(file: ReportFile): ReportFile[] {
  const archives: Buffer[] = [];
  if (file.path.endsWith('.zip')) archives.push(file.bytes);
  if (file.path.endsWith('.html'))
    for (const match of file.bytes.toString('utf8').matchAll(EMBEDDED_ZIP))
      archives.push(Buffer.from(match[1], 'base64'));
  const members = archives.flatMap((archive) =>
    zipEntries(archive).map((entry) => ({ path: `${file.path}!${entry.name}`, bytes: entry.data })),
  );
  return [file, ...members.flatMap(withArchiveMembers)];
}

/** The members of a zip archive (stored or deflated), read from its central directory. */
export function zipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let entry = zip.readUInt32LE(end + 16);
  const entries: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(entry + 10);
    const size = zip.readUInt32LE(entry + 20);
    const nameLength = zip.readUInt16LE(entry + 28);
    const skip = nameLength + zip.readUInt16LE(entry + 30) + zip.readUInt16LE(entry + 32);
    const local = zip.readUInt32LE(entry + 42);
    const name = zip.subarray(entry + 46, entry + 46 + nameLength).toString('utf8');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    entries.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
    entry += 46 + skip;
  }
  return entries;
}

/** The places (file paths, or `console`) where any of `secrets` appears. */
export function leaksOf(secrets: string[], files: ReportFile[], console: string): string[] {
  const places = files.filter((file) => secrets.some((secret) => file.bytes.includes(secret))).map((file) => file.path);
  if (secrets.some((secret) => console.includes(secret))) places.push('console');
  return places;
}
