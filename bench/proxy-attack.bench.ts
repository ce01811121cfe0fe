// `npm run bench proxy-attack` (also run by `npm run bench proxy`): conforming traffic through the
// validating proxy, in report and in enforce mode, alone and while clients attack the proxy with
// the red team's request from a process of their own, as an attacker's machine would: at the red
// team's rate, at a hundred times it, and as fast as the proxy answers (a flood). It prints the
// median over rounds of attacked p99 / unloaded p99, and the same ratio for the same traffic sent
// straight to the upstream beside the same attack (what the machine alone adds). The upstream and
// the proxies are the contenders of proxy.bench.ts, each in its own process. BENCH_SECONDS
// shortens the runs (default 10).
import { gzipSync } from 'node:zlib';
import { MEDIA_TYPE } from '../contract/index.ts';
import { cpuMicros, spawnContender, type Contender } from './contenders.ts';
import { startLoadProcess, type LoadProcess } from './load-process.ts';
import { autocannon, listPath, median, ROUNDS, SLICE_SECONDS, type ContenderKind } from './proxy.bench.ts';

/** The file whose processes serve the upstream and the proxies (its contenders). */
const CONTENDERS = new URL('./proxy.bench.ts', import.meta.url).href;

/** The red team's request: about a kilobyte of gzip inflating to 500,000 wrong-typed `options` items. */
const ATTACK_BODY = gzipSync(
  JSON.stringify({
    data: { type: 'AttributeConfig', attributes: { label: 'Attack', options: new Array<number>(500_000).fill(1) } },
  }),
);

interface Attack {
  name: string;
  /** The attacking clients, as a balancer in front names them (X-Forwarded-For). */
  clients: string[];
  connectionsPerClient: number;
  /** Requests a second from each client; as fast as answered when absent. */
  ratePerClient?: number;
  /** The goal on attacked p99 / unloaded p99, for the attack the goal is set on. */
  goal?: number;
}

const FOUR_CLIENTS = ['203.0.113.7', '203.0.113.8', '203.0.113.9', '203.0.113.10'];
/**
 * The red team sent 27 requests in 6 s from four clients (4.5 a second), which pushed a conforming
 * GET in enforce mode to a median of 1.0-1.6 s: that is the attack the goal is set on, rounded up
 * to two a second from each client. The second is a hundred times it, the third a flood from one
 * client on four connections as fast as the proxy answers (3,000-4,500 a second here): volumes
 * that keep the proxy's thread a third to fully busy whatever each request costs, printed beside
 * what the same volume does to the GETs sent straight to the upstream (on 2 cores the load
 * generators, the upstream and the proxy share the cores).
 */
const ATTACKS: Attack[] = [
  {
    name: "the red team's rate (4 clients, 2 requests a second each)",
    clients: FOUR_CLIENTS,
    connectionsPerClient: 1,
    ratePerClient: 2,
    goal: 3,
  },
  {
    name: 'a hundred times it (4 clients, 125 requests a second each)',
    clients: FOUR_CLIENTS,
    connectionsPerClient: 1,
    ratePerClient: 125,
  },
  {
    name: 'a flood (1 client on 4 connections, as fast as answered)',
    clients: ['203.0.113.7'],
    connectionsPerClient: 4,
  },
];
/** Connections of conforming traffic measured beside the attack (and alone, for its baseline). */
const CONFORMING_CONNECTIONS = 4;
/**
 * Conforming GETs a second, sent at that rate: a service's own traffic, well under what the proxy
 * serves on 2 cores (several thousand a second). A client asking as fast as it is answered would
 * keep the proxy at a full core even "unloaded", and its p99 would measure its own queue.
 */
const CONFORMING_RATE = 1000;

interface UnderAttack {
  unloaded: number;
  attacked: number;
  /** Median over rounds of attacked p99 / unloaded p99. */
  ratio: number;
  attacks: number;
  /** Conforming GETs not answered 200, alone or beside the attack. */
  failures: number;
}

/**
 * The p99 of the latencies of one load, in ms to the microsecond: autocannon's own histogram keeps
 * whole milliseconds, which is the size of the unloaded p99 itself. Latencies are taken as each
 * answer arrives and corrected for coordinated omission as autocannon corrects its own: a request
 * answered late held back the ones its connection should have sent meanwhile, which are counted as
 * if sent on time (each `expectedMs` later), so a stall weighs as many requests as it delayed.
 */
function p99WithExpectedInterval(latencies: number[], expectedMs: number): number {
  const all: number[] = [];
  for (const latency of latencies) {
    all.push(latency);
    for (let missed = latency - expectedMs; missed >= expectedMs; missed -= expectedMs) all.push(missed);
  }
  all.sort((a, b) => a - b);
  return all.length === 0 ? Number.NaN : all[Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)];
}

interface ConformingLoad {
  p99: number;
  /** Answers other than 200: a conforming GET held back is delayed, never refused. */
  failures: number;
}

/**
 * Conforming 10-item GETs to `url` at CONFORMING_RATE for `seconds`, the client named as a balancer in front would
 * (X-Forwarded-For).
 */
