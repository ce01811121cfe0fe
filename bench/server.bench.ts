// `npm run bench server`: the reference server against a static server that answers the very same
// bytes without computing anything, measured in the same run. autocannon (16 connections) asks
// for the default list page, a 27-item page and a Create AttributeConfig; each server runs in its
// own child process, so the CPU per request (process.cpuUsage deltas over IPC) is its own. The
// ratios show what validation, credentials and page building cost on the hot path.
// BENCH_SECONDS shortens the runs for a quick look (default 10).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { MEDIA_TYPE } from '../contract/index.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer } from '../server/index.ts';
import { cpuMicros, serveIfContender, spawnContender } from './contenders.ts';

const CONNECTIONS = 16;
const AUTHORIZATION = `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`;

interface Workload {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const workloads: Workload[] = [
  { name: 'list, default page (10)', method: 'GET', path: '/notification-groups?filter[type]=portal' },
  {
    name: 'list, 27 items',
    method: 'GET',
    path: '/notification-groups?filter[type]=portal&page[limit]=100&page[offset]=0',
  },
  {
    name: 'create AttributeConfig',
    method: 'POST',
    path: '/attribute-configs',
    body: JSON.stringify({
      data: {
        type: 'AttributeConfig',
        attributes: { target: 'User', type: 'boolean', label: 'Receives the newsletter' },
      },
    }),
  },
];

interface Canned {
  status: number;
  body: string;
}

// --- The contenders, each in a child process ---------------------------------------------------

type ContenderKind = 'reference' | 'static';

/** A server answering every request with the canned response for its method and path. */
function startStaticServer(canned: Record<string, Canned>): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = canned[`${req.method} ${req.url}`] ?? { status: 404, body: '{"errors":[{"status":"404"}]}' };
      res.writeHead(answer.status, { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`)),
  );
}

/** Starts the contender of `kind` in this process (the static one replays `cannedJson`); resolves with its base URL. */
async function startContender(kind: ContenderKind, cannedJson: string | undefined): Promise<string> {
  return kind === 'reference'
    ? (await startReferenceServer()).baseUrl
    : startStaticServer(JSON.parse(cannedJson || '{}') as Record<string, Canned>);
}

// --- Measuring ---------------------------------------------------------------------------------------

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function load(baseUrl: string, workload: Workload, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${baseUrl}${workload.path}`,
    method: workload.method,
    body: workload.body,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: AUTHORIZATION, ...(workload.body ? { 'content-type': MEDIA_TYPE } : {}) },
  });
}

/** What the reference server answers each workload: the static server replays it byte for byte. */
async function cannedAnswers(baseUrl: string): Promise<Record<string, Canned>> {
  const canned: Record<string, Canned> = {};
  for (const workload of workloads) {
    const response = await fetch(`${baseUrl}${workload.path}`, {
      method: workload.method,
      body: workload.body,
      headers: { authorization: AUTHORIZATION, 'content-type': MEDIA_TYPE },
    });
    canned[`${workload.method} ${new URL(baseUrl).pathname}${workload.path}`] = {
      status: response.status,
      body: await response.text(),
    };
  }
  return canned;
}

export default async function serverBench(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const warmUpSeconds = Math.min(2, seconds);
  const reference = await spawnContender(import.meta.url, 'reference');
  const baseline = await spawnContender(import.meta.url, 'static', JSON.stringify(await cannedAnswers(reference.url)));
  try {
    process.stdout.write(
      `${CONNECTIONS} connections, ${seconds} s per run after a ${warmUpSeconds} s warm-up; baseline: a static server replaying the reference server's bytes.\n\n`,
    );
    process.stdout.write(
      `${'workload'.padEnd(26)} ${'static req/s'.padStart(12)} ${'reference req/s'.padStart(16)} ${'ratio'.padStart(6)} ${'p99 ms'.padStart(7)} ${'cpu µs/req static → reference'.padStart(30)} failures\n`,
    );
    for (const workload of workloads) {
      const results = [];
      for (const contender of [baseline, reference]) {
        await load(contender.url, workload, warmUpSeconds);
        const before = await cpuMicros(contender);
        const result = await load(contender.url, workload, seconds);
        const cpu = ((await cpuMicros(contender)) - before) / Math.max(1, result.requests.total);
        results.push({ result, cpu });
      }
      const [fixed, served] = results;
      const ratio = served.result.requests.average / Math.max(1, fixed.result.requests.average);
      const failures = served.result.errors + (workload.method === 'GET' ? served.result.non2xx : 0);
      process.stdout.write(
        `${workload.name.padEnd(26)} ${fixed.result.requests.average.toFixed(0).padStart(12)} ${served.result.requests.average.toFixed(0).padStart(16)} ${ratio.toFixed(2).padStart(6)} ${String(served.result.latency.p99).padStart(7)} ${`${fixed.cpu.toFixed(0)} → ${served.cpu.toFixed(0)}`.padStart(30)} ${failures}\n`,
      );
    }
  } finally {
    reference.child.kill();
    baseline.child.kill();
  }
}

await serveIfContender((kind, cannedJson) => startContender(kind as ContenderKind, cannedJson));
