// `npm run bench proxy`: the validating proxy against plain pass-through proxies, interleaved in
// one run. autocannon (16 connections) asks for a 10-item and a 100-item list, directly and
// through each contender, 10 s each, in rounds of half a second that cycle through the
// contenders so that any other load on the machine falls on all of them alike. A slot ends when
// the contender has also finished the work the load left it (the validating proxy's judging
// backlog). Ratios are against the plain http-proxy pass-through measured in the same run: the
// median over rounds of the ratio within a round. Every server runs in its own child process, so
// the CPU each proxy spends per exchange is its own (process.cpuUsage deltas, read over IPC
// around each slot). BENCH_SECONDS shortens the runs for a quick look (default 10). Where HAProxy
// is installed, three more validating replicas behind it (examples/proxy/haproxy.cfg as written)
// take the same load as a slot of their own, right after the one replica's, and the fleet's rate
// is printed against that replica's.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent as HttpAgent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { Pool } from 'undici';
import { MEDIA_TYPE } from '../contract/index.ts';
import { HOP_BY_HOP_HEADERS, startValidatingProxy } from '../proxy/index.ts';
import { cpuSecondsOf } from '../test-support/cpu-time.ts';
import { fleetChoice, freePort, HAPROXY_CONFIG, haproxyEnvironment } from '../test-support/fleet.ts';
import { cpuMicros, serveIfContender, spawnContender, type Contender, type StartedContender } from './contenders.ts';

const CONNECTIONS = 16;
const LIST_SIZES = [10, 100];
/** Rounds of half a second: 10 s per target in all, each slot close in time to the baseline's. */
export const ROUNDS = 20;
export const SLICE_SECONDS = 0.5;
const UPSTREAM_CONNECTIONS = 64;

export type ContenderKind =
  | 'upstream'
  | 'upstream-findings'
  | 'http-proxy'
  | 'undici'
  | 'validating-core'
  | 'validating-inline'
  | 'validating'
  | 'validating-findings'
  | 'validating-enforce';

interface Target {
  name: string;
  kind: ContenderKind | 'direct' | 'fleet';
  description: string;
}

const FLEET_REPLICAS = 3;
const FLEET_TARGET: Target = {
  name: 'fleet',
  kind: 'fleet',
  description: `${FLEET_REPLICAS} validating replicas (as "validating") behind HAProxy, examples/proxy/haproxy.cfg as written`,
};

// In running order: the validating proxy runs right next to its baseline (after it, and before it
// in the reversed rounds), so the two slots a ratio compares are as close in time as can be.
const targets: Target[] = [
  { name: 'direct', kind: 'direct', description: 'straight to the upstream' },
  { name: 'undici', kind: 'undici', description: 'plain undici Pool.stream pass-through' },
  {
    name: 'validating core',
    kind: 'validating-core',
    description: 'the validating proxy with --sample 0: forwarding core only',
  },
  {
    name: 'validating inline',
    kind: 'validating-inline',
    description: 'the validating proxy with --no-judge-thread: every exchange judged on the forwarding thread',
  },
  {
    name: 'http-proxy',
    kind: 'http-proxy',
    description: 'plain http-proxy 1.18 pass-through, keep-alive agent (the baseline)',
  },
  {
    name: 'validating',
    kind: 'validating',
    description:
      'the validating proxy, report mode, every exchange validated (the default: large bodies judged on a worker thread)',
  },
  {
    name: 'validating, findings',
    kind: 'validating-findings',
    description:
      'the same validating proxy in front of an upstream whose every item breaks section 2.2 twice (an undocumented groupId and recipientType value)',
  },
];

// --- The contenders, each run in a child process ----------------------------------------------

/**
 * A NotificationGroup list of exactly `size` items (the reference server seeds fewer than 100):
 * valid, or with every item breaking section 2.2 twice, as a service shipping values the
 * contract does not list would (a findings-heavy upstream: two MUST findings per item).
 */