async function conformingLoad(url: string, seconds: number): Promise<ConformingLoad> {
  const latencies: number[] = [];
  let failures = 0;
  const instance = autocannon({
    url: `${url}${listPath(10)}`,
    connections: CONFORMING_CONNECTIONS,
    overallRate: CONFORMING_RATE,
    duration: seconds,
    headers: { authorization: 'Bearer r:bench-session-token', 'x-forwarded-for': '198.51.100.9' },
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status === 200) latencies.push(ms);
    else failures += 1;
  });
  const result = await instance;
  return {
    p99: p99WithExpectedInterval(latencies, (CONFORMING_CONNECTIONS * 1000) / CONFORMING_RATE),
    failures: failures + result.errors + result.timeouts,
  };
}

/**
 * The p99 of conforming GETs sent to `url`, alone and then while the attack's clients send
 * ATTACK_BODY to the proxy, interleaved in rounds after a warm-up of each.
 */
async function conformingUnderAttack(
  url: string,
  proxy: Contender,
  attacker: LoadProcess,
  attack: Attack,
  seconds: number,
  rounds: number,
): Promise<UnderAttack> {
  const conforming = () => conformingLoad(url, seconds / rounds);
  const fire = () =>
    attacker.fire({
      url: `${proxy.url}/v3/attribute-configs`,
      method: 'POST',
      body: ATTACK_BODY,
      clients: attack.clients,
      connectionsPerClient: attack.connectionsPerClient,
      ratePerClient: attack.ratePerClient,
      seconds: seconds / rounds,
      headers: {
        authorization: 'Bearer r:bench-session-token',
        'content-type': MEDIA_TYPE,
        'content-encoding': 'gzip',
      },
    });
  await Promise.all([conforming(), fire()]);
  await cpuMicros(proxy, { settled: true });
  const ratios: number[] = [];
  const unloaded: number[] = [];
  const attacked: number[] = [];
  let attacks = 0;
  let failures = 0;
  for (let round = 0; round < rounds; round += 1) {
    const alone = await conforming();
    await cpuMicros(proxy, { settled: true });
    const [beside, attacking] = await Promise.all([conforming(), fire()]);
    await cpuMicros(proxy, { settled: true });
    attacks += attacking;
    failures += alone.failures + beside.failures;
    unloaded.push(alone.p99);
    attacked.push(beside.p99);
    ratios.push(beside.p99 / alone.p99);
  }
  return { unloaded: median(unloaded), attacked: median(attacked), ratio: median(ratios), attacks, failures };
}

async function reportUnderAttack(seconds: number, rounds: number, upstream: Contender): Promise<void> {
  process.stdout.write(
    `\nConforming 10-item GETs (${CONFORMING_RATE} a second on ${CONFORMING_CONNECTIONS} connections) alone and while clients send the proxy a ${ATTACK_BODY.length}-byte gzip body inflating to 500,000 wrong items, ${rounds} rounds each after a warm-up (p99 to the microsecond, corrected for coordinated omission).\n` +
      "  The same GETs sent straight to the upstream beside the same attack show what the machine alone adds: on 2 cores the attack's load generator, the proxy and the upstream take turns on the same cores.\n",
  );
  const modes: { kind: ContenderKind; name: string }[] = [
    { kind: 'validating', name: 'report mode' },
    { kind: 'validating-enforce', name: 'enforce mode' },
  ];
  const attacker = await startLoadProcess();
  try {
    for (const mode of modes) {
      process.stdout.write(`  ${mode.name}:\n`);
      const proxy = await spawnContender(CONTENDERS, mode.kind, upstream.url);
      try {
        for (const attack of ATTACKS) {
          const through = await conformingUnderAttack(proxy.url, proxy, attacker, attack, seconds, rounds);
          const direct = await conformingUnderAttack(upstream.url, proxy, attacker, attack, seconds, rounds);
          const verdict =
            attack.goal === undefined
              ? 'beyond the attack the goal is set on: compare the machine alone, below'
              : `goal ≤ ${attack.goal}×: ${through.ratio <= attack.goal ? 'met' : 'NOT met'}`;
          process.stdout.write(
            `    ${attack.name}: p99 ${through.attacked.toFixed(2)} ms under attack against ${through.unloaded.toFixed(2)} ms unloaded: ${through.ratio.toFixed(2)}× (${verdict}); ${through.attacks} attacking requests answered${through.failures > 0 ? `; ${through.failures} conforming GETs not answered 200` : ''}\n` +
              `      straight to the upstream beside the same attack: p99 ${direct.attacked.toFixed(2)} ms against ${direct.unloaded.toFixed(2)} ms: ${direct.ratio.toFixed(2)}×\n`,
          );
        }
      } finally {
        proxy.child.kill();
      }
    }
  } finally {
    attacker.stop();
  }
}

export default async function proxyAttackBench(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rounds = Math.max(1, Math.min(ROUNDS, Math.round(seconds / SLICE_SECONDS)));
  const upstream = await spawnContender(CONTENDERS, 'upstream');
  try {
    await reportUnderAttack(seconds, rounds, upstream);
  } finally {
    upstream.child.kill();
  }
}
