// Credentials never reach a log line: wherever the kit writes a request target (the proxy's
// violations log, event stream and summary; the reference server's request log), query
// parameters whose names look like a credential keep their name and lose their value. One
// function for every part, so they mask the same set.

export const MASK = '***';

/** Case-insensitive fragments: a name containing one is a credential (`access_token`, `X-Amz-Credential`). */
export const CREDENTIAL_NAME_FRAGMENTS: readonly string[] = ['token', 'passw', 'passcode', 'secret', 'auth', 'session', 'credential', 'signature', 'api_key', 'apikey', 'bearer', 'ticket', 'jwt', 'cookie', 'assertion', 'saml', 'privatekey', 'private_key', 'hmac', 'xsrf', 'csrf', 'totp'];
/** Whole words (a name split on anything but letters and digits): too short to match inside other words. */
export const CREDENTIAL_NAME_WORDS: readonly string[] = ['key', 'sig', 'pat', 'pwd', 'pw', 'pass', 'pin', 'code', 'sid', 'otp'];

const words = new Set(CREDENTIAL_NAME_WORDS);
const NO_VALUES: ReadonlySet<string> = new Set();

/** Whether a query parameter name (percent-encoded or not) names a credential. */
export function credentialLikeName(name: string): boolean {
  const lower = decoded(name).toLowerCase();
  if (CREDENTIAL_NAME_FRAGMENTS.some((fragment) => lower.includes(fragment))) return true;
  return lower.split(/[^a-z0-9]+/).some((word) => words.has(word));
}

/**
 * The target with the values of credential-like query parameters replaced by `***`, and any
 * value equal to one of `knownValues` (tokens the caller knows) too. Pairs split on `&` and `;`.
 */
export function maskCredentialQuery(target: string, knownValues: ReadonlySet<string> = NO_VALUES): string {
  const question = target.indexOf('?');
  if (question < 0) return target;
  const parts = target.slice(question + 1).split(/([&;])/);
  for (let i = 0; i < parts.length; i += 2) {
    const pair = parts[i];
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const name = pair.slice(0, equals);
    if (credentialLikeName(name) || (knownValues.size > 0 && knownValues.has(decoded(pair.slice(equals + 1))))) parts[i] = `${name}=${MASK}`;
  }
  return `${target.slice(0, question)}?${parts.join('')}`;
}

function decoded(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
