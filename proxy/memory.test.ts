// What a body costs the proxy's memory once judged: twelve requests of a megabyte, each a quarter
// of a million objects to judge, must not grow the proxy's resident memory by more than a small
// multiple of the body limit, whatever the bytes sent. The proxy runs in a process of its own (as
// deployed) so that nothing of this test's own counts. The figures are printed; the bound is generous.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Pool } from 'undici';
import { MEDIA_TYPE } from '../contract/index.ts';
import { firstLine, hermeticEnvironment, spawnCli, type CliProcess } from '../cli/test-support.ts';
import { PROXY_DEFAULTS } from './options.ts';
import { eventually, send, startUpstream, type TestServer } from './test-support.ts';

const MIB = 1024 * 1024;
/**
 * The growth allowed, in bodies of the default --max-body (1 MiB): what twelve bodies at once
 * hold while they wait (read, and copied to the judging thread's ring), each thread's young
 * generation, and the 16 bodies of garbage each judging thread may leave uncollected. Without
 * collecting that garbage, the growth measured 100 to 270 MiB and went on growing.
 */
const GROWTH_BOUND_BODIES = 80;
const REQUESTS = 12;
/** About a megabyte of `{}` items: the costliest shape to judge per byte that the bench knows. */
const body = `{"data":{"type":"AttributeConfig","attributes":{"label":"x","options":[${Array(340_000).fill('{}').join(',')}]}}}`;
const created = JSON.stringify({ data: { id: '5f1d7c2e9b1e8a0012345678', type: 'AttributeConfig', attributes: { label: 'x', inUse: false }, relationships: {} } });

let upstream: TestServer;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(created) });
      res.end(created);
    });
  });
});

afterAll(async () => {
  await upstream?.close();
});

async function metric(adminUrl: string, pattern: RegExp): Promise<number> {
  const text = (await send(`${adminUrl}/metrics`)).body.toString();
  return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const rss = (adminUrl: string) => metric(adminUrl, /^las_proxy_process_resident_memory_bytes (\d+)/gm);
/** Exchanges judged or shed: every exchange of a body is one or the other once it is over. */
const settled = async (adminUrl: string) => (await metric(adminUrl, /^las_proxy_exchanges_judged_total\{[^}]*\} (\d+)/gm)) + (await metric(adminUrl, /^las_proxy_exchanges_shed_total\{[^}]*\} (\d+)/gm));

describe.each(['report', 'enforce'])('%s mode', (mode) => {
  let proxy: CliProcess;
  let baseUrl: string;
  let adminUrl: string;

  beforeAll(async () => {
    proxy = spawnCli(['proxy', '--upstream', `${upstream.url}/v3`, '--port', '0', '--admin-port', '0', '--mode', mode, '--violations', '/dev/null', '--log-level', 'warn'], hermeticEnvironment());
    const line = await firstLine(proxy);
    [, baseUrl, adminUrl] = /serving (\S+) .*admin (\S+),/.exec(line) ?? [];
    expect(adminUrl, line).toBeDefined();
  });

  afterAll(async () => {
    proxy?.child.kill('SIGTERM');
    await proxy?.exit;
  });

  async function sendBodies(count: number): Promise<void> {
    const before = await settled(adminUrl);
    const pool = new Pool(new URL(baseUrl).origin, { connections: count });
    try {
      await Promise.all(Array.from({ length: count }, () => pool.request({ method: 'POST', path: '/v3/attribute-configs', headers: { authorization: 'Bearer r:memory', 'content-type': MEDIA_TYPE }, body }).then((r) => r.body.dump())));
    } finally {
      await pool.close();
    }
    await eventually('every body judged or shed', async () => ((await settled(adminUrl)) >= before + count ? true : undefined), 120_000);
  }

  test(`${REQUESTS} requests of a megabyte at once grow resident memory by less than ${GROWTH_BOUND_BODIES} bodies of the limit, and ${REQUESTS} more by no more than that`, async () => {
    expect(body.length).toBeGreaterThan(0.6 * MIB);
    expect(body.length).toBeLessThan(PROXY_DEFAULTS.maxBody);
    // Started: the judging thread exists, and each path has run once.
    await sendBodies(2);
    const warm = await rss(adminUrl);
    await sendBodies(REQUESTS);
    const once = await rss(adminUrl);
    await sendBodies(REQUESTS);
    const twice = await rss(adminUrl);
    console.log(`${mode} mode: resident ${(warm / MIB).toFixed(0)} MiB warm, +${((once - warm) / MIB).toFixed(0)} MiB after ${REQUESTS} requests of ${(body.length / MIB).toFixed(2)} MiB, +${((twice - warm) / MIB).toFixed(0)} MiB after ${REQUESTS} more`);
    expect(once - warm).toBeLessThan(GROWTH_BOUND_BODIES * PROXY_DEFAULTS.maxBody);
    expect(twice - warm).toBeLessThan(GROWTH_BOUND_BODIES * PROXY_DEFAULTS.maxBody);
  }, 180_000);
});
