// What a proxy is built with, where it listens, and its defaults.
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Contract } from '../contract/index.ts';
import type { CaptureOptions } from './capture.ts';

export type ProxyMode = 'report' | 'enforce';

export interface ValidatingProxyOptions {
  /** Base URL of the service, normally ending in the `/v3` root; a path before it is kept. */
  upstream: string;
  mode?: ProxyMode;
  /** Largest body (bytes) buffered for validation; larger ones pass through unvalidated. */
  maxBody?: number;
  /** How long (ms) the upstream may take to send headers, or between two body chunks. */
  upstreamTimeout?: number;
  /** Fraction of exchanges judged in report mode (enforce mode judges all). */
  sample?: number;
  /** Body values in finding messages; off by default so production data stays out of logs. */
  logValues?: boolean;
  /** Adds `Las-Violations` (the rule ids known before the response starts) to answers. */
  violationsHeader?: boolean;
  /** Where the NDJSON violations go; null keeps none (metrics and dashboard still count). */
  violations?: Writable | null;
  logger?: Logger;
  contract?: Contract;
  /** How long (ms) close() waits for exchanges in flight before cutting them. */
  drainTimeout?: number;
  /** Most connections opened to the upstream. */
  upstreamConnections?: number;
  /** PEM certificates trusted for an https upstream, in place of Node's default authorities. */
  upstreamCa?: string | Buffer;
  /** Judges report-mode exchanges on a worker thread (default); false judges on the forwarding thread. */
  judgeThread?: boolean;
  /** The judging thread's script (tests pass one that judges at a known pace). */
  judgeThreadScript?: URL;
  /**
   * Adds X-Forwarded-For, -Proto and -Host to forwarded requests; off by default (requests pass as sent, but for
   * X-Request-Id).
   */
  forwardedHeaders?: boolean;
  /**
   * With forwardedHeaders: addresses and CIDR ranges of the proxies in front whose forwarding headers name the client
   * (client-identity.ts); none by default.
   */
  trustedProxies?: readonly string[];
  /**
   * How often (ms) the log writes the counts of findings it did not write one by one (repeats.ts); 0 writes every
   * finding.
   */
  repeatInterval?: number;
  /** Bearer token the admin endpoints ask for (all but /healthz and /readyz); none by default. */
  adminToken?: string;
  /**
   * Writes each exchange that draws a MUST finding to capture files in this directory (capture.ts); off when absent.
   */
  capture?: CaptureOptions;
  /**
   * Certificate chain and key (PEM) to serve clients over https; plain http when absent. The admin server stays http.
   */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export interface ListenOptions {
  port?: number;
  adminPort?: number;
  host?: string;
  /** Where the admin server listens; 127.0.0.1 unless given, whatever `host` is. */
  adminHost?: string;
}

export interface ProxyAddresses {
  /** Origin of the proxy; the API is served under its `/v3` root. */
  proxyUrl: string;
  /** The proxy's base URL, to give clients in place of the upstream's. */
  baseUrl: string;
  adminUrl: string;
}

export const PROXY_DEFAULTS = {
  mode: 'report' as ProxyMode,
  /**
   * The admin port of the command: clear of Prometheus (9090), its exporters (9091-9100), and the usual web and
   * database ports.
   */
  adminPort: 8741,
  maxBody: 1024 * 1024,
  upstreamTimeout: 30_000,
  sample: 1,
  drainTimeout: 10_000,
  upstreamConnections: 128,
  judgeThread: true,
};
