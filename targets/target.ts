// The target of a conformance run: base URL, credentials, fixtures and limits, merged from a
// YAML file, environment variables and flags (later sources win) and checked before anything is
// sent. Errors are one line a person can act on and never contain a token.
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { createAjv, scalarText } from '../contract/index.ts';
import { settingRows, settingSource, settingValue, targetFileSchema, targetVariables, withSetting, type Fixtures, type SettingRow, type TargetSettings } from './settings.ts';

export type { Fixtures, TargetSettings } from './settings.ts';
export { settingSource, TARGET_ENVIRONMENT } from './settings.ts';

export interface Credentials {
  sessionToken: string;
  pat: string;
  /** Authenticated but not permitted; without it the 403 cases are not run. */
  forbiddenToken?: string;
}

export interface Limits {
  requestTimeoutMs: number;
  maxBodyBytes: number;
}

export interface Target {
  /** Without a trailing slash, e.g. `https://staging.example.com/v3`. */
  baseUrl: string;
  legacyHeader: string;
  credentials: Credentials;
  fixtures: Fixtures;
  limits: Limits;
  /** Sent with every request, never written anywhere (values are scrubbed like tokens). */
  extraHeaders?: Record<string, string>;
  caFile?: string;
}

/** A configuration problem: the CLI prints its message as one line and exits 2. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_MIB = 8;
const MIB = 1024 * 1024;

const TOKEN_NAMES = { sessionToken: 'session token', pat: 'personal access token', forbiddenToken: 'forbidden token' } as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = ['authorization', 'content-type', 'content-length', 'host'];

/** Parses `Name: value` (a --header flag, a line of LAS_HEADERS); the value is never echoed. */
export function parseHeaderLine(line: string, source: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon < 0 ? line.trim() : line.slice(0, colon).trim();
  if (colon < 0 || !HEADER_NAME.test(name)) throw new TargetError(`${source} must be "Name: value" with a valid header name${HEADER_NAME.test(name) ? ` (got ${name} without a colon)` : ''}`);
  return [name, line.slice(colon + 1).trim()];
}

/** LAS_HEADERS: one `Name: value` per line. */
export function parseHeaderLines(text: string, source: string): Record<string, string> {
  return Object.fromEntries(text.split(/\r?\n/).filter((line) => line.trim() !== '').map((line) => parseHeaderLine(line, source)));
}

let fileValidator: ValidateFunction | undefined;

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

