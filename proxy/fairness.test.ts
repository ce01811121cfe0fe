// Each client's share of the forwarding thread: a client that took its share of a window (a
// quarter, or its equal part while fewer than four clients are served), and more than the average
// client served in it, while the thread had no time to spare, waits for the next one; the others
// do not wait; a new window starts every client afresh. Through a proxy: whatever the thread does
// for a client is charged to it, and a client held back is answered once it is within its share
// again. The requests through a proxy are creates of the contract's, skipped when it holds none.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Pool } from 'undici';
import { MEDIA_TYPE, type Operation } from '../contract/index.ts';
import {
  create,
  documentExample,
  itWith,
  largeDocument,
  requestPath,
  successExample,
} from '../contract/test-support.ts';
import { CLIENT_SHARE, CLIENTS_FOLLOWED, CONTENDED_BUSY, FAIRNESS_WINDOW_MS, ForwardingBudget } from './fairness.ts';
import { JUDGE_THREAD_MIN_BYTES } from './judge-thread.ts';
import { startValidatingProxy } from './proxy.ts';
import { send, startUpstream, type TestServer } from './test-support.ts';

/**
 * A budget on a clock of the test's: `advance` passes time with the thread busy throughout, `idle` with the thread
 * waiting for work.
 */
function budgetAt(): { budget: ForwardingBudget; advance: (ms: number) => void; idle: (ms: number) => void } {
  let now = 1_000;
  let busy = 0;
  return {
    budget: new ForwardingBudget(
      () => now,
      FAIRNESS_WINDOW_MS,
      CLIENT_SHARE,
      () => busy,
    ),
    advance: (ms) => {
      now += ms;
      busy += ms;
    },
    idle: (ms) => (now += ms),
  };
}

/** The share of a window of one of four clients or more; of two clients, each may take half. */
const share = CLIENT_SHARE * FAIRNESS_WINDOW_MS;
const half = FAIRNESS_WINDOW_MS / 2;

test('a client within its share does not wait', () => {
  const { budget } = budgetAt();
  budget.charge('a', share / 2);
  expect(budget.delayFor('a')).toBe(0);
});

test('a client past its share, while other clients are served too, waits for the next window; the others do not', () => {
  const { budget, advance } = budgetAt();
  budget.delayFor('a');
  advance(FAIRNESS_WINDOW_MS / 10);
  budget.charge('a', share);
  for (const other of ['b', 'c', 'd']) budget.charge(other, share / 10);
  expect(budget.delayFor('a')).toBe(Math.ceil(0.9 * FAIRNESS_WINDOW_MS));
  expect(budget.delayFor('b')).toBe(0);
});

test('while the thread has had time to spare in the window, nobody is held back, even a client past its share and above the average', () => {
  const { budget, advance, idle } = budgetAt();
  budget.delayFor('a');
  // A conforming client's many cheap requests beside an attacker's few; the thread waited for work a third of the time.
  budget.charge('a', 1.2 * half);
  budget.charge('b', 0.1 * half);
  advance(0.6 * FAIRNESS_WINDOW_MS);
  idle(0.3 * FAIRNESS_WINDOW_MS);
  expect(0.6 / 0.9).toBeLessThan(CONTENDED_BUSY);
  expect(budget.delayFor('a')).toBe(0);
});

test(`once the thread was busy ${CONTENDED_BUSY * 100}% of the window so far, the same client is held back`, () => {
  const { budget, advance, idle } = budgetAt();
  budget.delayFor('a');
  budget.charge('a', 1.2 * half);
  budget.charge('b', 0.1 * half);
  advance(CONTENDED_BUSY * 0.8 * FAIRNESS_WINDOW_MS);
  idle((1 - CONTENDED_BUSY) * 0.8 * FAIRNESS_WINDOW_MS);
  expect(budget.delayFor('a')).toBe(Math.ceil(0.2 * FAIRNESS_WINDOW_MS));
  expect(budget.delayFor('b')).toBe(0);
});

