// The kit's one credential policy: what counts as a credential, and how each place a credential
// can sit in an exchange is masked. Every file and line the kit writes (the proxy's violations
// log, event stream and capture files, the reference server's request log, `judge`, `replay` and
// `report` output, saved regression cases, the run's reports) masks through this module, so they
// all hide the same set.
//
// A credential is: any Authorization or Proxy-Authorization value (the scheme is kept, and for
// Bearer the r:/p: prefix, so a replay can put its own token back), Cookie and Set-Cookie, the
// contract's legacy session header, any header, query parameter or body member named like a key,
// token, secret or password (at any depth, whatever its value), and any value equal to a token
// the writer knows (the run's own, or one the same exchange carries elsewhere).
import { readCredentials, type CredentialReading } from './credentials.ts';
import type { Headers } from './types.ts';

export const MASK = '***';

/** Case-insensitive fragments: a name containing one is a credential (`access_token`, `X-Amz-Credential`). */
export const CREDENTIAL_NAME_FRAGMENTS: readonly string[] = [
  'token',
  'passw',
  'passcode',
  'secret',
  'auth',
  'session',
  'credential',
  'signature',
  'api_key',
  'apikey',
  'api-key',
  'bearer',
  'ticket',
  'jwt',
  'cookie',
  'assertion',
  'saml',
  'privatekey',
  'private_key',
  'hmac',
  'xsrf',
  'csrf',
  'totp',
];
/** Whole words (a name split on anything but letters and digits): too short to match inside other words. */
export const CREDENTIAL_NAME_WORDS: readonly string[] = [
  'key',
  'sig',
  'pat',
  'pwd',
  'pw',
  'pass',
  'pin',
  'code',
  'sid',
  'otp',
];

/** Headers that carry a credential whatever their name says (lower case). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);
const AUTHORIZATION_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * Below this length a value is only masked where it stands whole (a query value, a JSON string), never inside other
 * text.
 */
export const SHORT_SECRET_LENGTH = 8;
/**
 * Below this length a known value is not masked even where it stands whole: a cookie `lang=en` or
 * a `pin` of 5 would otherwise mask `page[limit]=5` in the same exchange, and change what is judged.
 * The value under its own credential name is masked whatever its length.
 */
const KNOWN_VALUE_MIN = 4;

const words = new Set(CREDENTIAL_NAME_WORDS);
const NO_VALUES: ReadonlySet<string> = new Set();

/** A value to hide and what to write in its place. */
export interface Secret {
  value: string;
  placeholder: string;
}

export type Scrub = (text: string) => string;

/** Names already read, at most NAMES_KEPT of at most NAME_KEPT_LENGTH characters: a body repeats its member names. */
const namesRead = new Map<string, boolean>();
const NAMES_KEPT = 4096;
const NAME_KEPT_LENGTH = 200;

/** Whether a name (a query parameter, a body member, a header; percent-encoded or not) names a credential. */
export function credentialLikeName(name: string): boolean {
  const seen = namesRead.get(name);
  if (seen !== undefined) return seen;
  const credential = readName(name);
  if (name.length <= NAME_KEPT_LENGTH) {
    if (namesRead.size >= NAMES_KEPT) namesRead.clear();
    namesRead.set(name, credential);
  }
  return credential;
}

function readName(name: string): boolean {
  const plain = decoded(name);
  const lower = plain.toLowerCase();
  if (CREDENTIAL_NAME_FRAGMENTS.some((fragment) => lower.includes(fragment))) return true;
  // camelCase splits into words too (`apiKey`, `userPin`).
  return plain
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => words.has(word));
}

/**
 * Whether a header carries a credential: Authorization, cookies, the legacy session header, or a name like a key, token
 * or secret.
 */
export function credentialHeader(name: string, legacyHeader: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || lower === legacyHeader.toLowerCase() || credentialLikeName(lower);
}

/**
 * A header value as the kit writes it: a credential never. Authorization keeps its scheme and the
 * r:/p: prefix of a Bearer token (`Bearer r:***`, `Basic ***`); every other credential header
 * becomes `***`; any other header keeps its value with the known values masked.
 */
