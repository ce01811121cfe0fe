// Tokens never leave the kit: every text the suite or its reports write passes through a
// scrubber that replaces each token with the name of the variable that holds it, so a message
// or a curl line still reads `Bearer r:$LAS_SESSION_TOKEN`.
import { TARGET_ENVIRONMENT, type Credentials } from '../targets/target.ts';

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

/** The secrets named by the environment's credential variables. */
export function environmentSecrets(env: Record<string, string | undefined>): Secret[] {
  return credentialSecrets(Object.fromEntries(CREDENTIAL_KEYS.map((key) => [key, env[TARGET_ENVIRONMENT[key]]])));
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