function listDocument(size: number, breaking: boolean): string {
  const groupIds = [
    'AssignmentAdmin',
    'Assignments',
    'Exams',
    'ExamResults',
    'ExamAdmin',
    'Products',
    'SpacedLearning',
    'Flags',
    'System',
  ];
  const data = Array.from({ length: size }, (_, i) => ({
    id: (0x6553f100c0ffee0000000000n + BigInt(i)).toString(16).padStart(24, '0'),
    type: 'NotificationGroup',
    attributes: {
      groupId: breaking ? 'Billing' : groupIds[i % groupIds.length],
      label: `Group ${i}`,
      defaultValue: i % 2 === 0,
      description: `Notifications about topic ${i}`,
      recipientType: breaking ? ['portal', 'teacher'] : ['portal', 'admin'],
    },
    relationships: {},
  }));
  return JSON.stringify({ data, meta: { total: size, pages: 1, page: 1, offset: 0, limit: size } });
}

function startStaticUpstream(breaking: boolean): ReturnType<typeof createServer> {
  const bodies = new Map(LIST_SIZES.map((size) => [String(size), Buffer.from(listDocument(size, breaking))]));
  return createServer((req, res) => {
    const limit = /page\[limit\]=(\d+)/.exec(decodeURIComponent(req.url ?? ''))?.[1] ?? '10';
    const body = bodies.get(limit) ?? bodies.get('10')!;
    res.writeHead(200, { 'content-type': MEDIA_TYPE, 'content-length': body.length });
    res.end(body);
  });
}

function startHttpProxy(upstream: string): ReturnType<typeof createServer> {
  const require = createRequire(import.meta.url);
  const httpProxy = require('http-proxy') as {
    createProxyServer(options: object): {
      web(req: IncomingMessage, res: ServerResponse, options?: object, callback?: (error: Error) => void): void;
    };
  };
  const proxy = httpProxy.createProxyServer({
    target: upstream,
    agent: new HttpAgent({ keepAlive: true, maxSockets: UPSTREAM_CONNECTIONS }),
  });
  return createServer((req, res) => proxy.web(req, res, {}, () => res.writeHead(502).end()));
}

function startUndiciPassThrough(upstream: string): ReturnType<typeof createServer> {
  const pool = new Pool(upstream, { connections: UPSTREAM_CONNECTIONS });
  const hopByHop = new Set([...HOP_BY_HOP_HEADERS, 'host']);
  return createServer((req, res) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !hopByHop.has(name)));
    pool.stream(
      { path: req.url ?? '/', method: 'GET', headers, opaque: res },
      ({ statusCode, headers: upstreamHeaders, opaque }) => {
        const response = opaque as ServerResponse;
        response.writeHead(
          statusCode,
          Object.fromEntries(Object.entries(upstreamHeaders).filter(([name]) => !hopByHop.has(name))),
        );
        return response;
      },
      (error) => {
        if (error && !res.headersSent) res.writeHead(502).end();
      },
    );
  });
}

/** The bench's clients all share 127.0.0.1; the X-Forwarded-For each load sends tells them apart. */
const CLIENTS_NAMED_ON_LOOPBACK = { forwardedHeaders: true, trustedProxies: ['127.0.0.1'] };

