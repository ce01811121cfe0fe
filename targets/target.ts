// The target of a conformance run: base URL, credentials, fixtures and limits, merged from a
// YAML file (target-file.ts), environment variables (target-environment.ts) and flags (later
// sources win) and checked here before anything is sent. Errors are one line a person can act on
// and never contain a token.
import {
  settingRows,
  settingSource,
  settingValue,
  type Fixtures,
  type SettingRow,
  type TargetSettings,
} from './settings.ts';
import { readWholeFile } from './whole-file.ts';

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
export const MIB = 1024 * 1024;

export const TOKEN_NAMES = {
  sessionToken: 'session token',
  pat: 'personal access token',
  forbiddenToken: 'forbidden token',
} as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = ['authorization', 'content-type', 'content-length', 'host'];

/** Parses `Name: value` (a --header flag, a line of LAS_HEADERS); the value is never echoed. */
export function parseHeaderLine(line: string, source: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon < 0 ? line.trim() : line.slice(0, colon).trim();
  if (colon < 0 || !HEADER_NAME.test(name))
    throw new TargetError(
      `${source} must be "Name: value" with a valid header name${HEADER_NAME.test(name) ? ` (got ${name} without a colon)` : ''}`,
    );
  return [name, line.slice(colon + 1).trim()];
}

/** LAS_HEADERS: one `Name: value` per line. */
export function parseHeaderLines(text: string, source: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line) => parseHeaderLine(line, source)),
  );
}

/** A setting's text as its row reads it; `source` names the flag or variable it came from. */
export function parsedSetting(row: SettingRow, text: string, source: string): unknown {
  if (row.parse === 'number') return numberSetting(text, source);
  if (row.parse === 'headers') return parseHeaderLines(text, source);
  return text;
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
  return Object.keys(fixtures).length > 0
    ? { ...merged, fixtures }
    : withoutUndefined({ ...merged, fixtures: undefined });
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

/** The names of settings that only make sense with a target base URL. */
export function targetOnlySettingsGiven(settings: TargetSettings): string[] {
  return settingRows()
    .filter((row) => row.targetOnly && settingValue(settings, row) !== undefined)
    .map((row) => row.flag);
}

/** Checks merged settings and fills defaults; throws TargetError with one actionable line. */
export function resolveTarget(settings: TargetSettings, defaultLegacyHeader: string): Target {
  refuseControlCharacters(settings);
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

/** A control character (C0, DEL, C1); a header value may hold a tab (RFC 9110, 5.5), nothing else of them. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_CHARACTER_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/** `U+001B`: how a character is named where the value holding it must not be shown. */
const codePoint = (character: string) => `U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Every text setting holding a control character is refused as the setting's fault, named by its
 * label and where it can be given, its value never shown (a token is a secret): sent as it is, it
 * would fail every request (ERR_INVALID_CHAR) and read as the target's fault.
 */
function refuseControlCharacters(settings: TargetSettings): void {
  for (const row of settingRows()) {
    const value = settingValue(settings, row);
    const texts = row.parse === 'headers' ? Object.values((value ?? {}) as Record<string, string>) : [value];
    const pattern = row.parse === 'headers' ? CONTROL_CHARACTER_BUT_TAB : CONTROL_CHARACTER;
    for (const text of texts) {
      const found = typeof text === 'string' ? pattern.exec(text)?.[0] : undefined;
      if (found === undefined) continue;
      const where = row.parse === 'headers' ? 'a value of the extra headers' : `the ${row.label}`;
      throw new TargetError(
        `${where} (${settingSource(row.key)}) holds a control character (${codePoint(found)}): ` +
          'check how it was set, a stray line break or escape sequence say; the value is not shown',
      );
    }
  }
}

function checkedExtraHeaders(headers: Record<string, string>, legacyHeader: string): Record<string, string> {
  for (const name of Object.keys(headers)) {
    if (!HEADER_NAME.test(name))
      throw new TargetError(`the extra header name "${name}" is not a valid HTTP header name`);
    if ([...RESERVED_HEADERS, legacyHeader.toLowerCase()].includes(name.toLowerCase()))
      throw new TargetError(`the extra header cannot be ${name}: the cases set that header themselves`);
  }
  return headers;
}

/**
 * The most a certificate authority file may hold: a whole public bundle (Mozilla's, some 150 certificates) is about
 * 220 KiB, so this leaves room for any internal bundle.
 */
export const CA_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The certificate authority file's text, read whole within CA_FILE_MAX_BYTES; a TargetError of one line otherwise.
 * Every reader of the file (the check here, the preflight, replay) reads it so.
 */
export function readCaFile(path: string): string {
  try {
    return readWholeFile({ what: 'the certificate authority file', path, maxBytes: CA_FILE_MAX_BYTES }).toString(
      'utf8',
    );
  } catch (error) {
    throw new TargetError((error as Error).message);
  }
}

function checkedCaFile(path: string): string {
  const text = readCaFile(path);
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new TargetError(`the certificate authority file ${path} holds no PEM certificate`);
  return path;
}

function checkedBaseUrl(text: string | undefined): string {
  if (text === undefined) throw new TargetError(`no target base URL: give ${settingSource('baseUrl')}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetError(
      `the base URL "${text}" is not an absolute URL (expected e.g. https://staging.example.com/v3)`,
    );
  }
  // Never echo a URL that carries credentials: the message would leak them.
  if (url.username !== '' || url.password !== '')
    throw new TargetError(
      'the base URL must not carry credentials; give tokens with --session-token and --pat or their variables',
    );
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TargetError(`the base URL must be http or https, got ${url.protocol.replace(/:$/, '')}`);
  if (url.search !== '' || url.hash !== '')
    throw new TargetError(`the base URL must not have a query or fragment, got "${text}"`);
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
    if (token !== undefined && /[\s,]/.test(token))
      throw new TargetError(
        `the ${TOKEN_NAMES[name]} contains whitespace or a comma, so it cannot be sent in a header`,
      );
  }
  for (const [i, a] of names.entries()) {
    for (const b of names.slice(i + 1)) {
      if (settings[a] !== undefined && settings[a] === settings[b]) {
        throw new TargetError(
          `the ${TOKEN_NAMES[a]} and the ${TOKEN_NAMES[b]} are the same value; the credential cases need distinct tokens`,
        );
      }
    }
  }
  return withoutUndefined({
    sessionToken: settings.sessionToken!,
    pat: settings.pat!,
    forbiddenToken: settings.forbiddenToken,
  });
}

function checkedLegacyHeader(name: string): string {
  if (!HEADER_NAME.test(name))
    throw new TargetError(`the legacy header name "${name}" is not a valid HTTP header name`);
  if (RESERVED_HEADERS.includes(name.toLowerCase()))
    throw new TargetError(`the legacy header cannot be ${name}: the kit sends that header itself`);
  return name;
}

function checkedLimits(settings: TargetSettings): Limits {
  const requestTimeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBodyMiB = settings.maxBodyMiB ?? DEFAULT_MAX_BODY_MIB;
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 100 || requestTimeoutMs > 600_000) {
    throw new TargetError(
      `the request timeout must be a whole number of milliseconds from 100 to 600000, got ${requestTimeoutMs}`,
    );
  }
  if (!(maxBodyMiB > 0 && maxBodyMiB <= 1024))
    throw new TargetError(`the body size cap must be more than 0 and at most 1024 MiB, got ${maxBodyMiB}`);
  return { requestTimeoutMs, maxBodyBytes: Math.round(maxBodyMiB * MIB) };
}
