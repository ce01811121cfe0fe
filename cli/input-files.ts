// The files `report` and `judge` read, from what was given on the command line: a file as named;
// a glob (`logs/replica-*.ndjson`, quoted so that the shell leaves it, or where no shell expands
// it) as the files it matches, in name order; for `judge`, a capture directory (one per proxy
// replica) as the capture files in it, oldest first. A glob that matches nothing, or a capture
// directory without capture files, is a usage error naming it, not an empty report. A file read
// whole (a record, its envelope, a key) is read by `readWholeFile` (targets/whole-file.ts): a
// regular file within a stated size. A certification record is read so wherever a command reads
// one: `verify`, `diff` and `run --baseline`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
import { CAPTURE_FILE } from '../proxy/capture.ts';
import { parseRecordBytes } from '../reports/verify.ts';
import { readWholeFile } from '../targets/whole-file.ts';

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
