// `npm run bench proxy-attack` (also run by `npm run bench proxy`): conforming traffic through the
// validating proxy, in report and in enforce mode, alone and while a client attacks the proxy with
// the red team's request from a process of its own, as an attacker's machine would. It prints the
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
const ATTACK_BODY = gzipSync(JSON.stringify({ data: { type: 'AttributeConfig', attributes: { label: 'Attack', options: new Array<number>(500_000).fill(1) } } }));
const ATTACK_CONNECTIONS = 4;
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
}

/**
 * The p99 of conforming 10-item GETs sent to `url` at CONFORMING_RATE, alone and then while
 * ATTACK_CONNECTIONS clients send ATTACK_BODY to the proxy as fast as it is answered, interleaved
 * in rounds after a warm-up of each.
 */
async function conformingUnderAttack(url: string, proxy: Contender, attacker: LoadProcess, seconds: number, rounds: number): Promise<UnderAttack> {
  // Two clients, as a balancer in front names them (X-Forwarded-For): the proxy shares its thread between them.
  const conforming = () => autocannon({ url: `${url}${listPath(10)}`, connections: CONFORMING_CONNECTIONS, overallRate: CONFORMING_RATE, duration: seconds / rounds, headers: { authorization: 'Bearer r:bench-session-token', 'x-forwarded-for': '198.51.100.9' } });
  const attack = () => attacker.fire({ url: `${proxy.url}/v3/attribute-configs`, method: 'POST', body: ATTACK_BODY, connections: ATTACK_CONNECTIONS, seconds: seconds / rounds, headers: { authorization: 'Bearer r:bench-session-token', 'content-type': MEDIA_TYPE, 'content-encoding': 'gzip', 'x-forwarded-for': '203.0.113.7' } });
  await Promise.all([conforming(), attack()]);
  await cpuMicros(proxy, { settled: true });
  const ratios: number[] = [];
  const unloaded: number[] = [];
  const attacked: number[] = [];
  let attacks = 0;
  for (let round = 0; round < rounds; round += 1) {
    const alone = await conforming();
    await cpuMicros(proxy, { settled: true });
    const [beside, attacking] = await Promise.all([conforming(), attack()]);
    await cpuMicros(proxy, { settled: true });
    attacks += attacking;
    unloaded.push(alone.latency.p99);
    attacked.push(beside.latency.p99);
    ratios.push(beside.latency.p99 / Math.max(alone.latency.p99, 1));
  }
  return { unloaded: median(unloaded), attacked: median(attacked), ratio: median(ratios), attacks };
}

async function reportUnderAttack(seconds: number, rounds: number, upstream: Contender): Promise<void> {
  process.stdout.write(
    `\nConforming 10-item GETs (${CONFORMING_RATE} a second on ${CONFORMING_CONNECTIONS} connections) alone and while ${ATTACK_CONNECTIONS} clients send the proxy a ${ATTACK_BODY.length}-byte gzip body inflating to 500,000 wrong items as fast as it is answered, ${rounds} rounds each after a warm-up (goal: p99 within a small factor, 3×, of the unloaded p99; p99 in whole milliseconds, the divisor at least 1 ms).\n` +
      '  The same GETs sent straight to the upstream beside the same attack show what the machine alone adds: on 2 cores the attack\'s load generator, the proxy and the upstream take turns on the same cores.\n',
  );
  const modes: { kind: ContenderKind; name: string }[] = [
    { kind: 'validating', name: 'report mode' },
    { kind: 'validating-enforce', name: 'enforce mode' },
  ];
  const attacker = await startLoadProcess();
  try {
    for (const mode of modes) {
      const proxy = await spawnContender(CONTENDERS, mode.kind, upstream.url);
      try {
        const through = await conformingUnderAttack(proxy.url, proxy, attacker, seconds, rounds);
        const direct = await conformingUnderAttack(upstream.url, proxy, attacker, seconds, rounds);
        process.stdout.write(
          `  ${mode.name}: p99 ${through.attacked.toFixed(2)} ms under attack against ${through.unloaded.toFixed(2)} ms unloaded: ${through.ratio.toFixed(2)}× (goal ≤ 3×: ${through.ratio <= 3 ? 'met' : 'NOT met'}); ${through.attacks} attacking requests answered\n` +
            `    straight to the upstream beside the same attack: p99 ${direct.attacked.toFixed(2)} ms against ${direct.unloaded.toFixed(2)} ms: ${direct.ratio.toFixed(2)}×\n`,
        );
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
