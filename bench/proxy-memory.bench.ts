// `npm run bench proxy-memory`: what bodies cost the proxy's memory once judged. Six rounds of twelve requests of about
// a megabyte at once (a quarter of a million objects each to judge) to a proxy in a process of its own (as deployed),
// in each mode: its resident memory before any body, once warm (two bodies: the judging thread started), and its growth
// after each round, in bodies of the default --max-body, as each round ends and once idle after the last (warm is read
// idle too). Bounded means the growth stops with the rounds, whatever the bytes sent. It is measured here and not
// asserted in a test: under a full test run's load the same requests once grew an enforce-mode proxy by 192 MiB for a
// moment. Each mode runs as the systemd unit and the container image run the proxy (MALLOC_MMAP_THRESHOLD_ fixed, so
// that glibc hands large freed buffers back to the system) and with glibc's defaults, whose threshold rises after the
// first large buffer is freed and then keeps later ones in its heap.
import { Pool } from 'undici';
import { MEDIA_TYPE } from '../contract/index.ts';
import { firstLine, hermeticEnvironment, spawnCli } from '../cli/test-support.ts';
import { JUDGE_THREAD_IDLE_MS } from '../proxy/judge-thread.ts';
import { PROXY_DEFAULTS } from '../proxy/options.ts';
import { eventually, send, startUpstream } from '../proxy/test-support.ts';

const MIB = 1024 * 1024;
/**
 * How long the proxy is left idle before a settled reading: past JUDGE_THREAD_IDLE_MS, when an
 * idle judging thread is stopped, and V8's shrinking of an idle heap (about 8 s after it stopped
 * growing).
 */
const SETTLE_MS = JUDGE_THREAD_IDLE_MS + 5_000;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
const REQUESTS = 12;
const ROUNDS = 6;
/** About a megabyte of `{}` items: the costliest shape to judge per byte that the bench knows. */
const body = `{"data":{"type":"AttributeConfig","attributes":{"label":"x","options":[${Array(340_000).fill('{}').join(',')}]}}}`;
const created = JSON.stringify({
  data: {
    id: '5f1d7c2e9b1e8a0012345678',
    type: 'AttributeConfig',
    attributes: { label: 'x', inUse: false },
    relationships: {},
  },
});

async function metric(adminUrl: string, pattern: RegExp): Promise<number> {
  const text = (await send(`${adminUrl}/metrics`)).body.toString();
  return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const rss = (adminUrl: string) => metric(adminUrl, /^las_proxy_process_resident_memory_bytes (\d+)/gm);
/** Exchanges judged or shed: every exchange of a body is one or the other once it is over. */
const settled = async (adminUrl: string) =>
  (await metric(adminUrl, /^las_proxy_exchanges_judged_total\{[^}]*\} (\d+)/gm)) +
  (await metric(adminUrl, /^las_proxy_exchanges_shed_total\{[^}]*\} (\d+)/gm));

async function sendBodies(baseUrl: string, adminUrl: string, count: number): Promise<void> {
  const before = await settled(adminUrl);
  const pool = new Pool(new URL(baseUrl).origin, { connections: count });
  try {
    await Promise.all(
      Array.from({ length: count }, () =>
        pool
          .request({
            method: 'POST',
            path: '/v3/attribute-configs',
            headers: { authorization: 'Bearer r:memory', 'content-type': MEDIA_TYPE },
            body,
          })
          .then((r) => r.body.dump()),
      ),
    );
  } finally {
    await pool.close();
  }
  await eventually(
    'every body judged or shed',
    async () => ((await settled(adminUrl)) >= before + count ? true : undefined),
    120_000,
  );
}

/**
 * How glibc's allocator is set: as examples/proxy/las-proxy.service and the Dockerfile set it, or left to its defaults.
 */
const ALLOCATORS = [
  { name: 'as deployed (MALLOC_MMAP_THRESHOLD_=131072)', env: { MALLOC_MMAP_THRESHOLD_: '131072' } },
  { name: "glibc's defaults", env: {} },
];

function withoutAllocatorSettings(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('MALLOC_')));
}

async function measure(upstreamUrl: string, mode: string, allocator: (typeof ALLOCATORS)[number]): Promise<void> {
  const proxy = spawnCli(
    [
      'proxy',
      '--upstream',
      `${upstreamUrl}/v3`,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--mode',
      mode,
      '--violations',
      '/dev/null',
      '--log-level',
      'warn',
    ],
    { ...withoutAllocatorSettings(hermeticEnvironment()), ...allocator.env },
  );
  try {
    const line = await firstLine(proxy);
    const [, baseUrl, adminUrl] = /serving (\S+) .*admin (\S+),/.exec(line) ?? [];
    if (adminUrl === undefined) throw new Error(`the proxy did not start: ${line}`);
    const cold = await rss(adminUrl);
    // Warm: the judging thread exists, and each path has run once.
    await sendBodies(baseUrl, adminUrl, 2);
    await settle();
    const warm = await rss(adminUrl);
    const growth: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sendBodies(baseUrl, adminUrl, REQUESTS);
      growth.push((await rss(adminUrl)) - warm);
    }
    await settle();
    const settled = (await rss(adminUrl)) - warm;
    const inBodies = (bytes: number) => (bytes / PROXY_DEFAULTS.maxBody).toFixed(0);
    process.stdout.write(
      `${mode} mode, ${allocator.name}: resident ${(cold / MIB).toFixed(0)} MiB before any body, ${(warm / MIB).toFixed(0)} MiB warm and idle; ` +
        `growth as each round of ${REQUESTS} requests of ${(body.length / MIB).toFixed(2)} MiB ends, in bodies of the limit: ${growth.map(inBodies).join(', ')}; ` +
        `${inBodies(settled)} once idle ${SETTLE_MS / 1000} s after ${((ROUNDS * REQUESTS * body.length) / MIB).toFixed(0)} MiB sent\n`,
    );
  } finally {
    proxy.child.kill('SIGTERM');
    await proxy.exit;
  }
}

export default async function proxyMemoryBench(): Promise<void> {
  const upstream = await startUpstream((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(created) });
      res.end(created);
    });
  });
  try {
    for (const allocator of ALLOCATORS)
      for (const mode of ['report', 'enforce']) await measure(upstream.url, mode, allocator);
  } finally {
    await upstream.close();
  }
}
