// The admin port: liveness, readiness (the upstream answers a TCP connect), Prometheus
// metrics, and the dashboard with its event stream. Nothing here ever sees a credential.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { connect, isIP } from 'node:net';
import { DASHBOARD_HTML, EVENT_CLIENTS_MAX, EVENT_CLIENTS_PER_ADDRESS, type DashboardFeed } from './dashboard.ts';
import type { ProxyMetrics } from './metrics.ts';

const READINESS_TIMEOUT_MS = 1000;
/**
 * How long (ms) one probe of the upstream answers /readyz. Balancers, orchestrators and monitors
 * may each probe every replica often; without it each probe opened a connection to the service.
 */
export const READINESS_CACHE_MS = 1000;

export interface AdminContext {
  metrics: ProxyMetrics;
  feed: DashboardFeed;
  upstream: URL;
  /** False once the proxy is shutting down: it is alive but no longer ready. */
  accepting: () => boolean;
  /** Why the proxy is not ready although the upstream answers (a failing violations log), or null. */
  trouble?: () => string | null;
  /**
   * When set, every endpoint but /healthz and /readyz asks for `Authorization: Bearer <token>` (or `?token=` from a
   * browser).
   */
  token?: string;
  /**
   * Whether the upstream accepts a connection, probed at most once a second; createAdminServer makes one when absent.
   */
  readiness?: ReadinessProbe;
}

/**
 * The upstream's reachability as /readyz tells it: one TCP probe at a time, its answer kept for
 * READINESS_CACHE_MS, so a thousand probes of the admin port open one connection to the service.
 */
export class ReadinessProbe {
  private probing: Promise<boolean> | null = null;
  private answer: { reachable: boolean; at: number } | null = null;

  constructor(
    private readonly upstream: URL,
    private readonly probe: (upstream: URL) => Promise<boolean> = upstreamReachable,
    private readonly now: () => number = Date.now,
  ) {}

  reachable(): Promise<boolean> {
    if (this.answer !== null && this.now() - this.answer.at < READINESS_CACHE_MS)
      return Promise.resolve(this.answer.reachable);
    this.probing ??= this.probe(this.upstream).then((reachable) => {
      this.answer = { reachable, at: this.now() };
      this.probing = null;
      return reachable;
    });
    return this.probing;
  }
}

type AdminRoute = (context: AdminContext, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const adminRoutes: Record<string, AdminRoute> = {
  '/': (_context, _req, res) => send(res, 200, 'text/html; charset=utf-8', DASHBOARD_HTML),
  '/healthz': (_context, _req, res) => sendJson(res, 200, { status: 'ok' }),
  '/readyz': async (context, _req, res) => {
    if (!context.accepting()) return sendJson(res, 503, { status: 'closing' });
    const trouble = context.trouble?.() ?? null;
    if (trouble !== null) return sendJson(res, 503, { status: trouble });
    const reachable = await context.readiness!.reachable();
    sendJson(res, reachable ? 200 : 503, {
      status: reachable ? 'ready' : 'upstream unreachable',
      upstream: context.upstream.host,
    });
  },
  '/metrics': async (context, _req, res) =>
    send(res, 200, context.metrics.registry.contentType, await context.metrics.registry.metrics()),
  '/summary.json': (context, _req, res) => sendJson(res, 200, context.feed.snapshot()),
  '/events': (context, _req, res) => {
    if (!context.feed.subscribe(res))
      sendJson(res, 503, {
        status: `too many event clients (at most ${EVENT_CLIENTS_MAX}, ${EVENT_CLIENTS_PER_ADDRESS} from one client: an address, or an IPv6 /64)`,
      });
  },
};

/** Probes a load balancer calls without credentials. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

export function createAdminServer(given: AdminContext): Server {
  const context = { ...given, readiness: given.readiness ?? new ReadinessProbe(given.upstream) };
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handler = req.method === 'GET' || req.method === 'HEAD' ? adminRoutes[path] : undefined;
    if (context.token !== undefined && !OPEN_PATHS.has(path) && !authorized(req, context.token)) {
      res.setHeader('www-authenticate', 'Bearer realm="las-proxy-admin"');
      return sendJson(res, 401, { status: 'unauthorized' });
    }
    // Without a token, a page elsewhere could rebind its own name to this address and read the
    // summary from a browser: only an address or localhost is answered then (DNS rebinding).
    if (context.token === undefined && !OPEN_PATHS.has(path) && !addressedDirectly(req.headers.host)) {
      return sendJson(res, 403, {
        status:
          'without an admin token only requests addressed to an IP address or localhost are answered; set a token to use a host name',
      });
    }
    if (!handler) return sendJson(res, 404, { status: 'not found', paths: Object.keys(adminRoutes) });
    Promise.resolve(handler(context, req, res)).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { status: 'error' });
      else res.destroy();
    });
  });
}

/** Whether a Host header names an IP address or localhost (with or without a port), not a name DNS could rebind. */
export function addressedDirectly(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.replace(/:\d{1,5}$/, '').toLowerCase();
  if (name === 'localhost') return true;
  if (/^\[[0-9a-f:.]+\]$/.test(name)) return isIP(name.slice(1, -1)) === 6;
  return isIP(name) === 4;
}

/**
 * The admin token, from the Authorization header or (for the dashboard in a browser) the `token` query parameter;
 * compared in constant time.
 */
function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  const given = header?.startsWith('Bearer ')
    ? header.slice(7)
    : new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('token');
  if (!given) return false;
  const expected = Buffer.from(token);
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Readiness: a TCP connection to the upstream opens within a second. */
export function upstreamReachable(upstream: URL): Promise<boolean> {
  const port = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.setTimeout(READINESS_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}
