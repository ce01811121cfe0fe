// Judging under backlog: an exchange that belongs on the judging thread is never judged on the
// forwarding thread instead (that would stall forwarding for everyone); past the backlog, or past
// a client's share of it, it is shed and counted. A judging thread that never answers makes the
// backlog fill deterministically.
import type { IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { afterEach, expect, test } from 'vitest';
import { contract, create, itWith, requestPath } from '../contract/test-support.ts';
import { DashboardFeed } from './dashboard.ts';
import { ProxiedExchange } from './exchange.ts';
import { JUDGE_BACKLOG_LIMITS, JUDGE_THREAD_MIN_BYTES } from './judge-thread.ts';
import { CLIENT_BACKLOG_BYTES, CLIENT_BACKLOG_SECONDS, CLIENT_BACKLOG_SHARE, ExchangeJudging } from './judging.ts';
import { createProxyMetrics, type ProxyMetrics } from './metrics.ts';
import { Publisher } from './publisher.ts';
import type { ShedRecord } from './sheds.ts';
import { Recorder } from './test-support.ts';
import { ViolationsLog } from './violations.ts';

/** Where the large exchanges go: a create of the contract's when it holds one (shedding reads no operation). */
const target = create ? requestPath(create) : `${contract.basePath}/outside-the-contract`;
const NEVER_ANSWERS = new URL('data:text/javascript,setInterval(() => {}, 1000)');
/** A judging thread that answers every exchange at once, saying judging it took a second. */
const A_SECOND_EACH = new URL(
  `data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.on('message', (batch) => parentPort.postMessage(batch.captured.map(() => ({ findings: [], seconds: 1 }))));")}`,
);
const body = Buffer.alloc(JUDGE_THREAD_MIN_BYTES, 0x20);

let judging: ExchangeJudging | null = null;
let publisher: Publisher | null = null;

afterEach(async () => {
  await judging?.close(10);
  publisher?.close();
  judging = null;
  publisher = null;
});

function startJudging(script = NEVER_ANSWERS): {
  judging: ExchangeJudging;
  metrics: ProxyMetrics;
  publisher: Publisher;
  log: Recorder;
} {
  const metrics = createProxyMetrics({ judgeBacklog: () => 0 });
  const feed = new DashboardFeed(contract, { upstream: 'http://upstream', mode: 'report' });
  const logger = pino({ level: 'silent' });
  const log = new Recorder();
  publisher = new Publisher({ contract, metrics, feed, violations: new ViolationsLog(log), logger, repeatInterval: 0 });
  judging = new ExchangeJudging({
    contract,
    judgeOptions: { includeValues: false, maxBody: 2 * 1024 * 1024 },
    metrics,
    feed,
    publisher,
    logger,
    onWorkerThread: true,
    judgeThreadScript: script,
  });
  return { judging, metrics, publisher, log };
}

/** A finished POST with a body large enough for the judging thread, from `client`. */
function largeExchange(client: string, raw: Buffer = body): ProxiedExchange {
  const req = {
    method: 'POST',
    url: target,
    headers: { 'content-type': 'application/vnd.api+json' },
    socket: { remoteAddress: client },
  } as unknown as IncomingMessage;
  const exchange = new ProxiedExchange(req, true);
  exchange.requestBody = { kind: 'captured', raw };
  exchange.status = 201;
  exchange.responseComplete = true;
  return exchange;
}

async function counts(
  metrics: ProxyMetrics,
): Promise<{ shed: Record<string, number>; judged: Record<string, number> }> {
  const byLabel = async (counter: ProxyMetrics['shedExchanges'] | ProxyMetrics['judgedExchanges'], label: string) =>
    Object.fromEntries((await counter.get()).values.map((v) => [String(v.labels[label as never]), v.value]));
  return {
    shed: await byLabel(metrics.shedExchanges, 'reason'),
    judged: await byLabel(metrics.judgedExchanges, 'thread'),
  };
}

test(`one client holds at most ${CLIENT_BACKLOG_SHARE} exchanges of the backlog; another client's exchanges still go to the judging thread`, async () => {
  const { judging, metrics } = startJudging();
  for (let i = 0; i < CLIENT_BACKLOG_SHARE + 50; i += 1) judging.settle(largeExchange('10.0.0.1'));
  for (let i = 0; i < 10; i += 1) judging.settle(largeExchange('10.0.0.2'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(await counts(metrics)).toEqual({ shed: { 'client-share': 50 }, judged: {} });
});

test(`past the backlog of ${JUDGE_BACKLOG_LIMITS.exchanges} exchanges, exchanges are shed and counted, never judged on the forwarding thread`, async () => {
  const { judging, metrics } = startJudging();
  const clients = JUDGE_BACKLOG_LIMITS.exchanges / CLIENT_BACKLOG_SHARE;
  for (let c = 0; c < clients; c += 1)
    for (let i = 0; i < CLIENT_BACKLOG_SHARE; i += 1) judging.settle(largeExchange(`10.0.1.${c}`));
  for (let i = 0; i < 20; i += 1) judging.settle(largeExchange('10.0.2.1'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(await counts(metrics)).toEqual({ shed: { backlog: 20 }, judged: {} });
});

test(`one client holds at most ${CLIENT_BACKLOG_BYTES} bytes of the backlog: a client sending megabyte bodies is shed, one sending small bodies is not`, async () => {
  const { judging, metrics } = startJudging();
  const megabyte = Buffer.alloc(1024 * 1024, 0x20);
  const heavyHeld = CLIENT_BACKLOG_BYTES / megabyte.length;
  for (let i = 0; i < heavyHeld + 30; i += 1) judging.settle(largeExchange('10.0.0.1', megabyte));
  for (let i = 0; i < 100; i += 1) judging.settle(largeExchange('10.0.0.2'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(await counts(metrics)).toEqual({ shed: { 'client-share': 30 }, judged: {} });
});

test(`one client holds at most ${CLIENT_BACKLOG_SECONDS} s of judging in the backlog, at what its exchanges judged last took`, async () => {
  const { judging, metrics } = startJudging(A_SECOND_EACH);
  judging.settle(largeExchange('10.0.0.1'));
  await judging.settled();
  for (let i = 0; i < 5; i += 1) judging.settle(largeExchange('10.0.0.1'));
  for (let i = 0; i < 5; i += 1) judging.settle(largeExchange('10.0.0.2'));
  await judging.settled();
  expect(await counts(metrics)).toEqual({
    shed: { 'client-share': 5 - CLIENT_BACKLOG_SECONDS },
    judged: { worker: 1 + CLIENT_BACKLOG_SECONDS + 5 },
  });
});

itWith(create, 'create')(
  'every exchange shed is written to the log when the interval ends: one line per client, operation and reason, with the count and the bytes',
  async (create) => {
    const { judging, publisher, log } = startJudging();
    for (let i = 0; i < CLIENT_BACKLOG_SHARE + 7; i += 1) judging.settle(largeExchange('10.0.0.1'));
    await new Promise((resolve) => setImmediate(resolve));
    publisher.close();
    await new Promise((resolve) => setImmediate(resolve));
    const sheds = log.lines<ShedRecord>().filter((line) => 'shed' in line);
    expect(sheds).toEqual([
      expect.objectContaining({
        shed: 7,
        bytes: 7 * body.length,
        reason: 'client-share',
        client: '10.0.0.1',
        operationId: create.operationId,
      }),
    ]);
  },
);
