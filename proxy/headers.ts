// Which headers a proxy forwards. Hop-by-hop headers belong to one connection, not to the
// message (RFC 9110 section 7.6.1), so they are dropped in both directions, together with any
// header the Connection header names. Everything else passes unchanged, in its order and case.

/** Hop-by-hop headers, lower case: never forwarded. */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Request headers the proxy sets itself rather than forwards: the upstream's own Host, and
 * Expect, which Node's server already answered with 100 Continue.
 */
export const REQUEST_HEADERS_NOT_FORWARDED: readonly string[] = ['host', 'expect'];

/**
 * Lower-case ASCII header names, matched whatever the case of the name asked about. Lowercasing
 * keeps a name's length unless it yields a character outside ASCII, so a name of a length none
 * of them has is told apart without being lowercased: most headers of an exchange are.
 */
class HeaderNames {
  private readonly names: ReadonlySet<string>;
  private readonly lengths: ReadonlySet<number>;

  constructor(names: readonly string[]) {
    this.names = new Set(names);
    this.lengths = new Set(names.map((name) => name.length));
  }

  has(name: string): boolean {
    return this.lengths.has(name.length) && this.names.has(name.toLowerCase());
  }
}

const hopByHop = new HeaderNames(HOP_BY_HOP_HEADERS);
const requestOnly = new HeaderNames([...HOP_BY_HOP_HEADERS, ...REQUEST_HEADERS_NOT_FORWARDED]);

type RawHeader = string | Buffer;

const CONNECTION = 'connection';

/** A raw header name or value as a string, byte for byte (undici's are Buffers, Node's strings). */
function latin1(raw: RawHeader): string {
  return typeof raw === 'string' ? raw : raw.toString('latin1');
}

/** The end-to-end headers of a flat raw list `[name, value, name, value, ...]`, as strings. */
export function endToEndHeaders(raw: readonly RawHeader[], dropped: HeaderNames = hopByHop): string[] {
  const kept: string[] = [];
  // Names the Connection header lists besides those dropped anyway; it may come after them, so they are dropped once
  // all is read.
  let named: Set<string> | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = latin1(raw[i]);
    if (name.length === CONNECTION.length && name.toLowerCase() === CONNECTION) {
      named = connectionTokens(latin1(raw[i + 1]), dropped, named);
      continue;
    }
    if (!dropped.has(name)) kept.push(name, latin1(raw[i + 1]));
  }
  return named === null ? kept : withoutNames(kept, named);
}

/** The end-to-end headers of a request, without the ones the proxy sets itself. */
export function forwardedRequestHeaders(raw: readonly string[]): string[] {
  return endToEndHeaders(raw, requestOnly);
}

/** Who reached the proxy: the client's address and the Host it asked for. */
export interface ClientConnection {
  address: string | undefined;
  host: string | undefined;
  /** Whether the client reached the proxy over TLS; plain http when absent. */
  encrypted?: boolean;
}

/** The forwarding headers a peer the operator does not trust may not set: the proxy's own replace them. */
const UNTRUSTED_FORWARDING: ReadonlySet<string> = new Set([
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'forwarded',
]);

/**
 * Adds the de facto forwarding headers to a request's forwarded list, in place: the client's
 * address appended to X-Forwarded-For (a trusted proxy in front of this one may have started the
 * list), and X-Forwarded-Proto (the scheme the client used to reach the proxy) and
 * X-Forwarded-Host unless a trusted proxy set them, since theirs name what the original client
 * used. From any other peer, whatever forwarding headers it wrote are dropped first: the upstream
 * sees only the proxy's.
 */
export function addForwardedHeaders(headers: string[], client: ClientConnection, trustedPeer = false): void {
  if (!trustedPeer) headers.splice(0, headers.length, ...withoutNames(headers, UNTRUSTED_FORWARDING));
  const forwardedFor = headerIndex(headers, 'x-forwarded-for');
  const address = client.address ?? 'unknown';
  if (forwardedFor < 0) headers.push('X-Forwarded-For', address);
  else headers[forwardedFor + 1] = `${headers[forwardedFor + 1]}, ${address}`;
  if (headerIndex(headers, 'x-forwarded-proto') < 0)
    headers.push('X-Forwarded-Proto', client.encrypted === true ? 'https' : 'http');
  if (headerIndex(headers, 'x-forwarded-host') < 0 && client.host !== undefined)
    headers.push('X-Forwarded-Host', client.host);
}

/** Index of a header's name in a flat raw list (first occurrence, case-insensitive); -1 when absent. */
function headerIndex(raw: readonly string[], name: string): number {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === name.length && raw[i].toLowerCase() === name) return i;
  return -1;
}

/**
 * Adds the header names a Connection value lists (`close, X-Foo`) that `dropped` does not hold, lower case; null while
 * there are none.
 */
function connectionTokens(value: string, dropped: HeaderNames, named: Set<string> | null): Set<string> | null {
  // The usual value is one such name (`keep-alive`): nothing to split.
  if (dropped.has(value)) return named;
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (!dropped.has(name)) (named ??= new Set()).add(name);
  }
  return named;
}

/** A flat list of string headers without those whose lower-case name is one of `names`. */
function withoutNames(headers: readonly string[], names: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (!names.has(headers[i].toLowerCase())) kept.push(headers[i], headers[i + 1]);
  return kept;
}

/** A flat raw list without every occurrence of one header (case-insensitive). */
export function withoutHeader(raw: readonly string[], name: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() !== name) kept.push(raw[i], raw[i + 1]);
  return kept;
}

/** The value of a header in a flat raw list (first occurrence, case-insensitive). */
export function rawHeaderValue(raw: readonly string[], name: string): string | undefined {
  const index = headerIndex(raw, name);
  return index < 0 ? undefined : raw[index + 1];
}

/** A flat raw list as a headers object (lower-case names, repeated headers joined as arrays). */
export function headersObject(raw: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const existing = headers[name];
    headers[name] =
      existing === undefined
        ? raw[i + 1]
        : Array.isArray(existing)
          ? [...existing, raw[i + 1]]
          : [existing, raw[i + 1]];
  }
  return headers;
}
