// Reading a file a person names to the kit whole: a record, a key, a target file, a certificate
// bundle. It must be a regular file within a stated size, or it is refused in one line before it
// is read: a link to /dev/zero would otherwise grow without bound, a pipe with no writer block
// for ever. Here, beneath the command line, so that a target file and the files it names are read
// the same way as the files `verify` reads.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

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
