// Credentials never reach a log line (issue 5): query parameters whose names look like a
// credential keep their name but lose their value wherever the proxy writes a path.

/** Case-insensitive name fragments that mark a query parameter as a credential. */
export const CREDENTIAL_PARAMETER_FRAGMENTS: readonly string[] = ['token', 'access_token', 'api_key', 'key', 'session', 'password', 'secret', 'auth'];

export const MASK = '***';

const credentialName = new RegExp(CREDENTIAL_PARAMETER_FRAGMENTS.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');

/** The path with the values of credential-like query parameters replaced by `***`. */
export function maskCredentialQuery(path: string): string {
  const question = path.indexOf('?');
  if (question < 0) return path;
  const pairs = path.slice(question + 1).split('&').map(maskPair);
  return `${path.slice(0, question)}?${pairs.join('&')}`;
}

function maskPair(pair: string): string {
  const equals = pair.indexOf('=');
  const name = equals < 0 ? pair : pair.slice(0, equals);
  if (!credentialName.test(decodedName(name))) return pair;
  return equals < 0 ? pair : `${name}=${MASK}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
