// `npm run bench proxy-memory`: what bodies cost the proxy's memory once judged. Six rounds of
// twelve requests of about a megabyte at once (a quarter of a million objects each to judge) to a
// proxy in a process of its own (as deployed), in each mode: its resident memory before any body,
// once warm (two bodies: the judging thread started), and its growth after each round, in bodies
// of the default --max-body. Bounded means the growth stops with the rounds, whatever the bytes
// sent. It is measured here and not asserted in a test: under a full test run's load the same
// requests once grew an enforce-mode proxy by 192 MiB for a moment.
import { Pool } from 'undici';
import { MEDIA_TYPE } from '../contract/index.ts';
import { firstLine, hermeticEnvironment, spawnCli } from '../cli/test-support.ts';
import { PROXY_DEFAULTS } from '../proxy/options.ts';
import { eventually, send, startUpstream } from '../proxy/test-support.ts';

const MIB = 1024 * 1024;
const REQUESTS = 12;
const ROUNDS = 6;
/** About a megabyte of `{}` items: the costliest shape to judge per byte that the bench knows. */
const body = `{"data":{"type":"AttributeConfig","attributes":{"label":"x","options":[${Array(340_000).fill('{}').join(',')}]}}}`;
const created = JSON.stringify({ data: { id: '5f1d7c2e9b1e8a0012345678', type: 'AttributeConfig', attributes: { label: 'x', inUse: false }, relationships: {} } });

async function metric(adminUrl: string, pattern: RegExp): Promise<number> {
  const text = (await send(`${adminUrl}/metrics`)).body.toString();
  return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const rss = (adminUrl: string) => metric(adminUrl, /^las_proxy_process_resident_memory_bytes (\d+)/gm);
/** Exchanges judged or shed: every exchange of a body is one or the other once it is over. */
const settled = async (adminUrl: string) => (await metric(adminUrl, /^las_proxy_exchanges_judged_total\{[^}]*\} (\d+)/gm)) + (await metric(adminUrl, /^las_proxy_exchanges_shed_total\{[^}]*\} (\d+)/gm));

async function sendBodies(baseUrl: string, adminUrl: string, count: number): Promise<void> {
  const before = await settled(adminUrl);
  const pool = new Pool(new URL(baseUrl).origin, { connections: count });
  try {
    await Promise.all(Array.from({ length: count }, () => pool.request({ method: 'POST', path: '/v3/attribute-configs', headers: { authorization: 'Bearer r:memory', 'content-type': MEDIA_TYPE }, body }).then((r) => r.body.dump())));
  } finally {
    await pool.close();
  }
  await eventually('every body judged or shed', async () => ((await settled(adminUrl)) >= before + count ? true : undefined), 120_000);
}

async function measure(upstreamUrl: string, mode: string): Promise<void> {
  const proxy = spawnCli(['proxy', '--upstream', `${upstreamUrl}/v3`, '--port', '0', '--admin-port', '0', '--mode', mode, '--violations', '/dev/null', '--log-level', 'warn'], hermeticEnvironment());
  try {
    const line = await firstLine(proxy);
    const [, baseUrl, adminUrl] = /serving (\S+) .*admin (\S+),/.exec(line) ?? [];
    if (adminUrl === undefined) throw new Error(`the proxy did not start: ${line}`);
    const cold = await rss(adminUrl);
    // Warm: the judging thread exists, and each path has run once.
    await sendBodies(baseUrl, adminUrl, 2);
    const warm = await rss(adminUrl);
    const growth: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sendBodies(baseUrl, adminUrl, REQUESTS);
      growth.push((await rss(adminUrl)) - warm);
    }
    const inBodies = (bytes: number) => (bytes / PROXY_DEFAULTS.maxBody).toFixed(0);
    const most = Math.max(...growth);
    process.stdout.write(`${mode} mode: resident ${(cold / MIB).toFixed(0)} MiB before any body, ${(warm / MIB).toFixed(0)} MiB warm; growth after each round of ${REQUESTS} requests of ${(body.length / MIB).toFixed(2)} MiB, in bodies of the limit: ${growth.map(inBodies).join(', ')}; at most ${inBodies(most)} after ${((ROUNDS * REQUESTS * body.length) / MIB).toFixed(0)} MiB sent\n`);
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
    for (const mode of ['report', 'enforce']) await measure(upstream.url, mode);
  } finally {
    await upstream.close();
  }
}
