// Judging on the worker thread: the same findings as judging on the forwarding thread, small
// exchanges kept on the forwarding thread, a bounded backlog, and a failed worker that leaves
// the proxy judging on its own thread. The exchanges go to the contract's first list; those judged for a broken
// item of a list are skipped when the contract holds none.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MEDIA_TYPE, withValueAt, type Operation } from '../contract/index.ts';
import {
  contract,
  describeWith,
  itemTypeBreak,
  itWith,
  list,
  listPage,
  listQuery,
  requestPath,
} from '../contract/test-support.ts';
import { NO_BODY, type CapturedExchange } from './judge.ts';
import { JUDGE_BACKLOG_LIMITS, JUDGE_THREAD_MIN_BYTES, JudgeThread, type JudgedExchange } from './judge-thread.ts';
import type { ViolationRecord } from './violations.ts';
import { startValidatingProxy } from './proxy.ts';
import { eventually, Recorder, send, startUpstream, type TestServer } from './test-support.ts';

/** The list the exchanges go to, when the contract holds one. */
const LIST = 'list';

/** A page of `size` items of the list whose item `bad` has an attribute of a type it does not take. */
function listWithOneBadItem(list: Operation, size: number, bad = 3): string {
  const broken = itemTypeBreak(list);
  const data = listPage(list, size).data.map((item, i) =>
    i === bad ? withValueAt(item, broken.pointer, broken.value) : item,
  );
  return JSON.stringify({ data });
}

/** How many items of the list make a page of about `bytes`. */
const itemsIn = (list: Operation, bytes: number) => Math.ceil(bytes / JSON.stringify(listPage(list).data[0]).length);

/** The pointer of the broken attribute of item `bad`. */
const brokenAt = (list: Operation, bad: number) => `/data/${bad}${itemTypeBreak(list).pointer}`;

const LARGE = 80;
const SMALL = 5;
/** The pages the upstream answers, by the page size asked for. */
const documents = new Map<string, string>();
if (list) for (const size of [LARGE, SMALL]) documents.set(String(size), listWithOneBadItem(list, size));

let upstream: TestServer;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const limit = new URL(req.url ?? '/', 'http://upstream').searchParams.get('page[limit]') ?? String(SMALL);
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end(documents.get(limit) ?? documents.get(String(SMALL)));
  });
});

afterAll(async () => {
  await upstream?.close();
});

const session = { authorization: 'Bearer r:thread-token' };
/** Two pages asked for as the list takes them, and a page asked for with neither credentials nor a filter. */
const traffic = (list: Operation) => [
  { path: requestPath(list, listQuery(list, { limit: LARGE, offset: 0 })), headers: session },
  { path: requestPath(list, listQuery(list, { limit: SMALL, offset: 0 })), headers: session },
  { path: requestPath(list, `page[limit]=${LARGE}`), headers: {} },
];

async function judgedTraffic(
  list: Operation,
  judgeThread: boolean,
): Promise<{ findings: string[]; byThread: Record<string, number> }> {
  const violations = new Recorder();
  // Every finding written (no folding of repeats): the test compares what each exchange found.
  const proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    violations,
    judgeThread,
    repeatInterval: 0,
  });
  try {
    for (const [i, exchange] of traffic(list).entries())
      await send(`${proxy.proxyUrl}${exchange.path}`, {
        headers: { ...exchange.headers, 'x-request-id': `thread-${i}` },
      });
    await proxy.proxy.settled();
    const findings = violations
      .lines<ViolationRecord>()
      .map((l) => `${l.requestId} ${l.direction} ${l.rule} ${l.pointer} ${l.message}`)
      .sort();
    const byThread = Object.fromEntries(
      (await proxy.proxy.metrics.judgedExchanges.get()).values.map((v) => [String(v.labels.thread), v.value]),
    );
    return { findings, byThread };
  } finally {
    await proxy.close();
  }
}

describeWith(list, LIST)('judging on the worker thread', (list) => {
  test('finds exactly what judging on the forwarding thread finds', async () => {
    const onWorker = await judgedTraffic(list, true);
    const inline = await judgedTraffic(list, false);
    expect(onWorker.findings).toEqual(inline.findings);
    // The broken item is found in the large list judged on the worker and the small one judged
    // inline; the third exchange, served though it had to be refused, is judged once for that.
    expect(onWorker.findings.filter((f) => f.includes(` ${brokenAt(list, 3)} `)).map((f) => f.split(' ')[0])).toEqual([
      'thread-0',
      'thread-1',
    ]);
    expect(onWorker.findings.some((f) => f.startsWith('thread-2 request AUTH-CREDENTIALS-PRESENT'))).toBe(true);
    expect(onWorker.findings.some((f) => f.startsWith('thread-2 exchange AUTH-401-NO-CREDENTIALS'))).toBe(true);
    expect(onWorker.byThread).toEqual({ worker: 2, forwarding: 1 });
    expect(inline.byThread).toEqual({ forwarding: 3 });
  });
});

