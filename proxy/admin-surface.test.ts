// The admin surface in front of production: an optional bearer token on everything but the
// probes, a cap on event clients, and event clients that do not read dropped past a bound.
import { EventEmitter } from 'node:events';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { loadContract } from '../contract/index.ts';
import {
  DashboardFeed,
  EVENT_CLIENT_BUFFER_MAX,
  EVENT_CLIENTS_MAX,
  EVENT_CLIENTS_PER_ADDRESS,
  EVENT_HEARTBEAT_MS,
  EVENT_STREAM_DISPLACED_RETRY_MS,
  EVENT_STREAM_LIFETIME_MS,
} from './dashboard.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, eventually, send, startUpstream, type TestServer } from './test-support.ts';

const TOKEN = 'admin-token-for-tests';
let upstream: TestServer;
let proxy: StartedProxy;

beforeAll(async () => {
  upstream = await startUpstream(answering(200, '{"data":[]}'));
  proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, adminToken: TOKEN });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe('without an admin token: only requests addressed to an IP address or localhost (DNS rebinding)', () => {
  let open: StartedProxy;
  beforeAll(async () => {
    open = await startValidatingProxy({ upstream: `${upstream.url}/v3` });
  });
  afterAll(async () => {
    await open?.close();
  });
  const cases = [
    { path: '/summary.json', host: 'rebound.example', status: 403 },
    { path: '/events', host: 'rebound.example:8741', status: 403 },
    { path: '/', host: 'rebound.example', status: 403 },
    { path: '/summary.json', host: '127.0.0.1:8741', status: 200 },
    { path: '/summary.json', host: 'localhost', status: 200 },
    { path: '/metrics', host: '[::1]:8741', status: 200 },
    { path: '/healthz', host: 'rebound.example', status: 200 },
  ];
  for (const c of cases) {
    test(`GET ${c.path} with Host: ${c.host} → ${c.status}`, async () => {
      const response = await send(`${open.adminUrl}${c.path}`, { headers: { host: c.host } });
      expect(response.status).toBe(c.status);
    });
  }
});

describe('with an admin token', () => {
  const cases = [
    { path: '/metrics', headers: {}, status: 401 },
    { path: '/summary.json', headers: { authorization: 'Bearer wrong-token-of-some-length' }, status: 401 },
    { path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` }, status: 200 },
    { path: `/summary.json?token=${TOKEN}`, headers: {}, status: 200 },
    { path: '/', headers: {}, status: 401 },
    { path: '/healthz', headers: {}, status: 200 },
    { path: '/readyz', headers: {}, status: 200 },
  ];
  for (const c of cases) {
    test(`GET ${c.path.replace(TOKEN, '<token>')} ${Object.keys(c.headers).length ? 'with a bearer token' : 'without one'} → ${c.status}`, async () => {
      expect((await send(`${proxy.adminUrl}${c.path}`, { headers: c.headers })).status).toBe(c.status);
    });
  }
});

test(`one client opening ${EVENT_CLIENTS_MAX} event streams on the admin port cannot lock the operator's dashboard out`, async () => {
  const open = (localAddress: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      get(
        `${proxy.adminUrl}/events`,
        { localAddress, agent: false, headers: { authorization: `Bearer ${TOKEN}` } },
        resolve,
      ).on('error', reject);
    });
  const flood = await Promise.all(Array.from({ length: EVENT_CLIENTS_MAX }, () => open('127.0.0.1')));
  try {
    expect(flood.filter((stream) => stream.statusCode === 200)).toHaveLength(EVENT_CLIENTS_MAX);
    // The operator from another address, and from the same one (a tunnel, a NAT): each gets a page.
    for (const address of ['127.0.0.2', '127.0.0.1']) {
      const operator = await open(address);
      expect(operator.statusCode).toBe(200);
      expect(await firstEvent(operator)).toMatch(/^retry: \d+\nevent: snapshot\ndata: \{/);
      operator.destroy();
    }
  } finally {
    for (const stream of flood) stream.destroy();
  }
});

/** The first event a stream sends. */
function firstEvent(stream: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n\n')) resolve(text);
    });
    stream.on('error', reject);
  });
}

test('the admin server listens on 127.0.0.1 unless told otherwise', () => {
  expect(new URL(proxy.adminUrl).hostname).toBe('127.0.0.1');
});

/** A stand-in for an event client's response whose socket holds `unread` bytes. */
class FakeClient extends EventEmitter {
  writableLength: number;
  destroyed = false;
  writes = 0;

  readonly req: { socket: { remoteAddress: string } };

  constructor(unread: number, address = `10.0.0.${Math.floor(Math.random() * 250)}`) {
    super();
    this.writableLength = unread;
    this.req = { socket: { remoteAddress: address } };
  }

  writeHead(): this {
    return this;
  }

  write(): boolean {
    this.writes += 1;
    return true;
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }

  ended = false;
  endedWith: string | undefined;

  end(text?: string): void {
    this.ended = true;
    this.endedWith = text;
    this.emit('close');
  }
}

