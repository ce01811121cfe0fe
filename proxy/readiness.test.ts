// /readyz answers from one probe of the upstream at a time, kept for a second: balancers and
// monitors probing every replica often must not open a connection to the service per probe.
import { Agent } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { READINESS_CACHE_MS, ReadinessProbe } from './admin.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { send } from './test-support.ts';

describe('ReadinessProbe', () => {
  test('probes once for every caller while a probe is under way, and again only once its answer is a second old', async () => {
    let clock = 0;
    let probes = 0;
    const probe = new ReadinessProbe(
      new URL('http://127.0.0.1:1/v3'),
      async () => ((probes += 1), true),
      () => clock,
    );
    expect(await Promise.all(Array.from({ length: 100 }, () => probe.reachable()))).toEqual(Array(100).fill(true));
    expect(probes).toBe(1);
    clock = READINESS_CACHE_MS - 1;
    await probe.reachable();
    expect(probes).toBe(1);
    clock = READINESS_CACHE_MS;
    await probe.reachable();
    expect(probes).toBe(2);
  });

  test('an unreachable answer is kept as long, and the next probe after it can find the upstream back', async () => {
    let clock = 0;
    const answers = [false, true];
    const probe = new ReadinessProbe(
      new URL('http://127.0.0.1:1/v3'),
      async () => answers.shift()!,
      () => clock,
    );
    expect(await probe.reachable()).toBe(false);
    expect(await probe.reachable()).toBe(false);
    clock += READINESS_CACHE_MS;
    expect(await probe.reachable()).toBe(true);
  });
});

describe('1,000 probes of /readyz', () => {
  let upstream: Server;
  let connections = 0;
  let proxy: StartedProxy;

  beforeAll(async () => {
    upstream = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await startValidatingProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v3` });
  });

  afterAll(async () => {
    await proxy?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  test('open a few connections to the upstream: one per second they took at most, one at least', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const started = Date.now();
    try {
      const statuses = await Promise.all(
        Array.from({ length: 1000 }, () =>
          send(`${proxy.adminUrl}/readyz`, { agent }).then((response) => response.status),
        ),
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      agent.destroy();
    }
    const seconds = Math.ceil((Date.now() - started) / READINESS_CACHE_MS);
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(connections).toBeLessThanOrEqual(seconds + 1);
  });
});
