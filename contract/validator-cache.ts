// The contract's validators compiled once per schema rather than once per process. ajv compiles
// a schema into JavaScript on its first use: a narrowed `las-conformance run` spends about 0.12
// CPU-seconds in the command, 0.06 in Playwright's runner and 0.11 in its worker doing so, and the
// proxy's judging thread and every process of the tests pay the same. Loading the code ajv
// generated for the same schema (its standalone module) takes a few milliseconds.
//
// An entry is the standalone module of one schema for one ajv instance, named by the SHA-256 of
// ajv's and ajv-formats' versions, the instance's settings and the schema's JSON (the contract's
// schemas are self-contained: their refs are inlined), so an edited schema or another ajv compiles
// again. Entries live in one folder per contract text (parse-cache.ts's folder,
// node_modules/.cache/las-conformance/); the folder of a new text replaces the older ones. Any
// failure to read, load or write an entry falls back to compiling, and a read-only installation
// simply compiles every time. The entries are code run as the kit's own, as trusted as the
// node_modules folder holding them.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { PARSE_CACHE_DIR, writeEntry } from './parse-cache.ts';

const require = createRequire(import.meta.url);
const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
/** What the generated code depends on besides the schema and the settings. */
const GENERATOR = `ajv ${version('ajv')}\najv-formats ${version('ajv-formats')}\nentry 1\n`;
const FOLDER_PREFIX = 'validators-';

const sha256 = (...parts: string[]) =>
  parts.reduce((hash, part) => hash.update(part).update('\n'), createHash('sha256')).digest('hex');

/** The folder of the validators of a contract text (schemas/openapi.yaml), inside `directory`. */
export function validatorFolder(openapiText: string, directory = PARSE_CACHE_DIR): string {
  return join(directory, FOLDER_PREFIX + sha256(GENERATOR, openapiText));
}

/**
 * `schema` compiled by `ajv`, or read back from the entry in `folder` that ajv's standalone code
 * generation wrote for it. `settings` names everything `ajv` was configured with (options,
 * formats, vocabulary): it shapes the code, and is part of the entry's name. `ajv` needs the
 * option `code: { source: true }` for its code to be written.
 */
export function compileCached(ajv: Ajv2020, settings: string, schema: object, folder: string): ValidateFunction {
  const file = join(folder, `${sha256(GENERATOR, settings, JSON.stringify(schema))}.cjs`);
  const cached = load(file);
  if (cached) return cached;
  const validate = ajv.compile(schema);
  try {
    // The first entry of a contract text: the folders of other texts (or other versions) go.
    if (mkdirSync(folder, { recursive: true }) !== undefined) {
      const parent = dirname(folder);
      for (const other of readdirSync(parent).filter(
        (entry) => entry.startsWith(FOLDER_PREFIX) && entry !== basename(folder),
      ))
        rmSync(join(parent, other), { recursive: true, force: true });
    }
    writeEntry(file, standaloneCode.default(ajv, validate));
  } catch {
    // Not writable (or no code kept): the next process compiles again.
  }
  return validate;
}

/** The validator an entry defines, or undefined when there is none or it cannot be loaded. */
function load(file: string): ValidateFunction | undefined {
  try {
    const module = { exports: {} as unknown };
    // A CommonJS module, evaluated with the kit's own require: the ajv runtime and ajv-formats'
    // formats it requires are the kit's wherever the folder is.
    const evaluate = compileFunction(readFileSync(file, 'utf8'), ['require', 'module', 'exports'], {
      filename: file,
    }) as (require: NodeJS.Require, module: { exports: unknown }, exports: unknown) => void;
    evaluate(require, module, module.exports);
    return typeof module.exports === 'function' ? (module.exports as ValidateFunction) : undefined;
  } catch {
    return undefined;
  }
}
