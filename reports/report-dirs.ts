// Report directories of `las-conformance run`: each run writes into a directory of its own, named
// by its start time, and `latest` beside them points at the newest, so no run overwrites another.
// A directory given with --report-dir is reused: the kit's own files of an earlier run go first,
// so none of them can be read as this run's; whatever else the directory holds stays.
import { existsSync, lstatSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { REPORT_DIR_ENTRIES } from '../run-protocol/index.ts';

export const LATEST = 'latest';

/** `<root>/2026-11-22T20-15-04Z`: sortable, and a valid file name everywhere. */
export function timestampedReportDir(root: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  let dir = join(root, stamp);
  // Two runs started within the same second each get their own directory.
  for (let n = 2; existsSync(dir); n++) dir = join(root, `${stamp}-${n}`);
  return dir;
}

/**
 * Points `latest` (beside `dir`) at `dir`, replacing the link in one rename; a real directory there is kept under its
 * own time stamp.
 */
export function pointLatestAt(dir: string): void {
  const root = dirname(dir);
  const latest = join(root, LATEST);
  const existing = lstatExists(latest);
  if (existing && !existing.isSymbolicLink()) renameSync(latest, timestampedReportDir(root, statSync(latest).mtime));
  const temporary = join(root, `.${LATEST}-${process.pid}`);
  rmSync(temporary, { force: true });
  symlinkSync(
    process.platform === 'win32' ? dir : basename(dir),
    temporary,
    process.platform === 'win32' ? 'junction' : 'dir',
  );
  renameSync(temporary, latest);
}

/**
 * Removes from `dir` the files and directories a run writes there (REPORT_DIR_ENTRIES) and nothing else; returns the
 * names it removed.
 */
export function clearKitFiles(dir: string): string[] {
  const present = REPORT_DIR_ENTRIES.filter((name) => lstatExists(join(dir, name)) !== undefined);
  for (const name of present) rmSync(join(dir, name), { recursive: true, force: true });
  return present;
}

function lstatExists(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
