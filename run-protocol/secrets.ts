// Tokens never leave the kit: every text the suite or its reports write passes through a
// scrubber that replaces each token with the name of the variable that holds it, so a message
// or a curl line still reads `Bearer r:$LAS_SESSION_TOKEN`.
import { parseHeaderLines, TARGET_ENVIRONMENT, type Credentials, type Target } from '../targets/target.ts';

export interface Secret {
  value: string;
  placeholder: string;
}

export type Scrub = (text: string) => string;

const CREDENTIAL_KEYS = ['sessionToken', 'pat', 'forbiddenToken'] as const;

export function credentialSecrets(credentials: Partial<Credentials>): Secret[] {
  return CREDENTIAL_KEYS.flatMap((key) => {
    const value = credentials[key];
    return value ? [{ value, placeholder: `$${TARGET_ENVIRONMENT[key]}` }] : [];
  });
}

/** Values of the extra request headers (--header): secrets like the tokens, named by their header. */
export function headerSecrets(headers: Record<string, string>): Secret[] {
  return Object.entries(headers).filter(([, value]) => value !== '').map(([name, value]) => ({ value, placeholder: `<value of ${name}>` }));
}

export function targetSecrets(target: Target): Secret[] {
  return [...credentialSecrets(target.credentials), ...headerSecrets(target.extraHeaders ?? {})];
}

/** The secrets named by the environment's credential and header variables. */
export function environmentSecrets(env: Record<string, string | undefined>): Secret[] {
  const headers = env[TARGET_ENVIRONMENT.headers];
  let headerValues: Secret[] = [];
  try {
    headerValues = headers ? headerSecrets(parseHeaderLines(headers, TARGET_ENVIRONMENT.headers)) : [];
  } catch {
    // A malformed variable still hides its lines' text: each whole line is scrubbed.
    headerValues = (headers ?? '').split(/\r?\n/).filter((line) => line.trim() !== '').map((line) => ({ value: line, placeholder: `<${TARGET_ENVIRONMENT.headers} line>` }));
  }
  return [...credentialSecrets(Object.fromEntries(CREDENTIAL_KEYS.map((key) => [key, env[TARGET_ENVIRONMENT[key]]]))), ...headerValues];
}

/** Below this length a token is likely to turn up inside other text, which the reports then mask as well. */
export const SHORT_SECRET_LENGTH = 8;

/**
 * One warning per secret short enough to turn up inside other text. Every occurrence is masked,
 * whatever its length (a minimum would let short tokens through), so the reports of a run with a
 * one-letter token read `$LAS_PAT` in place of every such letter: the run says so before it starts.
 */
export function shortSecretWarnings(secrets: Secret[]): string[] {
  return secrets
    .filter((secret) => secret.value !== '' && secret.value.length < SHORT_SECRET_LENGTH)
    .map((secret) => `warning: ${secret.placeholder} is ${secret.value.length} character${secret.value.length === 1 ? '' : 's'} long; the reports replace every occurrence of it with ${secret.placeholder}, so text that merely contains it is masked too`);
}

export function scrubber(secrets: Secret[]): Scrub {
  // Longest first, so a token that contains another is replaced whole.
  const ordered = [...secrets].filter((s) => s.value !== '').sort((a, b) => b.value.length - a.value.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((out, secret) => out.split(secret.value).join(secret.placeholder), text);
}

/** A copy of a JSON-like value with every string scrubbed. */
export function scrubDeep<T>(value: T, scrub: Scrub): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubDeep(item, scrub)])) as T;
  }
  return value;
}

/** A copy of a JSON-like value with every string value scrubbed and every key kept: its shape survives any token. */
export function scrubValues<T>(value: T, scrub: Scrub): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((item) => scrubValues(item, scrub)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValues(item, scrub)])) as T;
  return value;
}