export function maskedHeaderValue(
  name: string,
  value: string,
  legacyHeader: string,
  known: ReadonlySet<string> = NO_VALUES,
): string {
  const lower = name.toLowerCase();
  if (AUTHORIZATION_HEADERS.has(lower)) {
    const match = /^(\S+)\s+(?:([rp]:)\S)?/.exec(value.trim());
    return match ? `${match[1]} ${match[1].toLowerCase() === 'bearer' ? (match[2] ?? '') : ''}${MASK}` : MASK;
  }
  if (credentialHeader(lower, legacyHeader)) return MASK;
  return maskKnownValues(value, known);
}

/**
 * The values an exchange's headers carry as credentials, to be masked wherever else they turn up:
 * a token whole and without its scheme and prefix, the user and password of Basic, each cookie's
 * value, the value of every other credential header.
 */
export function headerSecrets(headers: Headers, legacyHeader: string): Set<string> {
  const values = new Set<string>();
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined || !credentialHeader(name, legacyHeader)) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) addHeaderSecret(values, name.toLowerCase(), value);
  }
  const reading: CredentialReading = readCredentials(headers, legacyHeader);
  if (reading.kind === 'credential') addValue(values, reading.token);
  return values;
}

function addHeaderSecret(values: Set<string>, lower: string, value: string): void {
  const trimmed = value.trim();
  addValue(values, trimmed);
  if (AUTHORIZATION_HEADERS.has(lower)) {
    const credentials = trimmed.replace(/^\S+\s+/, '');
    addValue(values, credentials);
    addValue(values, credentials.replace(/^[rp]:/, ''));
    if (/^basic\s/i.test(trimmed))
      for (const part of Buffer.from(credentials, 'base64').toString('utf8').split(':')) addValue(values, part);
    // Digest and other schemes with parameters: each value (`response="..."`, `Signature=...`).
    for (const match of credentials.matchAll(/[\w-]+=\s*("[^"]*"|[^,\s]*)/g))
      addValue(values, match[1].replace(/^"|"$/g, ''));
  } else if (lower === 'cookie' || lower === 'set-cookie') {
    // A Cookie holds pairs; a Set-Cookie one pair, then its attributes.
    const pairs = lower === 'cookie' ? trimmed.split(';') : [trimmed.split(';')[0]];
    for (const pair of pairs) {
      const equals = pair.indexOf('=');
      if (equals > 0) addValue(values, pair.slice(equals + 1).trim());
    }
  }
}

/**
 * The target with the values of credential-like query parameters replaced by `***`, and any
 * value equal to one of `known` too. Pairs split on `&` and `;`.
 */
export function maskCredentialQuery(target: string, known: ReadonlySet<string> = NO_VALUES): string {
  const question = target.indexOf('?');
  if (question < 0) return target;
  return `${target.slice(0, question)}?${maskedPairs(target.slice(question + 1), known)}`;
}

/** The query's pairs as HAR lists them, masked as maskCredentialQuery masks them. */
export function maskedQueryPairs(
  target: string,
  known: ReadonlySet<string> = NO_VALUES,
): { name: string; value: string }[] {
  const masked = maskCredentialQuery(target, known);
  const question = masked.indexOf('?');
  if (question < 0) return [];
  return masked
    .slice(question + 1)
    .split(/[&;]/)
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? { name: pair, value: '' } : { name: pair.slice(0, equals), value: pair.slice(equals + 1) };
    });
}

/** The values of a query's credential-like parameters (decoded), to be masked wherever else they turn up. */
export function querySecrets(target: string): Set<string> {
  const values = new Set<string>();
  const question = target.indexOf('?');
  if (question < 0) return values;
  for (const pair of target.slice(question + 1).split(/[&;]/)) {
    const equals = pair.indexOf('=');
    if (equals > 0 && credentialLikeName(pair.slice(0, equals))) addValue(values, decoded(pair.slice(equals + 1)));
  }
  return values;
}

