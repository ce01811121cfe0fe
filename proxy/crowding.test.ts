// No finding lost in silence. One client sends megabyte POSTs on 24 connections while the judging
// thread is behind (slowed here to a known pace, as on a machine whose cores are all taken);
// another client's answers, each large enough for the judging thread, break a service MUST.
// The heavy client's exchanges are shed once it holds its share of the backlog's bytes; the light
// client's findings are all logged, and whatever is shed is written to the log with its count.
// The heavy client posts to a create of the contract's, the light one lists a list of its.
import { Agent } from 'node:http';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { Pool } from 'undici';
import { MEDIA_TYPE, withValueAt, type Operation } from '../contract/index.ts';
import {
  create,
  describeWith,
  itemTypeBreak,
  itWith,
  largeDocument,
  list,
  listPage,
  listQuery,
  requestPath,
  successExample,
} from '../contract/test-support.ts';
import { JUDGE_THREAD_MIN_BYTES } from './judge-thread.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import type { ShedRecord } from './sheds.ts';
import { eventually, Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

/**
 * The judging thread, pausing 50 ms per exchange before it answers: at most 20 exchanges a second.
 * It reports each exchange as judged in a millisecond, so that the shares are charged by exchanges
 * and bytes, as this test means, and not by how long judging took on a machine busy with other
 * work (under a full test run, the light client's own judging time once used up its share).
 */
const SLOW_JUDGE = new URL(
  `data:text/javascript,${encodeURIComponent(`
import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
import { parentPort } from 'node:worker_threads';
register();
const post = parentPort.postMessage.bind(parentPort);
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort.postMessage = (results) => { Atomics.wait(pause, 0, 0, 50 * results.length); post(results.map((result) => ({ ...result, seconds: 0.001 }))); };
await import(${JSON.stringify(new URL('./judge-worker-main.ts', import.meta.url).href)});
`)}`,
);

const HEAVY_CONNECTIONS = 24;
const HEAVY_MAX_REQUESTS = 400;
const LIGHT_REQUESTS = 30;
const session = { authorization: 'Bearer r:crowding' };
/** A create request of about 850 KB. */
const heavyBody = create ? largeDocument(create, 850_000) : '';
/** A list answer large enough for the judging thread whose every item breaks the contract. */
const brokenList = list ? JSON.stringify({ data: brokenItems(list, 80) }) : '';
const created = create ? JSON.stringify(successExample(create)) : '';

function brokenItems(list: Operation, count: number): unknown[] {
  const broken = itemTypeBreak(list);
  return listPage(list, count).data.map((item) => withValueAt(item, broken.pointer, broken.value));
}

let upstream: TestServer;
let proxy: StartedProxy;
const log = new Recorder();

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = req.method === 'POST' ? created : brokenList;
      res.writeHead(req.method === 'POST' ? 201 : 200, {
        'content-type': MEDIA_TYPE,
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    violations: log,
    repeatInterval: 0,
    judgeThreadScript: SLOW_JUDGE,
  });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function shedCount(): Promise<number> {
  return (await proxy.proxy.metrics.shedExchanges.get()).values.reduce((sum, v) => sum + v.value, 0);
}

// The heavy client's burst takes a while on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

const withList = describeWith(list, 'list');
const withCreate = itWith(create, 'create');

withList('a light client listing beside a heavy one', (list) =>
  withCreate(
    'a client sending megabyte POSTs on 24 connections is shed; every MUST finding of a light client beside it is logged, or logged as shed with its count',
    async (create) => {
      expect(brokenList.length).toBeGreaterThan(JUDGE_THREAD_MIN_BYTES);
      expect(heavyBody.length).toBeGreaterThan(800_000);
      expect(heavyBody.length).toBeLessThan(proxy.proxy.maxBody);
      const pool = new Pool(proxy.proxyUrl, { connections: HEAVY_CONNECTIONS });
      // The light client reaches the proxy from another loopback address: another client.
      const light = new Agent({ keepAlive: true, localAddress: '127.0.0.2' });
      let heavySent = 0;
      let lightDone = false;
      const heavyConnection = async () => {
        while (!lightDone && heavySent < HEAVY_MAX_REQUESTS) {
          heavySent += 1;
          await pool
            .request({
              method: 'POST',
              path: requestPath(create),
              headers: { ...session, 'content-type': MEDIA_TYPE },
              body: heavyBody,
            })
            .then((r) => r.body.dump());
        }
      };
      try {
        const heavy = Promise.all(Array.from({ length: HEAVY_CONNECTIONS }, heavyConnection));
        await eventually(
          'the heavy client crowding the judging backlog',
          async () => ((await shedCount()) > 0 ? true : undefined),
          60_000,
        );
        for (let i = 0; i < LIGHT_REQUESTS; i += 1) {
          const answer = await send(`${proxy.proxyUrl}${requestPath(list, listQuery(list))}`, {
            agent: light,
            headers: { ...session, 'x-request-id': `light-${i}` },
          });
          expect(answer.status).toBe(200);
        }
        lightDone = true;
        await heavy;
      } finally {
        lightDone = true;
        light.destroy();
        await pool.close();
      }
      await proxy.close();

      const lines = log.lines<ViolationRecord & ShedRecord>();
      const findings = lines.filter((line) => 'rule' in line);
      const sheds = lines.filter((line) => 'shed' in line);
      const lightJudged = new Set(
        findings
          .filter((f) => f.requestId.startsWith('light-') && f.party === 'service' && f.level === 'MUST')
          .map((f) => f.requestId),
      );
      const shedOf = (client: string) => sheds.filter((s) => s.client === client).reduce((sum, s) => sum + s.shed, 0);
      const shedBytesOf = (client: string) =>
        sheds.filter((s) => s.client === client).reduce((sum, s) => sum + s.bytes, 0);
      console.log(
        `crowding: ${heavySent} heavy requests, ${shedOf('127.0.0.1')} shed (${shedBytesOf('127.0.0.1')} bytes); light: ${lightJudged.size} of ${LIGHT_REQUESTS} logged with a service MUST finding, ${shedOf('127.0.0.2')} shed`,
      );
      expect(lightJudged.size + shedOf('127.0.0.2')).toBe(LIGHT_REQUESTS);
      // Charged by bytes, the heavy client holds a quarter of the backlog at most: the light one always finds room.
      expect(shedOf('127.0.0.2')).toBe(0);
      expect(shedOf('127.0.0.1') + shedOf('127.0.0.2')).toBe(await shedCount());
      expect(proxy.proxy.feed.snapshot().shed).toBe(await shedCount());
      expect(shedOf('127.0.0.1')).toBeGreaterThan(0);
      expect(
        sheds
          .filter((s) => s.client === '127.0.0.1')
          .every((s) => s.reason === 'client-share' && s.operationId === create.operationId),
      ).toBe(true);
    },
  ),
);
