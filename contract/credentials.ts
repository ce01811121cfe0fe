// Reads which of the three credential schemes a request uses (section 5). Judging
// whether a token is valid is the server's business; this only reads the shape.
import type { Headers } from './types.ts';

export type Scheme = 'session' | 'pat' | 'legacy';

export type CredentialReading =
  { kind: 'none' } | { kind: 'malformed'; reason: string } | { kind: 'credential'; scheme: Scheme; token: string };

export const DEFAULT_LEGACY_HEADER = 'X-Svc-Session-Token';

const bearerPrefixes: Record<string, Scheme> = { 'r:': 'session', 'p:': 'pat' };

export function headerValue(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  // Node's own headers objects have lower-case names: look there first, scan only on a miss.
  const direct = headers[wanted];
  if (direct !== undefined) return Array.isArray(direct) ? direct.join(', ') : direct;
  // Own members only, in their order, without a list of entries per miss (a response without Content-Encoding misses on
  // every exchange).
  for (const key in headers) {
    if (!Object.hasOwn(headers, key) || key.toLowerCase() !== wanted) continue;
    const value = headers[key];
    if (value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

export function readCredentials(headers: Headers, legacyHeader = DEFAULT_LEGACY_HEADER): CredentialReading {
  const authorization = headerValue(headers, 'authorization');
  if (authorization !== undefined) return readAuthorization(authorization);
  const legacy = headerValue(headers, legacyHeader);
  if (legacy !== undefined) {
    const token = legacy.trim();
    return token === ''
      ? { kind: 'malformed', reason: `empty ${legacyHeader} header` }
      : { kind: 'credential', scheme: 'legacy', token };
  }
  return { kind: 'none' };
}

/** Whether readCredentials reads anything but none (credentials in some shape), without reading their shape. */
export function carriesCredentials(headers: Headers, legacyHeader = DEFAULT_LEGACY_HEADER): boolean {
  return headerValue(headers, 'authorization') !== undefined || headerValue(headers, legacyHeader) !== undefined;
}

function readAuthorization(value: string): CredentialReading {
  // HTTP auth-schemes are case-insensitive (RFC 9110 section 11.1), so "bearer" reads as Bearer.
  const match = /^(\S+) (.*)$/.exec(value.trim());
  if (!match || match[1].toLowerCase() !== 'bearer')
    return { kind: 'malformed', reason: 'Authorization is not "Bearer <prefix>:<token>"' };
  const credentials = match[2];
  const scheme = bearerPrefixes[credentials.slice(0, 2)];
  if (!scheme) return { kind: 'malformed', reason: 'Bearer value has no r: or p: prefix' };
  const token = credentials.slice(2);
  if (token === '' || /\s/.test(token)) return { kind: 'malformed', reason: 'Bearer token is empty or has spaces' };
  return { kind: 'credential', scheme, token };
}
