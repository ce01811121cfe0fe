// The parse cache: the same value as parsing, read back from the cache, parsed again when the
// text changes, and parsing whenever the cache cannot be read or written.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SCHEMA_DIR } from './contract.ts';
import { parseYamlCached } from './parse-cache.ts';

const TEXT = 'requirements:\n  - id: A-ONE\n    level: MUST\n';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-parse-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entries = () => readdirSync(dir).sort();

describe('parseYamlCached', () => {
  it('gives what parsing gives, and the second time reads it from the cache', () => {
    expect(parseYamlCached('requirements', TEXT, dir)).toStrictEqual(parseYaml(TEXT));
    expect(entries()).toHaveLength(1);
    // Changed on disk behind its back: a value read from the cache shows the change.
    writeFileSync(join(dir, entries()[0]), JSON.stringify({ requirements: [] }));
    expect(parseYamlCached('requirements', TEXT, dir)).toStrictEqual({ requirements: [] });
  });

  it('parses an edited text again, and its entry replaces the older one of the same name', () => {
    parseYamlCached('requirements', TEXT, dir);
    parseYamlCached('openapi', 'openapi: 3.1.0\n', dir);
    const edited = TEXT.replace('MUST', 'SHOULD');
    expect(parseYamlCached('requirements', edited, dir)).toStrictEqual(parseYaml(edited));
    expect(entries().map((entry) => entry.split('-')[0])).toEqual(['openapi', 'requirements']);
  });

  it('parses when an entry is corrupt, and rewrites it', () => {
    parseYamlCached('requirements', TEXT, dir);
    const [entry] = entries();
    writeFileSync(join(dir, entry), '{"requirements": [');
    expect(parseYamlCached('requirements', TEXT, dir)).toStrictEqual(parseYaml(TEXT));
    expect(JSON.parse(readFileSync(join(dir, entry), 'utf8'))).toStrictEqual(parseYaml(TEXT));
  });

  it('parses when the cache folder cannot be made', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(parseYamlCached('requirements', TEXT, join(file, 'cache'))).toStrictEqual(parseYaml(TEXT));
  });

  for (const name of ['openapi', 'requirements']) {
    it(`reads schemas/${name}.yaml back from JSON exactly as parsed`, () => {
      const text = readFileSync(join(SCHEMA_DIR, `${name}.yaml`), 'utf8');
      parseYamlCached(name, text, dir);
      expect(parseYamlCached(name, text, dir)).toStrictEqual(parseYaml(text));
    });
  }
});
