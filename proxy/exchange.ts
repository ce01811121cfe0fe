// One client exchange as the proxy saw it: what forwarding fills in as it goes, and what judging
// and publishing read once it is over.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { headerValue, originForm, type Finding, type Located } from '../contract/index.ts';
import type { BodyTap } from './body.ts';
import { clientKey } from './client-identity.ts';
import { rawHeaderValue } from './headers.ts';
import { NO_BODY, type CapturedBody, type JudgedRequest } from './judge.ts';

/** X-Request-Id values passed on and logged: a bounded length, characters of a token set. */
export const REQUEST_ID_MAX_LENGTH = 200;
const REQUEST_ID_CHARACTERS = /^[A-Za-z0-9._~:@+=/-]+$/;

/** Whether a client's X-Request-Id is passed on and logged as given; otherwise the proxy makes one. */
export function acceptableRequestId(value: string | string[] | undefined): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= REQUEST_ID_MAX_LENGTH &&
    REQUEST_ID_CHARACTERS.test(value)
  );
}

export class ProxiedExchange {
  readonly requestId: string;
  readonly requestIdGiven: boolean;
  /** Set when the client sent an X-Request-Id the proxy does not pass on (too long, or outside the token set). */
  readonly requestIdRefused: boolean;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** Who sent it, for its shares of the forwarding thread and the judging backlog (client-identity.ts). */
  readonly client: string;
  requestBody: CapturedBody = NO_BODY;
  judgedRequest: JudgedRequest | null = null;
  /** Where the request belongs (located once, by admission or judging); null until then. */
  location: Located | null = null;
  /** The upstream's status; null when the upstream never answered. */
  status: number | null = null;
  /** The status the client received when it is not the upstream's (the proxy answered itself). */
  proxyStatus: number | null = null;
  responseHeaders: string[] = [];
  responseTap: BodyTap | null = null;
  responseComplete = false;
  /** What the proxy could not judge as the upstream will read it (admission.ts). */
  admission: Finding[] = [];
  /** Findings already known (enforce mode judges before answering), and the time judging took. */
  findings: Finding[] | null = null;
  judgeSeconds = 0;
  clientGone = false;
  completedAt = 0;
  /** When the request left for the upstream (performance.now()). */
  forwardedAt = 0;
  abortUpstream: ((error?: Error) => void) | null = null;
  /** The request's body as it is forwarded once read: what was read whole, or a stream of all of it. */
  forwardedBody: Buffer | Readable | null = null;
  /**
   * Set once the client was held back for its share of the forwarding thread (fairness.ts): counted once per request.
   */
  heldBack = false;

  constructor(
    req: IncomingMessage,
    readonly sampled: boolean,
    client: string = clientKey(req.socket.remoteAddress ?? ''),
  ) {
    const given = req.headers['x-request-id'];
    this.requestIdGiven = acceptableRequestId(given);
    this.requestIdRefused = given !== undefined && !this.requestIdGiven;
    this.requestId = this.requestIdGiven ? (given as string) : randomUUID();
    this.method = req.method ?? 'GET';
    // An asterisk-form target (OPTIONS *) names no path: it is forwarded as the root.
    const target = originForm(req.url ?? '/');
    this.path = target.startsWith('/') ? target : '/';
    this.headers = req.headers;
    this.client = client;
  }
}

/** Whether either body of the exchange came in a content coding (its decoded size is unknown until decoded). */
export function contentCoded(exchange: ProxiedExchange): boolean {
  return (
    (exchange.requestBody.kind === 'captured' && namesCoding(headerValue(exchange.headers, 'content-encoding'))) ||
    (exchange.responseTap !== null && namesCoding(rawHeaderValue(exchange.responseHeaders, 'content-encoding')))
  );
}

/** Whether a Content-Encoding value names a coding other than identity. */
function namesCoding(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '' && value.trim().toLowerCase() !== 'identity';
}