function maskedPairs(text: string, known: ReadonlySet<string>): string {
  const parts = text.split(/([&;])/);
  for (let i = 0; i < parts.length; i += 2) {
    const pair = parts[i];
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const name = pair.slice(0, equals);
    if (credentialLikeName(name) || isKnown(decoded(pair.slice(equals + 1)), known)) parts[i] = `${name}=${MASK}`;
  }
  return parts.join('');
}

/** A body as the kit writes it: its text with every credential masked, or no text and why. */
export type MaskedBody = { text: string } | { dropped: string };

const FORM_TYPE = /^application\/x-www-form-urlencoded/i;
const BOM = '\ufeff';

/**
 * A body with its credentials masked. A form body masks as a query; JSON masks every member named
 * like a credential at any depth, whatever its value (true, false and null, which hold no secret,
 * are kept so the document's shape is still judged the same), and every string equal to a known
 * value. A body that parses as neither (a trailing comma, a cut-short answer) is masked by
 * pattern (`"name": value`, `name=value`) and by the known values; when a credential-named member
 * holds an object or array there, whose end cannot be read, the body is dropped and says so.
 */
export function maskedBody(text: string, mimeType: string, known: ReadonlySet<string> = NO_VALUES): MaskedBody {
  if (FORM_TYPE.test(mimeType)) return { text: maskKnownValues(maskedPairs(text, known), known) };
  const document = parsedJson(text);
  if (document.ok) {
    const masked = maskedDocument(document.value, known);
    // A byte order mark stays: judged again, the body reads as it was sent.
    if (masked !== null) return { text: masked.changed ? `${text.startsWith(BOM) ? BOM : ''}${masked.text}` : text };
  }
  if (credentialMemberOpensValue(text))
    return {
      dropped:
        'it does not parse as JSON and holds a member named like a credential whose value is an object or a list',
    };
  return { text: maskKnownValues(maskedPatterns(text), known) };
}

/**
 * A parsed document with its credentials masked, serialized when anything was, or null when it nests too deep to walk
 * (it is then masked as text).
 */
function maskedDocument(
  document: unknown,
  known: ReadonlySet<string>,
): { changed: false } | { changed: true; text: string } | null {
  let changed = false;
  const visit = (value: unknown, name: string | null): unknown => {
    if (name !== null && credentialLikeName(name) && value !== null && typeof value !== 'boolean') {
      changed = true;
      return MASK;
    }
    if (typeof value === 'string') {
      const masked = isKnown(value, known) ? MASK : maskKnownValues(value, known);
      changed ||= masked !== value;
      return masked;
    }
    if (Array.isArray(value)) return value.map((item) => visit(item, null));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, visit(member, key)]));
  };
  try {
    const value = visit(document, null);
    return changed ? { changed, text: JSON.stringify(value) } : { changed };
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/**
 * The values of a body's credential-named members and form fields (strings and numbers), to be masked wherever else
 * they turn up.
 */
export function bodySecrets(text: string, mimeType: string): Set<string> {
  const values = new Set<string>();
  if (FORM_TYPE.test(mimeType)) {
    for (const value of querySecrets(`?${text}`)) values.add(value);
    return values;
  }
  const document = parsedJson(text);
  if (!document.ok) {
    for (const match of text.matchAll(QUOTED_MEMBER))
      if (credentialLikeName(match[1]) && !KEPT_LITERALS.has(match[3]))
        addValue(values, match[3].replace(/^"|"$/g, ''));
    return values;
  }
  const stack: { value: unknown; credential: boolean }[] = [{ value: document.value, credential: false }];
  while (stack.length > 0) {
    const { value, credential } = stack.pop()!;
    if (credential && (typeof value === 'string' || typeof value === 'number')) addValue(values, String(value));
    if (Array.isArray(value)) for (const item of value) stack.push({ value: item, credential });
    else if (value !== null && typeof value === 'object')
      for (const [key, member] of Object.entries(value))
        stack.push({ value: member, credential: credential || credentialLikeName(key) });
  }
  return values;
}

// `"name": value` in text that does not parse: a string (perhaps cut short), or a bare word or number.
// A name holds no escape: scanning one stops at the first quote or backslash, whatever the text.
const QUOTED_MEMBER = /"([^"\\]{1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*(?:"|$)|[^\s,}\]{["]+)/g;
// `name=value` in text that does not parse (a form body sent as another type, a query in a message).
const NAME_VALUE = /(^|[\s&;?,])([A-Za-z0-9_.\-[\]%]{1,200})=([^\s&;,]*)/g;
// Values that hold no secret, kept as the parsed path keeps them.
const KEPT_LITERALS: ReadonlySet<string> = new Set(['true', 'false', 'null']);
// A member opening an object or a list.
const MEMBER_OPENING_VALUE = /"([^"\\]{1,200})"\s*:\s*[{[]/g;

