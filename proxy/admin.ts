// The admin port: liveness, readiness (the upstream answers a TCP connect), Prometheus
// metrics, and the dashboard with its event stream. Nothing here ever sees a credential.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { DASHBOARD_HTML, type DashboardFeed } from './dashboard.ts';
import type { ProxyMetrics } from './metrics.ts';

const READINESS_TIMEOUT_MS = 1000;

export interface AdminContext {
  metrics: ProxyMetrics;
  feed: DashboardFeed;
  upstream: URL;
  /** False once the proxy is shutting down: it is alive but no longer ready. */
  accepting: () => boolean;
}

type AdminRoute = (context: AdminContext, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const adminRoutes: Record<string, AdminRoute> = {
  '/': (_context, _req, res) => send(res, 200, 'text/html; charset=utf-8', DASHBOARD_HTML),
  '/healthz': (_context, _req, res) => sendJson(res, 200, { status: 'ok' }),
  '/readyz': async (context, _req, res) => {
    if (!context.accepting()) return sendJson(res, 503, { status: 'closing' });
    const reachable = await upstreamReachable(context.upstream);
    sendJson(res, reachable ? 200 : 503, { status: reachable ? 'ready' : 'upstream unreachable', upstream: context.upstream.host });
  },
  '/metrics': async (context, _req, res) => send(res, 200, context.metrics.registry.contentType, await context.metrics.registry.metrics()),
  '/summary.json': (context, _req, res) => sendJson(res, 200, context.feed.snapshot()),
  '/events': (context, _req, res) => context.feed.subscribe(res),
};

export function createAdminServer(context: AdminContext): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handler = req.method === 'GET' || req.method === 'HEAD' ? adminRoutes[path] : undefined;
    if (!handler) return sendJson(res, 404, { status: 'not found', paths: Object.keys(adminRoutes) });
    Promise.resolve(handler(context, req, res)).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { status: 'error' });
      else res.destroy();
    });
  });
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
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}