test('of two clients, each may take half a window: one within it is not held back even while it takes more than the other; past it, it is', () => {
  const { budget } = budgetAt();
  budget.charge('a', 0.9 * half);
  budget.charge('b', 0.6 * half);
  expect(budget.delayFor('a')).toBe(0);
  budget.charge('a', 0.2 * half);
  expect(budget.delayFor('a')).toBeGreaterThan(0);
  expect(budget.delayFor('b')).toBe(0);
});

test('two clients past their share: only the one taking more than the average is held back', () => {
  const { budget } = budgetAt();
  budget.charge('a', 1.4 * half);
  budget.charge('b', 1.1 * half);
  expect(budget.delayFor('a')).toBeGreaterThan(0);
  expect(budget.delayFor('b')).toBe(0);
});

test('a client is charged the time its work took on the clock (chargeSince)', () => {
  const { budget, advance } = budgetAt();
  budget.charge('b', 1);
  const started = budget.now();
  advance(half);
  budget.chargeSince('a', started);
  expect(budget.delayFor('a')).toBeGreaterThan(0);
});

test("a client is charged per request the thread's work no section timed in the last window, so many cheap requests weigh what they cost", () => {
  let now = 1_000;
  let busy = 0;
  const budget = new ForwardingBudget(
    () => now,
    FAIRNESS_WINDOW_MS,
    CLIENT_SHARE,
    () => busy,
  );
  budget.request('a');
  now += FAIRNESS_WINDOW_MS;
  budget.request('a');
  // A window in which the thread was busy 60% of the time, a sixth of that timed, for 10 requests: each 5% of a window
  // untimed.
  for (let i = 0; i < 9; i += 1) budget.request('a');
  budget.charge('a', 0.1 * FAIRNESS_WINDOW_MS);
  busy += 0.6 * FAIRNESS_WINDOW_MS;
  now += FAIRNESS_WINDOW_MS;
  budget.request('b');
  expect(budget.untimedPerRequestMs).toBeCloseTo(0.05 * FAIRNESS_WINDOW_MS);
  for (let i = 0; i < 10; i += 1) budget.request('a');
  expect(budget.delayFor('a')).toBeGreaterThan(0);
  expect(budget.delayFor('b')).toBe(0);
});

test('one window in which the whole process stalled does not make the next requests costly: the median of the last windows is charged', () => {
  let now = 1_000;
  let busy = 0;
  const budget = new ForwardingBudget(
    () => now,
    FAIRNESS_WINDOW_MS,
    CLIENT_SHARE,
    () => busy,
  );
  const window = (untimedMs: number) => {
    for (let i = 0; i < 10; i += 1) budget.request('a');
    busy += untimedMs;
    now += FAIRNESS_WINDOW_MS;
  };
  budget.request('a');
  now += FAIRNESS_WINDOW_MS;
  window(0.1 * FAIRNESS_WINDOW_MS);
  window(0.1 * FAIRNESS_WINDOW_MS);
  window(0.1 * FAIRNESS_WINDOW_MS);
  window(0.9 * FAIRNESS_WINDOW_MS);
  budget.request('a');
  expect(budget.untimedPerRequestMs).toBeCloseTo(0.01 * FAIRNESS_WINDOW_MS);
});

test('a client alone is never held back, whatever it spends', () => {
  const { budget } = budgetAt();
  budget.charge('a', 10 * share);
  expect(budget.delayFor('a')).toBe(0);
});

test('the next window starts every client afresh', () => {
  const { budget, advance } = budgetAt();
  budget.charge('a', 2 * share);
  budget.charge('b', share);
  advance(FAIRNESS_WINDOW_MS);
  expect(budget.delayFor('a')).toBe(0);
});

