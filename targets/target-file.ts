// A target file: YAML checked against targets/target.schema.json once, each part of a run taking
// its own keys from it (settings, waivers, generation); problems are one TargetError line.
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { createAjv } from '../contract/index.ts';
import { settingRows, targetFileSchema, withSetting, type TargetSettings } from './settings.ts';
import { TargetError } from './target.ts';
import { readWholeFile } from './whole-file.ts';

/** The schema file as written (targets:settings writes its settings from the table). */
export function targetSchemaFile(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL('target.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** The schema file's text with its settings as the table has them: what targets:settings writes. */
export function targetSchemaText(): string {
  return `${JSON.stringify(targetFileSchema(targetSchemaFile()), null, 2)}\n`;
}

// Compiled from the table, so that a record kind the contract names is a key of the file whether or not the schema file
// was written since.
let fileValidator: ValidateFunction | undefined;

function targetFileValidator(): ValidateFunction {
  fileValidator ??= createAjv().compile(targetFileSchema(targetSchemaFile()));
  return fileValidator;
}

/** A known failure the gate accepts until a date: `waivers` in the target file. */
export interface Waiver {
  requirement: string;
  reason: string;
  /** YYYY-MM-DD: the last day the waiver holds. */
  expires: string;
}

/**
 * The most a target file may hold. One a person writes is a few KiB; its regression cases, each one request with its
 * body, leave it far below this, and YAML parsed whole should stay small.
 */
export const TARGET_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** A target file's text, read whole within TARGET_FILE_MAX_BYTES; a TargetError of one line otherwise. */
export function readTargetText(path: string): string {
  try {
    return readWholeFile({ what: 'target file', path, maxBytes: TARGET_FILE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    throw new TargetError((error as Error).message);
  }
}

/** A target file read and checked once: each part of a run takes its own keys from it. */
export interface TargetFile {
  path: string;
  document: Record<string, unknown>;
}

/** Reads a YAML target file and checks it against targets/target.schema.json. */
export function loadTargetFile(path: string): TargetFile {
  return { path, document: checkedTargetDocument(readTargetText(path), path) as Record<string, unknown> };
}

/** Reads and checks a YAML target file (schema: targets/target.schema.json). */
export function readTargetFile(path: string): TargetSettings {
  return targetFileSettings(loadTargetFile(path));
}

/** The waivers of a target file; `requirementIds` are the catalogue's, and a waiver naming another is a usage error. */
export function readTargetWaivers(path: string, requirementIds: string[]): Waiver[] {
  return targetFileWaivers(loadTargetFile(path), requirementIds);
}

/** `generate` in a target file: inputs drawn from the contract per operation (run --generate). */
export interface GenerationFileSettings {
  inputs?: number;
  seed?: number;
  budgetSeconds?: number;
  operationBudgetSeconds?: number;
}

/** The `generate` key of a target file; absent: {}. */
export function readTargetGeneration(path: string): GenerationFileSettings {
  return targetFileGeneration(loadTargetFile(path));
}

export function parseTargetGeneration(text: string, source: string): GenerationFileSettings {
  return targetFileGeneration(parsedTargetFile(text, source));
}

/** The `generate` key of a target file read once; absent: {}. */
export function targetFileGeneration(file: TargetFile): GenerationFileSettings {
  return (file.document as { generate?: GenerationFileSettings }).generate ?? {};
}

export function parseTargetWaivers(text: string, source: string, requirementIds: string[]): Waiver[] {
  return targetFileWaivers(parsedTargetFile(text, source), requirementIds);
}

/** The waivers of a target file read once, checked against the catalogue's requirement ids. */
export function targetFileWaivers(file: TargetFile, requirementIds: string[]): Waiver[] {
  const { document, path: source } = file;
  // The file was checked against targets/target.schema.json when it was read.
  const written = (document.waivers ?? []) as { requirement: string; reason: string; expires: string | Date }[];
  const waivers = written.map((w) => ({
    requirement: w.requirement,
    reason: w.reason,
    expires: w.expires instanceof Date ? w.expires.toISOString().slice(0, 10) : w.expires,
  }));
  const unknown = waivers.filter((w) => !requirementIds.includes(w.requirement)).map((w) => w.requirement);
  if (unknown.length > 0)
    throw new TargetError(
      `target file ${source}: waiver for ${unknown.join(', ')}, which is no requirement of the catalogue (see las-conformance contract)`,
    );
  for (const w of waivers) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(w.expires) || Number.isNaN(Date.parse(`${w.expires}T00:00:00Z`)))
      throw new TargetError(
        `target file ${source}: the waiver for ${w.requirement} expires on "${w.expires}", not a date (YYYY-MM-DD)`,
      );
  }
  const repeated = requirementIds.filter((id) => waivers.filter((w) => w.requirement === id).length > 1);
  if (repeated.length > 0)
    throw new TargetError(`target file ${source}: more than one waiver for ${repeated.join(', ')}`);
  return waivers;
}

export function parseTargetFile(text: string, source: string): TargetSettings {
  return targetFileSettings(parsedTargetFile(text, source));
}

/** The target settings of a target file read once. */
export function targetFileSettings(file: TargetFile): TargetSettings {
  return settingRows().reduce(
    (settings, row) => withSetting(settings, row, valueAtKey(file.document, row.fileKey)),
    {} as TargetSettings,
  );
}

/** A target file's text, checked, as a TargetFile named by `source`. */
function parsedTargetFile(text: string, source: string): TargetFile {
  return { path: source, document: checkedTargetDocument(text, source) as Record<string, unknown> };
}

/** The value at a dotted key of a parsed file, or undefined. */
function valueAtKey(document: Record<string, unknown>, dotted: string): unknown {
  let node: unknown = document;
  for (const step of dotted.split('.'))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[step] : undefined;
  return node;
}

/** A target file's document, checked against targets/target.schema.json; a problem is one TargetError line. */
export function parseTargetDocument(text: string, source: string): unknown {
  return checkedTargetDocument(text, source);
}

function checkedTargetDocument(text: string, source: string): unknown {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new TargetError(`target file ${source} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || document === undefined) throw new TargetError(`target file ${source} is empty`);
  const validate = targetFileValidator();
  if (!validate(document))
    throw new TargetError(`target file ${source}: ${(validate.errors ?? []).map(describeFileError).join('; ')}`);
  return document;
}

function describeFileError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : error.instancePath.slice(1).replace(/\//g, '.');
  if (error.keyword === 'additionalProperties') {
    const key = (error.params as { additionalProperty: string }).additionalProperty;
    return `unknown key "${where ? `${where}.` : ''}${key}"`;
  }
  return `${where || 'the file'} ${error.message ?? 'is invalid'}`;
}