describe('event clients', () => {
  const contract = loadContract();

  test(`at most ${EVENT_CLIENTS_MAX} at once`, () => {
    const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
    const accepted = Array.from({ length: EVENT_CLIENTS_MAX + 1 }, (_, i) =>
      feed.subscribe(new FakeClient(0, `10.0.1.${i}`) as unknown as ServerResponse),
    );
    expect(accepted.filter(Boolean).length).toBe(EVENT_CLIENTS_MAX);
    expect(accepted.at(-1)).toBe(false);
    feed.close();
  });

  const perClient = `at most ${EVENT_CLIENTS_PER_ADDRESS} from one address`;
  test(`${perClient}: ${EVENT_CLIENTS_MAX} readers from one client leave the operator room, from it or another`, () => {
    const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
    const fromOne = Array.from({ length: EVENT_CLIENTS_MAX }, () => new FakeClient(0, '10.0.2.1'));
    expect(fromOne.map((reader) => feed.subscribe(reader as unknown as ServerResponse)).every(Boolean)).toBe(true);
    expect(feed.clientCount).toBe(EVENT_CLIENTS_PER_ADDRESS);
    const displaced = EVENT_CLIENTS_MAX - EVENT_CLIENTS_PER_ADDRESS;
    expect(fromOne.map((reader) => reader.ended)).toEqual(fromOne.map((_, i) => i < displaced));
    expect(feed.subscribe(new FakeClient(0, '10.0.2.2') as unknown as ServerResponse)).toBe(true);
    const operator = new FakeClient(0, '10.0.2.1');
    expect(feed.subscribe(operator as unknown as ServerResponse)).toBe(true);
    expect(operator.ended).toBe(false);
    // The stream it displaced is told to wait before it reconnects, so two pages do not take turns every second.
    expect(fromOne[displaced].endedWith).toBe(`retry: ${EVENT_STREAM_DISPLACED_RETRY_MS}\n\n`);
    feed.close();
  });

  const heartbeat = `${EVENT_HEARTBEAT_MS / 1000} s`;
  test(`a stream that has not taken a heartbeat (every ${heartbeat}) by the next ends; one that reads is kept`, () => {
    vi.useFakeTimers();
    try {
      const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
      const paused = new FakeClient(0, '10.0.5.1');
      const reading = new FakeClient(0, '10.0.5.2');
      feed.subscribe(paused as unknown as ServerResponse);
      feed.subscribe(reading as unknown as ServerResponse);
      paused.writableLength = 3;
      vi.advanceTimersByTime(EVENT_HEARTBEAT_MS);
      expect(paused.destroyed).toBe(false);
      vi.advanceTimersByTime(EVENT_HEARTBEAT_MS);
      expect(paused.destroyed).toBe(true);
      expect(reading.destroyed).toBe(false);
      expect(feed.clientCount).toBe(1);
      feed.close();
    } finally {
      vi.useRealTimers();
    }
  });

  test(`${EVENT_CLIENTS_MAX / EVENT_CLIENTS_PER_ADDRESS} clients holding every place cannot keep the operator out: a newcomer takes the oldest stream of a client holding the most`, () => {
    const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
    const readers = Array.from(
      { length: EVENT_CLIENTS_MAX },
      (_, i) => new FakeClient(0, `10.0.3.${i % (EVENT_CLIENTS_MAX / EVENT_CLIENTS_PER_ADDRESS)}`),
    );
    expect(readers.map((reader) => feed.subscribe(reader as unknown as ServerResponse)).every(Boolean)).toBe(true);
    expect(feed.subscribe(new FakeClient(0, '10.0.3.200') as unknown as ServerResponse)).toBe(true);
    expect(feed.clientCount).toBe(EVENT_CLIENTS_MAX);
    expect(readers.filter((reader) => reader.destroyed)).toEqual([readers[0]]);
    feed.close();
  });

  test('one client is one /64 of IPv6: new addresses of it do not give it more places', () => {
    const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
    for (let i = 1; i <= EVENT_CLIENTS_MAX; i += 1) {
      feed.subscribe(new FakeClient(0, `2001:db8:0:7::${i.toString(16)}`) as unknown as ServerResponse);
    }
    expect(feed.clientCount).toBe(EVENT_CLIENTS_PER_ADDRESS);
    feed.close();
  });

  test(`a stream ends after ${EVENT_STREAM_LIFETIME_MS / 60_000} minutes (a page reconnects at once), so a reader that holds its place and reads nothing gives it back`, () => {
    vi.useFakeTimers();
    try {
      const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
      const idle = Array.from({ length: EVENT_CLIENTS_PER_ADDRESS }, () => new FakeClient(0, '10.0.4.1'));
      for (const reader of idle) feed.subscribe(reader as unknown as ServerResponse);
      vi.advanceTimersByTime(EVENT_STREAM_LIFETIME_MS);
      expect(feed.clientCount).toBe(0);
      expect(feed.subscribe(new FakeClient(0, '10.0.4.1') as unknown as ServerResponse)).toBe(true);
      feed.close();
    } finally {
      vi.useRealTimers();
    }
  });

  test('a client that leaves more than the bound unread is dropped at the next push; one that reads is kept', async () => {
    const feed = new DashboardFeed(contract, { upstream: 'u', mode: 'report' });
    const paused = new FakeClient(0);
    const reading = new FakeClient(0);
    feed.subscribe(paused as unknown as ServerResponse);
    feed.subscribe(reading as unknown as ServerResponse);
    paused.writableLength = EVENT_CLIENT_BUFFER_MAX + 1;
    feed.recordExchange(contract.operations[0].operationId);
    await eventually('the paused client dropped', () => (paused.destroyed ? true : undefined));
    expect(feed.clientCount).toBe(1);
    expect(reading.destroyed).toBe(false);
    expect(reading.writes).toBe(2);
    feed.close();
  });
});