test(`past ${CLIENTS_FOLLOWED} clients in a window, new ones are not followed (the table stays bounded) and never held back`, () => {
  const { budget } = budgetAt();
  for (let i = 0; i < CLIENTS_FOLLOWED + 500; i += 1) budget.charge(`client-${i}`, 1);
  expect(budget.clients).toBe(CLIENTS_FOLLOWED);
  budget.charge('late', 10 * share);
  expect(budget.delayFor('late')).toBe(0);
});

const session = { authorization: 'Bearer r:fairness-session-token' };
/** What the upstream answers every request: the complete example of the create's success document. */
const created = create ? JSON.stringify(successExample(create)) : '';
const withCreate = itWith(create, 'create');
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

/**
 * The tests' clients all share 127.0.0.1; the X-Forwarded-For each sends tells them apart, as a trusted balancer's
 * would.
 */
const CLIENTS_NAMED_ON_LOOPBACK = { forwardedHeaders: true, trustedProxies: ['127.0.0.1'] };

/** A create request large enough to be judged on the judging thread, never on the forwarding thread. */
const largeCreate = (create: Operation) => largeDocument(create, JUDGE_THREAD_MIN_BYTES);

withCreate(
  'report mode: a client whose requests are all judged on the judging thread is still held back for what reading, relaying and answering them takes on the forwarding thread, while another client is answered throughout',
  async (create) => {
    const body = largeCreate(create);
    expect(body.length).toBeGreaterThan(JUDGE_THREAD_MIN_BYTES);
    const proxy = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      violations: null,
      ...CLIENTS_NAMED_ON_LOOPBACK,
    });
    const pool = new Pool(proxy.proxyUrl, { connections: 8 });
    try {
      let sending = true;
      const statuses: number[] = [];
      const other = (async () => {
        while (sending)
          statuses.push(
            (
              await send(`${proxy.proxyUrl}${requestPath(create)}/5f1d7c2e9b1e8a0012345678`, {
                headers: { ...session, 'x-forwarded-for': '198.51.100.9' },
              })
            ).status,
          );
      })();
      const headers = { ...session, 'content-type': MEDIA_TYPE, 'x-forwarded-for': '203.0.113.7' };
      await Promise.all(
        Array.from({ length: 600 }, () =>
          pool.request({ method: 'POST', path: requestPath(create), headers, body }).then((r) => r.body.dump()),
        ),
      );
      sending = false;
      await other;
      await proxy.proxy.settled();
      const judged = Object.fromEntries(
        (await proxy.proxy.metrics.judgedExchanges.get()).values.map((v) => [String(v.labels.thread), v.value]),
      );
      expect(judged.worker ?? 0).toBeGreaterThan(0);
      expect((await proxy.proxy.metrics.deferredRequests.get()).values[0].value).toBeGreaterThan(0);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status !== 502 && status !== 503)).toBe(true);
    } finally {
      await pool.close();
      await proxy.close();
    }
  },
);

withCreate(
  'a client held back is answered once it is within its share again: its request is read then, counted once, nothing refused',
  async (create) => {
    const proxy = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      violations: null,
      mode: 'enforce',
      ...CLIENTS_NAMED_ON_LOOPBACK,
    });
    try {
      // As the request arrives (not before: a window is only 10 ms), another client was served in
      // this window and this one took four windows' worth of it.
      const { budget } = proxy.proxy;
      const counted = budget.request.bind(budget);
      let charged = false;
      budget.request = (client) => {
        counted(client);
        if (client !== '203.0.113.7' || charged) return;
        charged = true;
        budget.charge('198.51.100.9', 1);
        budget.charge(client, 4 * FAIRNESS_WINDOW_MS);
      };
      const body = JSON.stringify(documentExample(create));
      const answer = await send(`${proxy.proxyUrl}${requestPath(create)}`, {
        method: 'POST',
        headers: { ...session, 'content-type': MEDIA_TYPE, 'x-forwarded-for': '203.0.113.7' },
        body,
      });
      expect(answer.status).toBe(201);
      expect((await proxy.proxy.metrics.deferredRequests.get()).values[0].value).toBe(1);
    } finally {
      await proxy.close();
    }
  },
);