function readTargetText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new TargetError(`target file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
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
  const waivers = written.map((w) => ({ requirement: w.requirement, reason: w.reason, expires: w.expires instanceof Date ? w.expires.toISOString().slice(0, 10) : w.expires }));
  const unknown = waivers.filter((w) => !requirementIds.includes(w.requirement)).map((w) => w.requirement);
  if (unknown.length > 0) throw new TargetError(`target file ${source}: waiver for ${unknown.join(', ')}, which is no requirement of the catalogue (see las-conformance contract)`);
  for (const w of waivers) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(w.expires) || Number.isNaN(Date.parse(`${w.expires}T00:00:00Z`))) throw new TargetError(`target file ${source}: the waiver for ${w.requirement} expires on "${w.expires}", not a date (YYYY-MM-DD)`);
  }
  const repeated = requirementIds.filter((id) => waivers.filter((w) => w.requirement === id).length > 1);
  if (repeated.length > 0) throw new TargetError(`target file ${source}: more than one waiver for ${repeated.join(', ')}`);
  return waivers;
}

export function parseTargetFile(text: string, source: string): TargetSettings {
  return targetFileSettings(parsedTargetFile(text, source));
}

/** The target settings of a target file read once. */
export function targetFileSettings(file: TargetFile): TargetSettings {
  return settingRows().reduce((settings, row) => withSetting(settings, row, valueAtKey(file.document, row.fileKey)), {} as TargetSettings);
}

/** A target file's text, checked, as a TargetFile named by `source`. */
function parsedTargetFile(text: string, source: string): TargetFile {
  return { path: source, document: checkedTargetDocument(text, source) as Record<string, unknown> };
}

/** The value at a dotted key of a parsed file, or undefined. */
function valueAtKey(document: Record<string, unknown>, dotted: string): unknown {
  let node: unknown = document;
  for (const step of dotted.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[step] : undefined;
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
  if (!validate(document)) throw new TargetError(`target file ${source}: ${(validate.errors ?? []).map(describeFileError).join('; ')}`);
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

/** The settings the environment gives (each row's variable); empty values count as unset. */
export function settingsFromEnvironment(env: Record<string, string | undefined>): TargetSettings {
  return settingRows().reduce((settings, row) => {
    const value = env[row.variable];
    return value === undefined || value === '' ? settings : withSetting(settings, row, parsedSetting(row, value, row.variable));
  }, {} as TargetSettings);
}

/** A setting's text as its row reads it; `source` names the flag or variable it came from. */
export function parsedSetting(row: SettingRow, text: string, source: string): unknown {
  if (row.parse === 'number') return numberSetting(text, source);
  if (row.parse === 'headers') return parseHeaderLines(text, source);
  return text;
}

/** The target settings' variables set to an empty value, by name. */
export function emptyEnvironmentSettings(env: Record<string, string | undefined>): string[] {
  return targetVariables().filter((variable) => env[variable] === '');
}

/** A number given as text by a flag or a variable; `name` says where it came from. */
export function numberSetting(text: string, name: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) throw new TargetError(`${name} must be a number, got "${text}"`);
  return value;
}

/** Later layers win, key by key; undefined never overrides. */
export function mergeSettings(...layers: TargetSettings[]): TargetSettings {
  const fixtures = Object.assign({}, ...layers.map((layer) => withoutUndefined(layer.fixtures ?? {}))) as Fixtures;
  const merged = Object.assign({}, ...layers.map(withoutUndefined)) as TargetSettings;
  return Object.keys(fixtures).length > 0 ? { ...merged, fixtures } : withoutUndefined({ ...merged, fixtures: undefined });
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

/** The names of settings that only make sense with a target base URL. */
export function targetOnlySettingsGiven(settings: TargetSettings): string[] {
  return settingRows().filter((row) => row.targetOnly && settingValue(settings, row) !== undefined).map((row) => row.flag);
}

/** Checks merged settings and fills defaults; throws TargetError with one actionable line. */
export function resolveTarget(settings: TargetSettings, defaultLegacyHeader: string): Target {
  const baseUrl = checkedBaseUrl(settings.baseUrl);
  const credentials = checkedCredentials(settings);
  const legacyHeader = checkedLegacyHeader(settings.legacyHeader ?? defaultLegacyHeader);
  return {
    baseUrl,
    legacyHeader,
    credentials,
    fixtures: withoutUndefined(settings.fixtures ?? {}),
    limits: checkedLimits(settings),
    extraHeaders: checkedExtraHeaders(settings.headers ?? {}, legacyHeader),
    ...(settings.caFile !== undefined ? { caFile: checkedCaFile(settings.caFile) } : {}),
  };
}

function checkedExtraHeaders(headers: Record<string, string>, legacyHeader: string): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new TargetError(`the extra header name "${name}" is not a valid HTTP header name`);
    if ([...RESERVED_HEADERS, legacyHeader.toLowerCase()].includes(name.toLowerCase())) throw new TargetError(`the extra header cannot be ${name}: the cases set that header themselves`);
    if (/[\r\n\0]/.test(value)) throw new TargetError(`the value of the extra header ${name} contains a line break`);
  }
  return headers;
}

function checkedCaFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TargetError(`the certificate authority file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new TargetError(`the certificate authority file ${path} holds no PEM certificate`);
  return path;
}

