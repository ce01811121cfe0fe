// The contract's YAML parsed once per text rather than once per process. Parsing openapi.yaml and
// requirements.yaml takes about a fifth of a CPU-second in a fresh process, and a run starts
// several (the command, Playwright's runner, each worker); reading the same value back as JSON
// takes a millisecond. An entry is named by the SHA-256 of the text it was parsed from (and the
// parser's version), so an edited file is parsed again; any failure to read or write the cache
// falls back to parsing, and a read-only installation simply parses every time.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** The kit's cache folder, where tools keep theirs (node_modules/.cache). */
export const PARSE_CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/las-conformance/', import.meta.url));

const PARSER = `yaml ${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}`;

/**
 * `text` parsed as YAML, through the cache in `directory`. `name` says which file the text is
 * (`openapi`, `requirements`): a new entry replaces the older ones of the same name.
 */
export function parseYamlCached(name: string, text: string, directory = PARSE_CACHE_DIR): unknown {
  const key = createHash('sha256').update(`${PARSER}\n`).update(text).digest('hex');
  const file = join(directory, `${name}-${key}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    // Not cached yet (or unreadable): parsed below.
  }
  const value = parseYaml(text) as unknown;
  try {
    mkdirSync(directory, { recursive: true });
    writeEntry(file, JSON.stringify(value));
    for (const older of readdirSync(directory).filter(
      (entry) => entry.startsWith(`${name}-`) && entry.endsWith('.json') && entry !== `${name}-${key}.json`,
    ))
      rmSync(join(directory, older), { force: true });
  } catch {
    // Not writable: the next process parses again.
  }
  return value;
}

/**
 * Writes a cache entry whole: to a file of this process's own, then renamed into place. A rename
 * is atomic, so a process reading at the same time sees the whole entry or none. Throws when the
 * folder is not writable (callers fall back to doing the work).
 */
export function writeEntry(file: string, text: string): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, file);
}
