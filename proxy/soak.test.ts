// A bounded soak: 20,000 exchanges at 32 connections through the proxy in report mode, every
// one validated (the large list on the judging thread) or, when one client has its share of the
// judging thread's backlog waiting, shed and counted. No exchange is lost, no byte altered, and
// the heap does not grow with traffic.
import { Agent } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { credentials, itWith, list as listOfContract, listPage, listTarget } from '../contract/test-support.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { collectGarbage, exchangeHash, send, startUpstream, type TestServer } from './test-support.ts';

// Bounded by its count; the time allowed is generous because other test files share the cores.
vi.setConfig({ testTimeout: 180_000 });

const EXCHANGES = 20_000;
const WARM_UP = 2_000;
const CONNECTIONS = 32;
/** Generous: the heap after the soak may exceed the heap after warm-up by this much, not more. */
const HEAP_GROWTH_LIMIT = 16 * 1024 * 1024;

/** A page of the list, its answer to a page of that size. */
const page = (size: number) =>
  listOfContract === undefined ? '{"data":[]}' : JSON.stringify(listPage(listOfContract, size));
const plain = page(10);
const gzipped = gzipSync(plain);
const large = page(100);

/** A page of ten, the same gzipped in two writes (`&gzip`), and a page of a hundred, judged on the judging thread. */
const paths =
  listOfContract === undefined
    ? []
    : [
        listTarget(listOfContract, { limit: 10, offset: 0 }),
        `${listTarget(listOfContract, { limit: 10, offset: 0 })}&gzip`,
        listTarget(listOfContract, { limit: 100, offset: 0 }),
      ];

let upstream: TestServer;
let proxy: StartedProxy;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.sendDate = false;
    if (req.url?.endsWith('&gzip')) {
      res.writeHead(200, { 'Content-Type': 'application/vnd.api+json', 'Content-Encoding': 'gzip' });
      res.write(gzipped.subarray(0, 40));
      res.end(gzipped.subarray(40));
    } else {
      const body = req.url?.includes('page[limit]=100') ? large : plain;
      res.writeHead(200, {
        'Content-Type': 'application/vnd.api+json',
        'Content-Length': String(Buffer.byteLength(body)),
      });
      res.end(body);
    }
  });
  proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations: null });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function run(count: number, agent: Agent, expected: string[]): Promise<{ answered: number; altered: number }> {
  let next = 0;
  let answered = 0;
  let altered = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const index = next++;
      const response = await send(`${proxy.baseUrl}${paths[index % paths.length]}`, {
        agent,
        headers: credentials,
      });
      answered += 1;
      if (exchangeHash(response) !== expected[index % paths.length]) altered += 1;
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return { answered, altered };
}

async function exchangesCounted(): Promise<number> {
  const metric = await proxy.proxy.metrics.exchanges.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

async function exchangesJudged(): Promise<number> {
  const metric = await proxy.proxy.metrics.validationSeconds.get();
  return metric.values.find((v) => v.metricName === 'las_proxy_validation_duration_seconds_count')?.value ?? 0;
}

async function exchangesShed(): Promise<number> {
  return (await proxy.proxy.metrics.shedExchanges.get()).values.reduce((sum, v) => sum + v.value, 0);
}

async function judgedOnWorker(): Promise<number> {
  const metric = await proxy.proxy.metrics.judgedExchanges.get();
  return metric.values.find((v) => v.labels.thread === 'worker')?.value ?? 0;
}

async function findingsCounted(): Promise<number> {
  const metric = await proxy.proxy.metrics.findings.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

itWith(listOfContract, 'list')(
  `${EXCHANGES} exchanges at ${CONNECTIONS} connections: none lost, none altered, heap flat`,
  async () => {
    const expected = await Promise.all(
      paths.map(async (path) => exchangeHash(await send(`${upstream.url}/v3${path}`))),
    );
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      const warmUp = await run(WARM_UP, agent, expected);
      await proxy.proxy.settled();
      expect(await exchangesCounted()).toBe(WARM_UP);
      collectGarbage();
      const heapAfterWarmUp = process.memoryUsage().heapUsed;

      const soak = await run(EXCHANGES, agent, expected);
      await proxy.proxy.settled();
      expect(await exchangesCounted()).toBe(WARM_UP + EXCHANGES);
      collectGarbage();
      const heapAfterSoak = process.memoryUsage().heapUsed;

      expect({ ...warmUp, total: WARM_UP }).toEqual({ answered: WARM_UP, altered: 0, total: WARM_UP });
      expect({ ...soak, total: EXCHANGES }).toEqual({ answered: EXCHANGES, altered: 0, total: EXCHANGES });
      // Every exchange was judged and the traffic is valid: no finding at all.
      expect((await exchangesJudged()) + (await exchangesShed())).toBe(WARM_UP + EXCHANGES);
      expect(await judgedOnWorker()).toBeGreaterThan(0);
      expect(await findingsCounted()).toBe(0);
      expect(heapAfterSoak - heapAfterWarmUp).toBeLessThan(HEAP_GROWTH_LIMIT);
    } finally {
      agent.destroy();
    }
  },
);
