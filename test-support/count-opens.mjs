// Loaded into a process with `--import` (NODE_OPTIONS, which the processes it starts inherit):
// each time the process opens or reads the file COUNT_OPENS_OF, a line is appended to
// COUNT_OPENS_LOG, so that a test can count every reader of a file across the processes of a run.
// A regular file, read as the kit reads it: a named pipe would count readers too, but the kit
// refuses to read one.
import fs from 'node:fs';
import process from 'node:process';
import { syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';

const watched = process.env.COUNT_OPENS_OF;
const log = process.env.COUNT_OPENS_LOG;

/** `read` with every call naming the watched file counted first. */
function counted(read) {
  return function (path, ...rest) {
    if (typeof path === 'string' && resolve(path) === watched) fs.appendFileSync(log, `${process.pid}\n`);
    return read.call(this, path, ...rest);
  };
}

if (watched !== undefined && log !== undefined) {
  fs.openSync = counted(fs.openSync);
  fs.readFileSync = counted(fs.readFileSync);
  fs.open = counted(fs.open);
  fs.readFile = counted(fs.readFile);
  fs.createReadStream = counted(fs.createReadStream);
  fs.promises.open = counted(fs.promises.open);
  fs.promises.readFile = counted(fs.promises.readFile);
  // ES modules that import from node:fs see the counted functions too.
  syncBuiltinESMExports();
}