/** Starts the contender of `kind` in this process; resolves with its URL. */
async function startContender(kind: ContenderKind, upstream: string): Promise<StartedContender> {
  if (
    kind === 'validating' ||
    kind === 'validating-inline' ||
    kind === 'validating-core' ||
    kind === 'validating-findings' ||
    kind === 'validating-enforce'
  ) {
    const sample = kind === 'validating-core' ? 0 : 1;
    const mode = kind === 'validating-enforce' ? 'enforce' : 'report';
    // The loads name their clients in X-Forwarded-For, read as a balancer's on this host would be.
    const proxy = await startValidatingProxy({
      upstream: `${upstream}/v3`,
      mode,
      sample,
      judgeThread: kind !== 'validating-inline',
      violations: null,
      upstreamConnections: UPSTREAM_CONNECTIONS,
      ...CLIENTS_NAMED_ON_LOOPBACK,
    });
    return { url: proxy.proxyUrl, adminUrl: proxy.adminUrl, settled: () => proxy.proxy.settled() };
  }
  const server =
    kind === 'upstream' || kind === 'upstream-findings'
      ? startStaticUpstream(kind === 'upstream-findings')
      : kind === 'http-proxy'
        ? startHttpProxy(upstream)
        : startUndiciPassThrough(upstream);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// --- The fleet: replicas behind HAProxy ---------------------------------------------------------

/** What a slot measures: where the load goes, and the CPU its processes have spent so far. */
interface Measured {
  url: string;
  cpu(settled: boolean): Promise<number>;
}

interface Fleet extends Measured {
  replicas: Contender[];
  haproxy: ChildProcess;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Three validating replicas and HAProxy in front of them; undefined (with one line saying why) without HAProxy. */
async function startFleet(upstream: string): Promise<Fleet | undefined> {
  const executable = fleetChoice.haproxy.executablePath;
  if (executable === undefined) {
    process.stdout.write(
      `fleet slot skipped: no haproxy at ${fleetChoice.haproxy.lookedAt} (apt-get install haproxy, or set LAS_HAPROXY)\n`,
    );
    return undefined;
  }
  const replicas = await Promise.all(
    Array.from({ length: FLEET_REPLICAS }, () => spawnContender(import.meta.url, 'validating', upstream)),
  );
  const port = await freePort();
  const haproxy = spawn(executable, ['-f', HAPROXY_CONFIG, '-db'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...haproxyEnvironment(
        `127.0.0.1:${port}`,
        replicas.map((r) => ({ url: r.url, adminUrl: r.adminUrl! })),
      ),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let tries = 0; !(await listening(port)); tries += 1) {
    if (tries > 500 || haproxy.exitCode !== null) throw new Error(`HAProxy did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    replicas,
    haproxy,
    cpu: async (settled) =>
      (await Promise.all(replicas.map((replica) => cpuMicros(replica, { settled })))).reduce(
        (sum, micros) => sum + micros,
        0,
      ) +
      (cpuSecondsOf(haproxy.pid!) ?? 0) * 1_000_000,
  };
}

// --- The measurement, in the bench process ----------------------------------------------------

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  overallRate?: number;
  method?: string;
  body?: Buffer;
  headers?: Record<string, string>;
}) => AutocannonRun;

/**
 * A load running: it resolves with the result, and emits `response` (client, status, bytes, latency in ms) for each
 * answer.
 */
export type AutocannonRun = Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): unknown;
};

export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface Measurement {
  list: number;
  target: Target;
  requestsPerSecond: number;
  /** Requests/s in each round, in round order. */
  roundRates: number[];
  p99: number;
  cpuPerExchange: number | null;
  failures: number;
}

async function measure(url: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: 'Bearer r:bench-session-token' },
  });
}

export function listPath(size: number): string {
  return `/v3/notification-groups?filter[type]=portal&page[limit]=${size}&page[offset]=0`;
}

function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

function report(measurements: Measurement[]): void {
  const rows = [
    [
      'list',
      'target',
      'req/s',
      'p99 ms (median of rounds)',
      'vs http-proxy (median of rounds)',
      'p99 Δ ms',
      'CPU µs/exchange',
      'failed',
    ],
  ];
  for (const m of measurements) {
    const baseline = measurements.find((b) => b.list === m.list && b.target.kind === 'http-proxy')!;
    rows.push([
      `${m.list} items`,
      m.target.name,
      m.requestsPerSecond.toFixed(0),
      m.p99.toFixed(2),
      `${throughputRatio(m, baseline).toFixed(2)}×`,
      (m.p99 - baseline.p99).toFixed(2),
      m.cpuPerExchange === null ? '-' : m.cpuPerExchange.toFixed(1),
      String(m.failures),
    ]);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    process.stdout.write(
      `${row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ')}\n`,
    );
  process.stdout.write('\nGoals (validating proxy against the http-proxy pass-through, same run):\n');
  const goals = [
    { list: 10, minimum: 1.0 },
    { list: 100, minimum: 0.8 },
  ];
  for (const goal of goals) {
    const validating = measurements.find((m) => m.list === goal.list && m.target.kind === 'validating')!;
    const baseline = measurements.find((m) => m.list === goal.list && m.target.kind === 'http-proxy')!;
    const throughput = throughputRatio(validating, baseline);
    const p99Delta = validating.p99 - baseline.p99;
    process.stdout.write(
      `  ${goal.list} items: ${throughput.toFixed(2)}× requests/s (goal ≥ ${goal.minimum.toFixed(1)}×: ${throughput >= goal.minimum ? 'met' : 'NOT met'}); ` +
        `p99 ${p99Delta >= 0 ? '+' : ''}${p99Delta.toFixed(2)} ms (goal within 1 ms: ${p99Delta <= 1 ? 'met' : 'NOT met'}); ` +
        `CPU per exchange ${ratio(validating.cpuPerExchange!, baseline.cpuPerExchange!)} of http-proxy's\n`,
    );
    const perRound = validating.roundRates.map((rate, round) => (rate / baseline.roundRates[round]).toFixed(2));
    process.stdout.write(`    requests/s ratio in each round: ${perRound.join(' ')}\n`);
  }
  process.stdout.write(
    '\nFindings-heavy upstream (every item breaks section 2.2 twice) against a conforming one, the same validating proxy, same run:\n',
  );
  for (const list of LIST_SIZES) {
    const conforming = measurements.find((m) => m.list === list && m.target.kind === 'validating')!;
    const breaking = measurements.find((m) => m.list === list && m.target.kind === 'validating-findings')!;
    const throughput = throughputRatio(breaking, conforming);
    process.stdout.write(
      `  ${list} items: ${throughput.toFixed(2)}× requests/s (goal ≥ 0.8×: ${throughput >= 0.8 ? 'met' : 'NOT met'}); ` +
        `p99 ${breaking.p99.toFixed(2)} ms against ${conforming.p99.toFixed(2)} ms; CPU per exchange ${ratio(breaking.cpuPerExchange!, conforming.cpuPerExchange!)}\n`,
    );
  }
}

function reportFleet(measurements: Measurement[]): void {
  if (!measurements.some((m) => m.target.kind === 'fleet')) return;
  process.stdout.write(
    `\n${FLEET_REPLICAS} validating replicas behind HAProxy against one validating replica direct, same load, same run (the fleet's CPU: its replicas' and HAProxy's):\n`,
  );
  for (const list of LIST_SIZES) {
    const one = measurements.find((m) => m.list === list && m.target.kind === 'validating')!;
    const fleet = measurements.find((m) => m.list === list && m.target.kind === 'fleet')!;
    process.stdout.write(
      `  ${list} items: ${throughputRatio(fleet, one).toFixed(2)}× requests/s; p99 ${fleet.p99.toFixed(2)} ms against ${one.p99.toFixed(2)} ms; CPU per exchange ${ratio(fleet.cpuPerExchange!, one.cpuPerExchange!)}\n`,
    );
  }
}

/**
 * The median over rounds of the requests/s ratio within a round: the two ran seconds apart, so
 * a burst of outside load that hits one slot of one round does not decide the ratio.
 */
function throughputRatio(m: Measurement, baseline: Measurement): number {
  return median(m.roundRates.map((rate, round) => rate / baseline.roundRates[round]));
}

interface Tally {
  requests: number;
  seconds: number;
  cpuMicros: number;
  p99s: number[];
  rates: number[];
  failures: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export default async function proxyBench(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rounds = Math.max(1, Math.min(ROUNDS, Math.round(seconds / SLICE_SECONDS)));
  const slice = seconds / rounds;
  const upstream = await spawnContender(import.meta.url, 'upstream');
  const breakingUpstream = await spawnContender(import.meta.url, 'upstream-findings');
  const proxies = new Map<ContenderKind, Contender>();
  let fleet: Fleet | undefined;
  try {
    for (const target of targets) {
      if (target.kind !== 'direct' && target.kind !== 'fleet')
        proxies.set(
          target.kind,
          await spawnContender(
            import.meta.url,
            target.kind,
            target.kind === 'validating-findings' ? breakingUpstream.url : upstream.url,
          ),
        );
    }
    fleet = await startFleet(upstream.url);
    // The fleet runs right after the one replica it is compared with.
    const running = fleet
      ? targets.flatMap((target) => (target.kind === 'validating' ? [target, FLEET_TARGET] : [target]))
      : targets;
    process.stdout.write(
      `${CONNECTIONS} connections, ${seconds} s per target and list in ${rounds} interleaved rounds of ${slice} s (every other round in reverse order), after a ${slice} s warm-up each (the fleet: one per replica); a slot ends once the contender has finished the work the load left it (a judging backlog); upstream: a static server in its own process.\n`,
    );
    for (const target of running) process.stdout.write(`  ${target.name.padEnd(16)} ${target.description}\n`);
    process.stdout.write('\n');
    const measurements: Measurement[] = [];
    const measuredOf = (contender: Contender): Measured => ({
      url: contender.url,
      cpu: (settled) => cpuMicros(contender, { settled }),
    });
    const contenderOf = (target: Target): Measured =>
      target.kind === 'fleet' ? fleet! : measuredOf(target.kind === 'direct' ? upstream : proxies.get(target.kind)!);
    for (const list of LIST_SIZES) {
      const tallies = new Map<Target, Tally>(
        running.map((target) => [target, { requests: 0, seconds: 0, cpuMicros: 0, p99s: [], rates: [], failures: 0 }]),
      );
      // A warm-up per process: the fleet's replicas each get as much as the one replica.
      for (const target of running)
        await measure(
          `${contenderOf(target).url}${listPath(list)}`,
          target.kind === 'fleet' ? slice * FLEET_REPLICAS : slice,
        );
      for (let round = 0; round < rounds; round += 1) {
        // Reversing every other round puts each contender as often before the baseline as after
        // it, so a drift in the machine's speed does not favour one of them.
        for (const target of round % 2 === 0 ? running : [...running].reverse()) {
          const contender = contenderOf(target);
          const tally = tallies.get(target)!;
          const cpuBefore = await contender.cpu(false);
          const started = performance.now();
          const result = await measure(`${contender.url}${listPath(list)}`, slice);
          // A slot ends when the contender has finished what the load left it (the validating
          // proxy's judging backlog): that time and CPU count against it, and the next slot
          // starts on a machine no longer busy with this one.
          const cpuAfter = await contender.cpu(true);
          const seconds = (performance.now() - started) / 1000;
          tally.requests += result.requests.total;
          tally.seconds += seconds;
          tally.cpuMicros += cpuAfter - cpuBefore;
          tally.p99s.push(result.latency.p99);
          tally.rates.push(result.requests.total / seconds);
          tally.failures += result.non2xx + result.errors + result.timeouts;
        }
      }
      for (const [target, tally] of tallies) {
        measurements.push({
          list,
          target,
          requestsPerSecond: tally.requests / tally.seconds,
          roundRates: tally.rates,
          p99: median(tally.p99s),
          cpuPerExchange: target.kind === 'direct' ? null : tally.cpuMicros / Math.max(1, tally.requests),
          failures: tally.failures,
        });
      }
    }
    report(measurements);
    reportFleet(measurements);
  } finally {
    fleet?.haproxy.kill();
    for (const contender of [upstream, breakingUpstream, ...proxies.values(), ...(fleet?.replicas ?? [])])
      contender.child.kill();
  }
}

await serveIfContender((kind, upstream) => startContender(kind as ContenderKind, upstream));
