// Who a request comes from, for fairness, the judging backlog's shares and the dashboard's. The
// socket's peer, unless the operator said which peers are proxies of its own (--forwarded-headers
// with --trusted-proxies): from those, the last address of X-Forwarded-For (else of Forwarded's
// `for=`) that is not itself a trusted proxy. A client that writes its own X-Forwarded-For so
// changes nothing: only a trusted peer's list is read.
import { BlockList, isIP } from 'node:net';

/** Characters of a client's key kept (a trusted proxy's list may name what it likes: `unknown`, `_hidden`). */
const CLIENT_KEY_MAX = 64;

/**
 * Addresses whose trust is remembered at most (a BlockList check builds a SocketAddress each time: about 5 µs per
 * request).
 */
const TRUST_MEMO_MAX = 1024;

export interface ClientIdentityOptions {
  /** --forwarded-headers: the proxy sets the forwarding headers itself, and reads trusted peers' ones. */
  forwardedHeaders: boolean;
  /** Addresses and CIDR ranges (`10.0.0.0/8`, `::1`) of the proxies in front whose forwarding headers are believed. */
  trustedProxies: readonly string[];
}

/** A request's peer and forwarding headers, as the identity reads them. */
export interface PeerRequest {
  peer: string | undefined;
  forwardedFor: string | string[] | undefined;
  forwarded: string | string[] | undefined;
}

/** An address read the same way whichever of its forms came: an IPv4 address mapped into IPv6 as IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * The key one client is known by: an IPv4 address, or an IPv6 address's /64 (one subscriber's
 * network: an IPv6 client can send each request from another address of it).
 */
export function clientKey(address: string): string {
  const plain = plainAddress(address.trim());
  if (isIP(plain) !== 6) return plain.slice(0, CLIENT_KEY_MAX);
  const groups = expandedIpv6(plain);
  return groups === null ? plain.slice(0, CLIENT_KEY_MAX) : `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, each without leading zeros; null for a form not understood. */
function expandedIpv6(address: string): string[] | null {
  const [head, tail, extra] = address.toLowerCase().replace(/%.*$/, '').split('::');
  if (extra !== undefined || /\./.test(address)) return null;
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...front, ...new Array<string>(missing).fill('0'), ...back].map((group) => group.replace(/^0+(?=.)/, ''));
}

/** The trusted ranges as a BlockList; an entry that is neither an address nor a range is an error naming it. */
export function trustedRanges(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const range = parsedRange(entry.trim());
    if (range === null)
      throw new Error(
        `--trusted-proxies: "${entry}" is neither an address nor a CIDR range (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)`,
      );
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return list;
}

/** `10.0.0.0/8`, `fd00::/8` or a lone address (its own range); null for anything else. */
function parsedRange(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry);
  const version = match ? isIP(match[1]) : 0;
  if (!match || version === 0) return null;
  const widest = version === 6 ? 128 : 32;
  const prefix = match[2] === undefined ? widest : Number(match[2]);
  return prefix > widest ? null : { address: match[1], prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
}

/** The entries of a Forwarded header's `for=` parameters, in order (RFC 7239 section 4). */
function forwardedForEntries(value: string): string[] {
  const entries: string[] = [];
  for (const element of value.split(',')) {
    for (const pair of element.split(';')) {
      const match = /^\s*for\s*=\s*"?([^"]*)"?\s*$/i.exec(pair);
      if (match) entries.push(nodeAddress(match[1]));
    }
  }
  return entries;
}

/** A Forwarded node (`192.0.2.43:47011`, `[2001:db8::1]:4711`) without its port. */
function nodeAddress(node: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(node);
  if (bracketed) return bracketed[1];
  return /^\d+\.\d+\.\d+\.\d+:\d+$/.test(node) ? node.slice(0, node.lastIndexOf(':')) : node;
}

function joined(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

export class ClientIdentity {
  private readonly trusted: BlockList;
  private readonly trustOf = new Map<string, boolean>();

  constructor(private readonly options: ClientIdentityOptions) {
    this.trusted = trustedRanges(options.trustedProxies);
  }

  /** Whether the peer is a proxy the operator trusts to say who its client is (never without --forwarded-headers). */
  trusts(peer: string | undefined): boolean {
    if (!this.options.forwardedHeaders || peer === undefined) return false;
    let trusted = this.trustOf.get(peer);
    if (trusted === undefined) {
      const address = plainAddress(peer);
      const family = isIP(address);
      trusted = family !== 0 && this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
      // Forgotten all at once when full: a forwarded list can name new addresses without end.
      if (this.trustOf.size >= TRUST_MEMO_MAX) this.trustOf.clear();
      this.trustOf.set(peer, trusted);
    }
    return trusted;
  }

  /** The key the request's client is known by (see the head of this file). */
  clientOf(request: PeerRequest): string {
    const peer = request.peer ?? '';
    if (!this.trusts(request.peer)) return clientKey(peer);
    const forwardedFor = joined(request.forwardedFor);
    const chain =
      forwardedFor !== undefined
        ? forwardedFor.split(',').map((entry) => entry.trim())
        : forwardedForEntries(joined(request.forwarded) ?? '');
    const named = chain.filter((entry) => entry !== '');
    for (let i = named.length - 1; i >= 0; i -= 1) if (!this.trusts(named[i])) return clientKey(named[i]);
    // Every hop a trusted proxy: the first of them is where the request began.
    return clientKey(named[0] ?? peer);
  }
}