/** The operation the captured exchanges go to: the list when the contract holds one (the thread judges any alike). */
const capturedOperation = list ?? contract.operations[0];

function capturedWithBody(bytes: number): CapturedExchange {
  const body = Buffer.from(`{"data":[],"pad":"${'x'.repeat(Math.max(0, bytes - 19))}"}`);
  return {
    method: capturedOperation.method,
    path: requestPath(capturedOperation, capturedOperation === list ? listQuery(list) : ''),
    requestHeaders: { authorization: 'Bearer r:t' },
    requestBody: NO_BODY,
    response: { status: 200, rawHeaders: ['Content-Type', MEDIA_TYPE], body: { kind: 'captured', raw: body } },
  };
}

function startThread(script?: URL, ringBytes?: number, idleMs?: number) {
  const failures: { error: Error; unjudged: number }[] = [];
  const thread = new JudgeThread({
    judge: { includeValues: false, maxBody: 4 * 1024 * 1024 },
    onFailure: (error, unjudged) => failures.push({ error, unjudged }),
    script,
    ringBytes,
    idleMs,
  });
  return { thread, failures };
}

describe('JudgeThread', () => {
  test('leaves exchanges with small bodies, or none, to the forwarding thread', async () => {
    const { thread } = startThread();
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES - 100), () => undefined)).toBe(false);
    expect(thread.submit({ ...capturedWithBody(0), response: null }, () => undefined)).toBe(false);
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), () => undefined)).toBe(true);
    await thread.close(5000);
  });

  test('starts its worker with the first exchange that belongs there, not before', async () => {
    const { thread } = startThread();
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES - 100), () => undefined)).toBe(false);
    expect(thread.running).toBe(false);
    const judged: JudgedExchange[] = [];
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), (j) => judged.push(j))).toBe(true);
    expect(thread.running).toBe(true);
    await thread.whenIdle();
    expect(judged).toHaveLength(1);
    await thread.close(5000);
  });

  test('stops its worker once idle, and the next exchange that belongs there starts another and is judged', async () => {
    const { thread, failures } = startThread(undefined, undefined, 50);
    const judged: JudgedExchange[] = [];
    const broken = capturedWithBody(JUDGE_THREAD_MIN_BYTES);
    broken.requestHeaders = {};
    expect(thread.submit(broken, (j) => judged.push(j))).toBe(true);
    await thread.whenIdle();
    expect(thread.running).toBe(true);
    await eventually('the idle worker stopped', async () => (thread.running ? undefined : true), 5000);
    expect(thread.submit(broken, (j) => judged.push(j))).toBe(true);
    expect(thread.running).toBe(true);
    await thread.whenIdle();
    expect(judged).toHaveLength(2);
    expect(judged[1].findings.map((f) => f.requirement)).toEqual(judged[0].findings.map((f) => f.requirement));
    expect(judged[1].findings.map((f) => f.requirement)).toContain('AUTH-CREDENTIALS-PRESENT');
    expect(failures).toEqual([]);
    await thread.close(5000);
  });

  test('keeps its worker while exchanges keep coming', async () => {
    const { thread } = startThread(undefined, undefined, 200);
    for (let i = 0; i < 6; i += 1) {
      expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), () => undefined)).toBe(true);
      await thread.whenIdle();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(thread.running).toBe(true);
    }
    await thread.close(5000);
  });

  test('closes at once when it never started', async () => {
    const { thread } = startThread();
    expect(await thread.close(5000)).toBe(0);
    expect(thread.running).toBe(false);
  });

  test('refuses past the exchange limit of its backlog, and takes exchanges again once it caught up', async () => {
    const { thread } = startThread();
    const judged: JudgedExchange[] = [];
    const captured = capturedWithBody(JUDGE_THREAD_MIN_BYTES);
    for (let i = 0; i < JUDGE_BACKLOG_LIMITS.exchanges; i += 1)
      expect(thread.submit(captured, (j) => judged.push(j))).toBe(true);
    expect(thread.submit(captured, () => undefined)).toBe(false);
    expect(thread.backlog).toBe(JUDGE_BACKLOG_LIMITS.exchanges);
    await thread.whenIdle();
    expect(judged).toHaveLength(JUDGE_BACKLOG_LIMITS.exchanges);
    expect(judged.every((j) => j.failures === undefined && Array.isArray(j.findings))).toBe(true);
    expect(thread.submit(captured, () => undefined)).toBe(true);
    await thread.close(5000);
  });

  test('refuses past the byte limit of its backlog', async () => {
    const { thread } = startThread();
    const captured = capturedWithBody(1024 * 1024);
    const fitting = Math.floor(
      JUDGE_BACKLOG_LIMITS.bytes / (captured.response!.body as { raw: Uint8Array }).raw.byteLength,
    );
    for (let i = 0; i < fitting; i += 1) expect(thread.submit(captured, () => undefined)).toBe(true);
    expect(thread.submit(captured, () => undefined)).toBe(false);
    await thread.close(5000);
  });

  itWith(list, LIST)(
    'bodies sharing a small ring, round after round, are each judged as they were sent',
    async (list) => {
      const { thread } = startThread(undefined, 64 * 1024);
      const judged = new Map<number, JudgedExchange>();
      let refused = 0;
      // Lists of about 9 to 17 KB, each with its broken item somewhere else.
      const fewest = itemsIn(list, 9 * 1024);
      const sizes = itemsIn(list, 17 * 1024) - fewest + 1;
      for (let i = 0; i < 120;) {
        const raw = Buffer.from(listWithOneBadItem(list, fewest + (i % sizes), i % fewest));
        const captured = {
          ...capturedWithBody(0),
          response: { status: 200, rawHeaders: ['Content-Type', MEDIA_TYPE], body: { kind: 'captured' as const, raw } },
        };
        const exchange = i;
        if (thread.submit(captured, (result) => judged.set(exchange, result))) {
          raw.fill(0); // the proxy's own bytes may be reused once submitted: the ring holds a copy
          i += 1;
        } else {
          // Full: go on submitting as the worker answers, as forwarding would.
          refused += 1;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      await thread.whenIdle();
      expect(refused).toBeGreaterThan(10);
      expect(judged.size).toBe(120);
      for (const [i, result] of judged) {
        expect(result.findings.map((f) => f.pointer)).toContain(brokenAt(list, i % fewest));
      }
      await thread.close(5000);
    },
  );

  itWith(list, LIST)('decodes a compressed body it reads from the ring', async (list) => {
    const { thread } = startThread();
    // Items that differ in their ids alone: ids that do not compress, for a body the thread takes.
    const page = JSON.parse(listWithOneBadItem(list, 1500, 1234)) as { data: { id: string }[] };
    for (const [i, item] of page.data.entries())
      item.id = createHash('sha1').update(String(i)).digest('hex').slice(0, 24);
    const raw = gzipSync(JSON.stringify(page));
    expect(raw.byteLength).toBeGreaterThanOrEqual(JUDGE_THREAD_MIN_BYTES);
    const captured = capturedWithBody(0);
    const judged: JudgedExchange[] = [];
    const compressed = {
      ...captured,
      response: {
        status: 200,
        rawHeaders: ['Content-Type', MEDIA_TYPE, 'Content-Encoding', 'gzip'],
        body: { kind: 'captured' as const, raw },
      },
    };
    expect(thread.submit(compressed, (result) => judged.push(result))).toBe(true);
    await thread.whenIdle();
    expect(judged[0].findings.map((f) => f.pointer)).toContain(brokenAt(list, 1234));
    await thread.close(5000);
  });

  test('close waits a bounded time for a worker that never answers', async () => {
    const { thread } = startThread(new URL('data:text/javascript,setInterval(() => {}, 1000)'));
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), () => undefined)).toBe(true);
    expect(await thread.close(100)).toBe(1);
  });

  test('a worker that dies reports the exchanges it held and takes no more', async () => {
    const { thread, failures } = startThread(new URL('data:text/javascript,process.exit(3)'));
    const settled: JudgedExchange[] = [];
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), (j) => settled.push(j))).toBe(true);
    await thread.whenIdle();
    const failure = await eventually('the failure report', () => failures[0]);
    expect(failure.error.message).toMatch(/exited with code 3/);
    expect(failure.unjudged).toBe(1);
    expect(settled).toEqual([]);
    expect(thread.submit(capturedWithBody(JUDGE_THREAD_MIN_BYTES), () => undefined)).toBe(false);
    await thread.close(5000);
  });
});
