// Reading recorded traffic as a stream, never a whole file at once: a HAR file (what browsers,
// proxies and gateways export; its `log.entries` read one entry at a time with stream-json) or the
// proxy's capture files (one HAR entry per line). Memory stays bounded by the largest entry,
// whatever the file's size; a HAR string longer than the largest body judged (a body of hundreds of
// megabytes) is not assembled at all but stands as too large. An entry that is not JSON, or not an
// exchange, is one error naming it, and reading goes on; a HAR file whose JSON breaks stops there,
// with what came before kept. A capture line longer than two such bodies and their headers is
// named and skipped, never held.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, Transform, type Readable } from 'node:stream';
import { parser } from 'stream-json';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import {
  entryLabel,
  MalformedEntryError,
  OVERSIZED_TEXT,
  recordedExchange,
  type RecordedExchange,
} from '../proxy/har.ts';

export type RecordedFormat = 'har' | 'capture';

/** One entry of a file: the exchange it records, or why it cannot be read. */
export type RecordedItem =
  | { file: string; entry: number; recorded: RecordedExchange; raw: unknown }
  | { file: string; entry: number; error: string };

/** A file that cannot be read at all (missing, a directory, neither HAR nor capture lines): exit 2. */
export class UnreadableFileError extends Error {}

const SNIFF_BYTES = 4096;

/** HAR when the document opens with `{"log":`; otherwise capture lines (each a JSON entry). */
export async function formatOf(file: string): Promise<RecordedFormat> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new UnreadableFileError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new UnreadableFileError(`${file} is a directory, not a HAR or capture file`);
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    const start = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    if (/^\s*\{\s*"log"\s*:/.test(start)) return 'har';
    if (/^\s*\{/.test(start)) return 'capture';
    throw new UnreadableFileError(
      `${file} is neither a HAR file (a JSON object with "log") nor capture lines (one JSON entry per line)`,
    );
  } finally {
    await handle.close();
  }
}

/**
 * Every entry of the file, in order, as it is read; a HAR string longer than `maxString` characters is kept as
 * OVERSIZED_TEXT.
 */
export async function* readRecorded(file: string, maxString = DEFAULT_MAX_STRING): AsyncGenerator<RecordedItem> {
  const format = await formatOf(file);
  yield* format === 'har' ? harEntries(file, maxString) : captureEntries(file, maxLineFor(maxString));
}

/** Room for a body of 1 MiB (the proxy's default --max-body) in base64. */
export const DEFAULT_MAX_STRING = Math.ceil((1024 * 1024 * 4) / 3) + 16;

/** The longest string of a HAR kept for a body of `maxBody` bytes (base64 takes 4 characters per 3 bytes). */
export function maxStringFor(maxBody: number): number {
  return Math.ceil((maxBody * 4) / 3) + 16;
}

async function* harEntries(file: string, maxString: number): AsyncGenerator<RecordedItem> {
  const entries: Readable = pipeline(
    createReadStream(file),
    parser.asStream({ packStrings: false, streamStrings: true }),
    boundedStrings(maxString),
    pick.asStream({ filter: 'log.entries' }),
    streamArray.asStream(),
    () => undefined,
  );
  let entry = 0;
  try {
    for await (const item of entries as AsyncIterable<{ key: number; value: unknown }>) {
      entry = item.key + 1;
      yield readItem(file, entry, item.value);
    }
  } catch (error) {
    yield { file, entry: entry + 1, error: `not JSON from here on, reading stopped (${firstLine(error)})` };
  }
}

interface Token {
  name: string;
  value?: unknown;
}

/**
 * Packs the parser's string chunks into one `stringValue` token, as the parser would, but keeps
 * at most `maxString` characters of a string: a longer one becomes OVERSIZED_TEXT, its chunks
 * dropped as they come. Keys stay packed by the parser.
 */
function boundedStrings(maxString: number): Transform {
  let chunks: string[] = [];
  let length = 0;
  return new Transform({
    objectMode: true,
    transform(token: Token, _encoding, callback) {
      if (token.name === 'startString') {
        chunks = [];
        length = 0;
      } else if (token.name === 'stringChunk') {
        const chunk = token.value as string;
        length += chunk.length;
        if (length <= maxString) chunks.push(chunk);
        else chunks = [];
      } else if (token.name === 'endString') {
        this.push({ name: 'stringValue', value: length <= maxString ? chunks.join('') : OVERSIZED_TEXT });
        chunks = [];
      } else {
        this.push(token);
      }
      callback();
    },
  });
}

/** The longest capture line read: two bodies as long as the longest string, escaped, and headers. */
function maxLineFor(maxString: number): number {
  return 4 * maxString + 1024 * 1024;
}

async function* captureEntries(file: string, maxLine: number): AsyncGenerator<RecordedItem> {
  let entry = 0;
  for await (const line of boundedLines(file, maxLine)) {
    if (line !== null && line.trim() === '') continue;
    entry += 1;
    if (line === null) {
      yield { file, entry, error: `longer than ${maxLine} bytes, not read` };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      yield { file, entry, error: `not JSON (${firstLine(error)})` };
      continue;
    }
    yield readItem(file, entry, value);
  }
}

/**
 * The lines of a file; a line longer than `maxLine` bytes stands as null, given as soon as it passes the bound (a
 * file with no end of line, a device, stops its reader there), and the rest of it is dropped as it comes.
 */
export async function* boundedLines(file: string, maxLine: number): AsyncGenerator<string | null> {
  let parts: Buffer[] = [];
  let length = 0;
  let overlong = false;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      length += piece.length;
      if (!overlong && length > maxLine) yield null;
      else if (!overlong)
        yield Buffer.concat([...parts, piece])
          .toString('utf8')
          .replace(/\r$/, '');
      parts = [];
      length = 0;
      overlong = false;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    length += rest.length;
    if (!overlong && length > maxLine) {
      overlong = true;
      parts = [];
      yield null;
    } else if (!overlong && rest.length > 0) {
      parts.push(Buffer.from(rest));
    }
  }
  if (!overlong && length > 0) yield Buffer.concat(parts).toString('utf8');
}

function readItem(file: string, entry: number, value: unknown): RecordedItem {
  try {
    return { file, entry, recorded: recordedExchange(value), raw: value };
  } catch (error) {
    if (!(error instanceof MalformedEntryError)) throw error;
    const label = entryLabel(value);
    return { file, entry, error: `${label ? `${label}: ` : ''}${error.message}` };
  }
}

/** How an entry is named in messages: `capture.ndjson entry #3`. */
export function entryName(item: { file: string; entry: number }): string {
  return `${item.file} entry #${item.entry}`;
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .split('\n')[0]
    .slice(0, 200);
}
