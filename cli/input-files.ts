// The files `report` and `judge` read, from what was given on the command line: a file as named;
// a glob (`logs/replica-*.ndjson`, quoted so that the shell leaves it, or where no shell expands
// it) as the files it matches, in name order; for `judge`, a capture directory (one per proxy
// replica) as the capture files in it, oldest first. A glob that matches nothing, or a capture
// directory without capture files, is a usage error naming it, not an empty report. A file read
// whole (a record, its envelope, a key) must be a regular file within a stated size: a link to
// /dev/zero or a pipe is refused in one line, never read until memory runs out. A certification
// record is read so wherever a command reads one: `verify`, `diff` and `run --baseline`.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
import { CAPTURE_FILE } from '../proxy/capture.ts';
import { parseRecordBytes } from '../reports/verify.ts';

/**
 * Each argument as the files it names: itself when it exists (whatever its name holds), else the files its glob
 * matches.
 */
export function expandGlobs(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    if (existsSync(arg) || !isDynamicPattern(arg)) return [arg];
    // An absolute pattern gives absolute names: as given, not relative to where the command runs.
    const matches = globSync(arg, {
      onlyFiles: true,
      expandDirectories: false,
      dot: false,
      absolute: isAbsolute(arg),
    }).sort();
    if (matches.length === 0) throw new Error(`${arg} matches no file`);
    return matches;
  });
}

/**
 * Each argument as the files it names, a directory standing for the capture files in it (their names sort oldest
 * first).
 */
export function expandCaptureDirectories(paths: readonly string[]): string[] {
  return paths.flatMap((path) => (isDirectory(path) ? captureFilesIn(path) : [path]));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function captureFilesIn(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    throw new Error(`cannot read ${directory}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const files = names.filter((name) => CAPTURE_FILE.test(name)).sort();
  if (files.length === 0)
    throw new Error(`${directory} holds no capture files (capture-<time>-<n>.ndjson, as proxy --capture writes them)`);
  return files.map((name) => join(directory, name));
}

/** A file that is read whole, and the most it may hold. */
export interface WholeFile {
  /** What the file is, for the message: `the record`, `the public key`. */
  what: string;
  path: string;
  maxBytes: number;
}

/**
 * The bytes of a file read whole; an Error of one line when it is not a regular file (a device, a
 * pipe, a directory, a link to one) or holds more than `maxBytes`. Opened without blocking, so a
 * pipe with no writer is refused rather than waited on.
 */
export function readWholeFile({ what, path, maxBytes }: WholeFile): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${what} ${path} cannot be read (${reason})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${what} ${path} is ${kindOf(stats)}, not a regular file: it is not read`);
    const bytes = readAtMost(fd, maxBytes + 1);
    if (bytes.length > maxBytes) {
      throw new Error(`${what} ${path} holds more than ${sizeText(maxBytes)}, the most it may hold: it is not read`);
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Up to `limit` bytes of an open file: a file growing while it is read still stops there. */
function readAtMost(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(Math.min(limit, 1024 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, limit - total), null);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    total += read;
    if (total >= limit) break;
  }
  return Buffer.concat(chunks, total);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** A size in the unit it is stated in: `64 MiB`, `64 KiB`, `512 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The most a record may hold: a record the kit writes keeps at most 25 findings per requirement, far below it. */
export const RECORD_MAX_BYTES = 64 * 1024 * 1024;

/** The bytes of a certification record, read whole within RECORD_MAX_BYTES; `what` names it in a refusal. */
export function readRecordBytes(path: string, what = 'the record'): Buffer {
  return readWholeFile({ what, path, maxBytes: RECORD_MAX_BYTES });
}

/** The parsed JSON of a certification record, read whole within RECORD_MAX_BYTES; an Error of one line otherwise. */
export function readRecordFile(path: string, what = 'the record'): unknown {
  return parseRecordBytes(readRecordBytes(path, what), path);
}