/**
 * Whether broken text holds a credential-named member whose value is an object or a list: where it ends cannot be told.
 */
function credentialMemberOpensValue(text: string): boolean {
  for (const match of text.matchAll(MEMBER_OPENING_VALUE)) if (credentialLikeName(match[1])) return true;
  return false;
}

function maskedPatterns(text: string): string {
  return text
    .replace(QUOTED_MEMBER, (whole, name: string, separator: string, value: string) =>
      credentialLikeName(name) && !KEPT_LITERALS.has(value) ? `"${name}"${separator}"${MASK}"` : whole,
    )
    .replace(NAME_VALUE, (whole, before: string, name: string) =>
      credentialLikeName(name) ? `${before}${name}=${MASK}` : whole,
    );
}

/**
 * Free text (a message, a log line read back) with `"name": value` and `name=value` credentials masked, and the known
 * values.
 */
export function maskedText(text: string, known: ReadonlySet<string> = NO_VALUES): string {
  return maskKnownValues(maskedPatterns(text), known);
}

function parsedJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.startsWith(BOM) ? text.slice(1) : text) };
  } catch {
    return { ok: false };
  }
}

/** Text with every known value of at least SHORT_SECRET_LENGTH characters replaced by `***`, longest first. */
export function maskKnownValues(text: string, known: ReadonlySet<string>): string {
  if (known.size === 0 || text === '') return text;
  return scrubber(
    [...known].filter((value) => value.length >= SHORT_SECRET_LENGTH).map((value) => ({ value, placeholder: MASK })),
  )(text);
}

/** A scrubber replacing each secret, wherever it stands and whatever its length, with its placeholder. */
export function scrubber(secrets: readonly Secret[]): Scrub {
  // Longest first, so a token that contains another is replaced whole.
  const ordered = [...secrets].filter((s) => s.value !== '').sort((a, b) => b.value.length - a.value.length);
  if (ordered.length === 0) return (text) => text;
  return (text) =>
    ordered.reduce(
      (out, secret) => (out.includes(secret.value) ? out.split(secret.value).join(secret.placeholder) : out),
      text,
    );
}

/** A copy of a JSON-like value with every string scrubbed, keys too. */
export function scrubDeep<T>(value: T, scrub: Scrub): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => scrubDeep(item, scrub)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubDeep(item, scrub)])) as T;
  }
  return value;
}

/** A copy of a JSON-like value with every string value scrubbed and every key kept: its shape survives any token. */
export function scrubValues<T>(value: T, scrub: Scrub): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => scrubValues(item, scrub)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValues(item, scrub)])) as T;
  return value;
}

function isKnown(value: string, known: ReadonlySet<string>): boolean {
  return value.length >= KNOWN_VALUE_MIN && known.has(value);
}

/** Adds a value to hide: not an empty one, nor one a writer already masked. */
function addValue(values: Set<string>, value: string): void {
  if (value !== '' && !value.includes(MASK)) values.add(value);
}

function decoded(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * A request target as it may be written: credential-like query values and the tokens the request's own headers carry
 * masked.
 */
export function maskedRequestTarget(path: string, headers: Headers, legacyHeader: string): string {
  return maskCredentialQuery(path, headerSecrets(headers, legacyHeader));
}