function checkedBaseUrl(text: string | undefined): string {
  if (text === undefined) throw new TargetError(`no target base URL: give ${settingSource('baseUrl')}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetError(`the base URL "${text}" is not an absolute URL (expected e.g. https://staging.example.com/v3)`);
  }
  // Never echo a URL that carries credentials: the message would leak them.
  if (url.username !== '' || url.password !== '') throw new TargetError('the base URL must not carry credentials; give tokens with --session-token and --pat or their variables');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetError(`the base URL must be http or https, got ${url.protocol.replace(/:$/, '')}`);
  if (url.search !== '' || url.hash !== '') throw new TargetError(`the base URL must not have a query or fragment, got "${text}"`);
  return url.href.replace(/\/+$/, '');
}

function checkedCredentials(settings: TargetSettings): Credentials {
  const names = Object.keys(TOKEN_NAMES) as (keyof typeof TOKEN_NAMES)[];
  for (const name of ['sessionToken', 'pat'] as const) {
    if (settings[name] === undefined) throw new TargetError(`no ${TOKEN_NAMES[name]}: give ${settingSource(name)}`);
  }
  for (const name of names) {
    const token = settings[name];
    // A token with spaces or commas cannot be read back from a header (docs/certification.md §2).
    if (token !== undefined && /[\s,]/.test(token)) throw new TargetError(`the ${TOKEN_NAMES[name]} contains whitespace or a comma, so it cannot be sent in a header`);
  }
  for (const [i, a] of names.entries()) {
    for (const b of names.slice(i + 1)) {
      if (settings[a] !== undefined && settings[a] === settings[b]) {
        throw new TargetError(`the ${TOKEN_NAMES[a]} and the ${TOKEN_NAMES[b]} are the same value; the credential cases need distinct tokens`);
      }
    }
  }
  return withoutUndefined({ sessionToken: settings.sessionToken!, pat: settings.pat!, forbiddenToken: settings.forbiddenToken });
}

function checkedLegacyHeader(name: string): string {
  if (!HEADER_NAME.test(name)) throw new TargetError(`the legacy header name "${name}" is not a valid HTTP header name`);
  if (RESERVED_HEADERS.includes(name.toLowerCase())) throw new TargetError(`the legacy header cannot be ${name}: the kit sends that header itself`);
  return name;
}

function checkedLimits(settings: TargetSettings): Limits {
  const requestTimeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBodyMiB = settings.maxBodyMiB ?? DEFAULT_MAX_BODY_MIB;
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 100 || requestTimeoutMs > 600_000) {
    throw new TargetError(`the request timeout must be a whole number of milliseconds from 100 to 600000, got ${requestTimeoutMs}`);
  }
  if (!(maxBodyMiB > 0 && maxBodyMiB <= 1024)) throw new TargetError(`the body size cap must be more than 0 and at most 1024 MiB, got ${maxBodyMiB}`);
  return { requestTimeoutMs, maxBodyBytes: Math.round(maxBodyMiB * MIB) };
}

/**
 * The settings whose values are secrets (the tokens, the extra headers): they travel in their own variables, never in a
 * description of the run.
 */
const SECRET_SETTINGS = [...(Object.keys(TOKEN_NAMES) as (keyof typeof TOKEN_NAMES)[]), 'headers'] as const;

/** Settings without their secrets: what may be written into a description of the run. */
export function withoutSecrets(settings: TargetSettings): TargetSettings {
  const kept: TargetSettings = { ...settings };
  for (const key of SECRET_SETTINGS) delete kept[key];
  return kept;
}

/** Only the secrets of the settings. */
export function secretsOnly(settings: TargetSettings): TargetSettings {
  return Object.fromEntries(SECRET_SETTINGS.filter((key) => settings[key] !== undefined).map((key) => [key, settings[key]]));
}

/** The variables of a resolved target's secrets only: the rest of the target travels in the run's description. */
export function secretEnvironment(target: Target): Record<string, string> {
  const secretVariables = new Set(settingRows().filter((row) => (SECRET_SETTINGS as readonly string[]).includes(row.key)).map((row) => row.variable));
  return Object.fromEntries(Object.entries(targetEnvironment(target)).filter(([name]) => secretVariables.has(name)));
}

/** A resolved target as settings, secrets left out. */
export function describedTarget(target: Target): TargetSettings {
  return withoutSecrets(settingsFromEnvironment(targetEnvironment(target)));
}

/** The environment variables that carry a resolved target to the suite's processes. */
export function targetEnvironment(target: Target): Record<string, string> {
  const settings: TargetSettings = {
    baseUrl: target.baseUrl,
    legacyHeader: target.legacyHeader,
    ...target.credentials,
    fixtures: target.fixtures,
    requestTimeoutMs: target.limits.requestTimeoutMs,
    maxBodyMiB: target.limits.maxBodyBytes / MIB,
    caFile: target.caFile,
    headers: target.extraHeaders,
  };
  const env: Record<string, string> = {};
  for (const row of settingRows()) {
    const value = settingValue(settings, row);
    if (value === undefined) continue;
    if (row.parse === 'headers') {
      const lines = Object.entries(value as Record<string, string>).map(([name, header]) => `${name}: ${header}`);
      if (lines.length > 0) env[row.variable] = lines.join('\n');
    } else env[row.variable] = scalarText(value);
  }
  return env;
}
