// The validator cache: a validator read back from the cache gives what a fresh compile gives
// (verdict and errors, their schemas included), an edited schema or another contract text is
// compiled again, and a corrupt or unwritable cache falls back to compiling.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ValidateFunction } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Contract, createAjv, querySchema, SCHEMA_DIR } from './contract.ts';
import { allCases, readCaseFiles } from './schema-cases.ts';
import { compileCached, validatorFolder } from './validator-cache.ts';

const openapi = readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8');
const requirements = readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-validator-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Schema = Record<string, unknown>;

/** Every schema the contract validates, named the same way in any Contract of the same texts. */
function schemasOf(contract: Contract): Map<string, Schema> {
  const schemas = new Map<string, Schema>(Object.entries(contract.schemas));
  for (const operation of contract.operations) {
    schemas.set(`${operation.operationId} query`, querySchema(operation));
    if (operation.requestBody) schemas.set(`${operation.operationId} request`, operation.requestBody);
    for (const [status, body] of operation.responseBodies)
      if (body) schemas.set(`${operation.operationId} ${status}`, body);
  }
  return schemas;
}

/**
 * Valid and broken documents: every case of schemas/cases/ (hand-written and derived), each tried against every schema,
 * and odd values.
 */
function values(contract: Contract): unknown[] {
  const cases = [...readCaseFiles().values()].flatMap((file) => allCases(contract, file).map((c) => c.data));
  const queries = [
    { filter: { type: 'portal' } },
    { filter: { type: 'nope' }, page: { limit: 0, offset: -1 }, include: ['a', 1] },
    { filter: {}, page: { limit: '2' } },
    { page: { offset: 1 } },
  ];
  return [...cases, ...queries, null, true, 0, 1.5, '', 'x', [], [{}], {}, { data: null }, { data: [], errors: [] }];
}

/**
 * A fresh compile's validator (ajv's) or one loaded from an entry (standalone code): the latter carries no schemaEnv.
 */
const loadedFromCache = (validate: ValidateFunction) => !('schemaEnv' in validate);

const entries = (folder: string) => readdirSync(folder).filter((entry) => entry.endsWith('.cjs'));

describe('the validator cache', () => {
  it('gives, for every schema of the contract and each value, the verdict and errors a fresh compile gives, in both modes', () => {
    const fresh = new Contract(openapi, requirements);
    // The first contract writes the entries, the second reads them back.
    new Contract(openapi, requirements, undefined, dir).compileValidators();
    const cached = new Contract(openapi, requirements, undefined, dir);
    const freshSchemas = schemasOf(fresh);
    const cachedSchemas = schemasOf(cached);
    const documents = values(fresh);
    expect(documents.length).toBeGreaterThan(200);
    let broken = 0;
    for (const [name, schema] of freshSchemas) {
      for (const mode of ['validator', 'quickValidator'] as const) {
        const expected = fresh[mode](schema);
        const actual = cached[mode](cachedSchemas.get(name)!);
        expect(loadedFromCache(expected)).toBe(false);
        expect(loadedFromCache(actual), `${name} ${mode} is read from the cache`).toBe(true);
        for (const document of documents) {
          const verdict = expected(document);
          // parentSchema and schema: deep-equal to the contract's own schema objects, as the messages read them.
          if (actual(document) !== verdict || !isDeepStrictEqual(actual.errors, expected.errors)) {
            expect(
              { verdict: actual(document), errors: actual.errors },
              `${name} ${mode} ${JSON.stringify(document)}`,
            ).toStrictEqual({ verdict: expected(document), errors: expected.errors });
          }
          if (!verdict) broken += 1;
        }
      }
    }
    expect(broken).toBeGreaterThan(1000);
  });

  it('compiles an edited schema again instead of reading the older entry', () => {
    const folder = validatorFolder(openapi, dir);
    const ajv = createAjv('full', { source: true });
    const settings = 'full';
    expect(compileCached(ajv, settings, { type: 'string', maxLength: 3 }, folder)('abc')).toBe(true);
    expect(
      loadedFromCache(
        compileCached(createAjv('full', { source: true }), settings, { type: 'string', maxLength: 3 }, folder),
      ),
    ).toBe(true);
    const edited = compileCached(
      createAjv('full', { source: true }),
      settings,
      { type: 'string', maxLength: 2 },
      folder,
    );
    expect(loadedFromCache(edited)).toBe(false);
    expect(edited('abc')).toBe(false);
    // Other settings are another entry too.
    expect(
      loadedFromCache(
        compileCached(createAjv('quick', { source: true }), 'quick', { type: 'string', maxLength: 3 }, folder),
      ),
    ).toBe(false);
    expect(entries(folder)).toHaveLength(3);
  });

  it('keeps the folder of one contract text: a new text replaces the folders of older ones', () => {
    new Contract(openapi, requirements, undefined, dir).compileValidators();
    const edited = openapi.replace(/description: /, 'description: Edited. ');
    expect(edited).not.toBe(openapi);
    expect(loadedFromCache(new Contract(edited, requirements, undefined, dir).componentValidator('ObjectId'))).toBe(
      false,
    );
    expect(readdirSync(dir)).toEqual([validatorFolder(edited, dir).slice(dir.length + 1)]);
    expect(loadedFromCache(new Contract(edited, requirements, undefined, dir).componentValidator('ObjectId'))).toBe(
      true,
    );
  });

  it('compiles when an entry is corrupt, and rewrites it', () => {
    new Contract(openapi, requirements, undefined, dir).componentValidator('ObjectId');
    const folder = validatorFolder(openapi, dir);
    const [entry] = entries(folder);
    const whole = readFileSync(join(folder, entry), 'utf8');
    for (const corrupt of [whole.slice(0, whole.length / 2), 'module.exports = 42;', 'throw new Error("broken")']) {
      writeFileSync(join(folder, entry), corrupt);
      const validate = new Contract(openapi, requirements, undefined, dir).componentValidator('ObjectId');
      expect(loadedFromCache(validate)).toBe(false);
      expect(validate('5f8d0d55b54764421b7156c1')).toBe(true);
      expect(validate(42)).toBe(false);
      expect(readFileSync(join(folder, entry), 'utf8')).toBe(whole);
    }
  });

  it('compiles when the cache folder cannot be made', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const validate = new Contract(openapi, requirements, undefined, join(file, 'cache')).componentValidator('ObjectId');
    expect(loadedFromCache(validate)).toBe(false);
    expect(validate('5f8d0d55b54764421b7156c1')).toBe(true);
    expect(validate(42)).toBe(false);
  });
});
