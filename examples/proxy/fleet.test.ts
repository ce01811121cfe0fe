// The fleet of docs/operating-the-proxy.md, run on the engines it names: three replicas of the
// proxy (the command as an operator runs it, each with its own violations log, capture
// directory and admin port) behind HAProxy with examples/proxy/haproxy.cfg, scraped by
// Prometheus with examples/proxy/prometheus.yml and its rules file, in front of a reference
// server with faults on. Traffic that conforms and traffic that breaks the contract goes through
// HAProxy; the fleet's findings then add up the same everywhere: Prometheus's sums over the
// replicas, the sum of their /summary.json, `report` over the three logs (a glob), and, for the
// MUST findings, `judge` over the three capture directories; the alert rules, as Prometheus loaded
// them, name each rule the service broke.
//
// A second fleet, without Prometheus, in front of an upstream that takes a while to answer: one
// replica is killed (SIGKILL, no draining) while GETs are in flight on it, under a load bounded
// in requests, concurrency and time; HAProxy sends each of those GETs again to another replica,
// so no client sees an error. The replica killed has an upstream of its own, which holds the GETs
// it gets once the load is under way: the first one it holds is the moment of the kill, so GETs
// are in flight on that replica when it dies, however fast or slow the machine runs.
//
// The files are used as written: HAProxy reads the replicas' addresses from the environment
// variables the file names, Prometheus finds the replicas in the file-discovery file and the
// token in the file its configuration names. Only the scrape and evaluation intervals are
// shortened to a second, so that the test waits seconds and not a quarter of a minute.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { LEVELS, loadContract, type Level } from '../../contract/index.ts';
import { hermeticEnvironment, runCliInProcess, spawnCli, type CliProcess } from '../../cli/test-support.ts';
import { list, listTarget, noneLeft, unallowedFilter } from '../../contract/test-support.ts';
import { eventually, send, startUpstream, type TestServer } from '../../proxy/test-support.ts';
import { PARTIES, summarizeViolations, type Party } from '../../reports/violations-summary.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../../server/index.ts';
import {
  fleetChoice,
  fleetTestRunsHere,
  freePort,
  HAPROXY_CONFIG,
  haproxyEnvironment,
} from '../../test-support/fleet.ts';
import { markdownTableRows } from '../../test-support/markdown.ts';

const EXAMPLES = new URL('./', import.meta.url);
const REPLICAS = 3;
/** Lists whose page count is rounded down, and error bodies whose status is a number. */
const FAULTS = ['meta-pages-rounded-down', 'error-status-number'];
const ADMIN_TOKEN = 'fleet-admin-token-for-prometheus';
const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
/** The traffic, each request to the list sent ROUNDS times. */
const TRAFFIC: { path: string; headers: Record<string, string> }[] =
  list === undefined
    ? []
    : [
        // Conforming: a page of one item, whose page count cannot be rounded wrong.
        { path: listTarget(list, { limit: 1, offset: 0 }), headers: session },
        // Pages of two: the service rounds down a page count that is no whole number.
        { path: listTarget(list, { limit: 2, offset: 0 }), headers: session },
        // The client sends a filter value the contract does not list, the service answers with a numeric status.
        { path: unallowedFilter(list)!.target, headers: session },
        // The client sends no credentials, the service answers with a numeric status.
        { path: listTarget(list), headers: {} },
      ];
/** The fleet tests send GETs to a list: they run where the fleet's engines are and the contract holds a list. */
const fleetTestRuns = fleetTestRunsHere && list !== undefined;
/** A fleet test's title, saying why it is skipped when the contract holds no list. */
const fleetTitle = (title: string) => (list === undefined ? `${title} (${noneLeft('list')})` : title);
const ROUNDS = 15;
/**
 * Bounds on every wait: an engine that does not come up fails the test instead of hanging it. Three replicas starting
 * at once beside other test files take many times the second or two one takes alone.
 */
const STARTUP_MS = 60_000;
const SCRAPE_WAIT_MS = 20_000;

interface Replica {
  cli: CliProcess;
  baseUrl: string;
  adminUrl: string;
  log: string;
  captures: string;
}

interface Engine {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

let dir: string;
let reference: StartedReferenceServer | undefined;
const replicas: Replica[] = [];
let haproxy: Engine | undefined;
let prometheus: Engine | undefined;

function startEngine(executable: string, args: string[], env: Record<string, string>): Engine {
  const child = spawn(executable, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function stopEngine(engine: Engine | undefined): Promise<void> {
  if (!engine || engine.child.exitCode !== null || engine.child.signalCode !== null) return;
  engine.child.kill('SIGTERM');
  await engine.exit;
}

async function startReplica(index: number, upstream: string, tokenFile: string, root = dir): Promise<Replica> {
  const log = join(root, 'logs', `replica-${index}.ndjson`);
  const captures = join(root, 'captures', `replica-${index}`);
  const cli = spawnCli(
    [
      'proxy',
      '--upstream',
      upstream,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--violations',
      log,
      '--capture',
      captures,
      '--admin-token-file',
      tokenFile,
      '--log-level',
      'warn',
      '--forwarded-headers',
      '--trusted-proxies',
      '127.0.0.1',
    ],
    hermeticEnvironment(),
  );
  const banner = await eventually(
    `replica ${index}'s first line`,
    () =>
      /serving (\S+) .*admin (\S+),/.exec(cli.stdout()) ??
      (cli.child.exitCode === null ? undefined : [`exited: ${cli.stderr()}`]),
    STARTUP_MS,
  );
  expect(banner.length, String(banner[0])).toBe(3);
  return { cli, baseUrl: banner[1], adminUrl: banner[2], log, captures };
}

/** Waits until Prometheus has scraped every replica after `since` (seconds). */
async function scrapedSince(promUrl: string, since: number, when: string): Promise<void> {
  await eventually(
    `Prometheus to scrape the ${REPLICAS} replicas ${when}`,
    async () => {
      // timestamp() of the selector itself gives each sample's scrape time (of any other expression, the query's time).
      const scrapes = await query(promUrl, 'timestamp(up{job="las-proxy"})');
      return scrapes.length === REPLICAS && scrapes.every((s) => Number(s.value[1]) > since) ? true : undefined;
    },
    SCRAPE_WAIT_MS,
  );
}

/** Whether a TCP connection to the port opens. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Prometheus's configuration as written, its intervals shortened; the rules file as written; the replicas and the token
 * where it looks for them.
 */
function preparePrometheus(promDir: string): void {
  const config = parse(readFileSync(new URL('prometheus.yml', EXAMPLES), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
  };
  config.global.scrape_interval = '1s';
  config.global.evaluation_interval = '1s';
  writeFileSync(join(promDir, 'prometheus.yml'), stringify(config));
  for (const rules of config.rule_files) copyFileSync(new URL(rules, EXAMPLES), join(promDir, rules));
  writeFileSync(join(promDir, 'las-proxy-admin-token'), `${ADMIN_TOKEN}\n`);
  writeFileSync(
    join(promDir, 'las-proxy-replicas.json'),
    JSON.stringify([{ targets: replicas.map((r) => new URL(r.adminUrl).host) }]),
  );
}

interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(promUrl: string, expression: string): Promise<PromSample[]> {
  const answer = await send(`${promUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const parsed = JSON.parse(answer.body.toString()) as {
    status: string;
    data?: { result: PromSample[] };
    error?: string;
  };
  if (parsed.status !== 'success') throw new Error(`Prometheus refused ${expression}: ${parsed.error}`);
  return parsed.data!.result;
}

type Counts = Record<Party, Record<Level, number>>;
const zeroCounts = (): Counts =>
  Object.fromEntries(PARTIES.map((party) => [party, Object.fromEntries(LEVELS.map((level) => [level, 0]))])) as Counts;

interface SummaryJson {
  exchanges: number;
  findingsByParty: Counts;
}

async function summaryOf(replica: Replica): Promise<SummaryJson> {
  const answer = await send(`${replica.adminUrl}/summary.json`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body.toString()) as SummaryJson;
}

beforeAll(async () => {
  if (!fleetTestRuns) return;
  dir = mkdtempSync(join(tmpdir(), 'las-fleet-'));
  mkdirSync(join(dir, 'logs'));
  const tokenFile = join(dir, 'admin-token');
  writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`);
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0, faults: FAULTS });
  replicas.push(
    ...(await Promise.all(
      Array.from({ length: REPLICAS }, (_, i) => startReplica(i + 1, reference!.baseUrl, tokenFile)),
    )),
  );
}, 2 * STARTUP_MS);

afterAll(async () => {
  await stopEngine(haproxy);
  await stopEngine(prometheus);
  for (const replica of replicas) if (replica.cli.child.exitCode === null) replica.cli.child.kill('SIGTERM');
  await Promise.all(replicas.map((replica) => replica.cli.exit));
  await reference?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.runIf(fleetTestRuns)(
  fleetTitle(
    "three replicas behind HAProxy, scraped by Prometheus: its sums equal the replicas' summaries, the merged report and, at MUST, judge over the captures",
  ),
  async () => {
    const started = performance.now();
    const haproxyPath = fleetChoice.haproxy.executablePath;
    const prometheusPath = fleetChoice.prometheus.executablePath;
    expect(haproxyPath, `no haproxy at ${fleetChoice.haproxy.lookedAt}`).toBeDefined();
    expect(prometheusPath, `no prometheus at ${fleetChoice.prometheus.lookedAt}`).toBeDefined();

    const [fleetPort, promPort] = [await freePort(), await freePort()];
    const promDir = join(dir, 'prometheus');
    mkdirSync(promDir);
    preparePrometheus(promDir);
    const promUrl = `http://127.0.0.1:${promPort}`;
    prometheus = startEngine(
      prometheusPath!,
      [
        `--config.file=${join(promDir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(promDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      {},
    );
    haproxy = startEngine(
      haproxyPath!,
      ['-f', HAPROXY_CONFIG, '-db'],
      haproxyEnvironment(
        `127.0.0.1:${fleetPort}`,
        replicas.map((r) => ({ url: r.baseUrl, adminUrl: r.adminUrl })),
      ),
    );
    const fleetUrl = `http://127.0.0.1:${fleetPort}${new URL(replicas[0].baseUrl).pathname}`;
    await eventually(
      'HAProxy to listen',
      async () => (haproxy!.child.exitCode !== null ? 'exited' : (await accepts(fleetPort)) ? 'listening' : undefined),
      STARTUP_MS,
    );
    expect(haproxy.child.exitCode, haproxy.output()).toBeNull();

    // Prometheus has scraped every replica once before the traffic, so that its rates see the traffic as an increase.
    await eventually(
      'Prometheus to be ready',
      async () => {
        if (prometheus!.child.exitCode !== null) throw new Error(`prometheus exited: ${prometheus!.output()}`);
        return (await send(`${promUrl}/-/ready`).catch(() => null))?.status === 200 ? true : undefined;
      },
      STARTUP_MS,
    );
    await eventually(
      `Prometheus to scrape the ${REPLICAS} replicas`,
      async () => ((await query(promUrl, 'up{job="las-proxy"} == 1')).length === REPLICAS ? true : undefined),
      SCRAPE_WAIT_MS,
    );

    // The bounded traffic; every answer is the service's (HAProxy answers 503 itself when no replica is up).
    let sent = 0;
    const statuses = new Set<number>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const answers = await Promise.all(
        TRAFFIC.map((request) => send(`${fleetUrl}${request.path}`, { headers: request.headers })),
      );
      for (const answer of answers) statuses.add(answer.status);
      sent += TRAFFIC.length;
      // A counter's first scrape already holds the findings of the round that made it, and rate()
      // reads no rise from its first sample: let every series be scraped once before the rest.
      if (round === 0) await scrapedSince(promUrl, Date.now() / 1000, 'after the first round');
    }
    expect([...statuses].sort()).toEqual([200, 400, 401]);

    // Every exchange reached exactly one replica, and was judged there.
    const summaries = await eventually(
      'every exchange counted by a replica',
      async () => {
        const all = await Promise.all(replicas.map(summaryOf));
        return all.reduce((sum, s) => sum + s.exchanges, 0) === sent ? all : undefined;
      },
      STARTUP_MS,
    );
    expect(
      summaries.map((s) => s.exchanges).every((exchanges) => exchanges > 0),
      `each replica took a share: ${summaries.map((s) => s.exchanges).join(', ')}`,
    ).toBe(true);
    const summed = zeroCounts();
    for (const summary of summaries)
      for (const party of PARTIES)
        for (const level of LEVELS) summed[party][level] += summary.findingsByParty[party][level];
    expect(summed.service.MUST).toBeGreaterThan(0);
    expect(summed.client.MUST).toBeGreaterThan(0);

    // Prometheus scraped each replica after the last exchange was counted.
    await scrapedSince(promUrl, Date.now() / 1000, 'after the traffic');
    const promFindings = zeroCounts();
    for (const sample of await query(promUrl, 'sum by (party, level) (las_proxy_findings_total)'))
      promFindings[sample.metric.party as Party][sample.metric.level as Level] = Number(sample.value[1]);
    const [promExchanges] = await query(promUrl, 'sum(las_proxy_exchanges_total)');
    expect({ exchanges: Number(promExchanges.value[1]), findings: promFindings }).toEqual({
      exchanges: sent,
      findings: summed,
    });

    // The rules file, as loaded: the alert on the service's MUST findings is pending for each rule the service
    // broke, and no replica is missing.
    const brokenRules = (
      await query(promUrl, 'sum by (rule) (las_proxy_findings_total{party="service", level="MUST"})')
    )
      .map((sample) => sample.metric.rule)
      .sort();
    const alerts = await eventually(
      'the service alert to be pending for every rule the service broke',
      async () => {
        const answer = JSON.parse((await send(`${promUrl}/api/v1/alerts`)).body.toString()) as {
          data: { alerts: { labels: Record<string, string>; state: string }[] };
        };
        const pending = answer.data.alerts
          .filter((alert) => alert.labels.alertname === 'LasServiceBreaksContract')
          .map((alert) => alert.labels.rule)
          .sort();
        return pending.length === brokenRules.length ? answer.data.alerts : undefined;
      },
      SCRAPE_WAIT_MS,
    );
    expect(
      alerts
        .filter((alert) => alert.labels.alertname === 'LasServiceBreaksContract')
        .map((alert) => alert.labels.rule)
        .sort(),
    ).toEqual(brokenRules);
    expect(alerts.filter((alert) => alert.labels.alertname !== 'LasServiceBreaksContract')).toEqual([]);

    // The logs, once each replica has drained and written its last summary lines.
    for (const replica of replicas) replica.cli.child.kill('SIGTERM');
    expect(await Promise.all(replicas.map((replica) => replica.cli.exit))).toEqual(replicas.map(() => 0));
    const report = await runCliInProcess(['report', join(dir, 'logs', 'replica-*.ndjson')]);
    expect(report.stderr).toBe('');
    for (const replica of replicas) expect(report.stdout).toContain(replica.log);
    const reported = zeroCounts();
    for (const party of PARTIES) {
      const line = new RegExp(
        `^${party === 'service' ? 'Service' : 'Client'}: ${LEVELS.map((level) => `${level} (\\d+)`).join(' · ')}\\.$`,
        'm',
      ).exec(report.stdout);
      expect(line, report.stdout).not.toBeNull();
      LEVELS.forEach((level, i) => (reported[party][level] = Number(line![i + 1])));
    }
    expect(reported).toEqual(summed);

    // Each MUST finding's exchange was captured by its replica: judged again offline, the three
    // capture directories give the same MUST findings.
    const rejudged = join(dir, 'rejudged.ndjson');
    const judged = await runCliInProcess(['judge', ...replicas.map((r) => r.captures), '--violations', rejudged]);
    expect(judged.code, judged.stderr).toBe(1);
    const offline = summarizeViolations(loadContract(), rejudged, readFileSync(rejudged, 'utf8'));
    expect(Object.fromEntries(PARTIES.map((party) => [party, offline.byParty[party].MUST]))).toEqual({
      service: summed.service.MUST,
      client: summed.client.MUST,
    });
    expect(replicas.every((replica) => readdirSync(replica.captures).length > 0)).toBe(true);

    process.stdout.write(
      `fleet test: ${sent} exchanges through HAProxy over ${REPLICAS} replicas (${summaries.map((s) => s.exchanges).join(' + ')}), findings ${JSON.stringify(summed)}, in ${((performance.now() - started) / 1000).toFixed(1)} s after the replicas started\n`,
    );
  },
  4 * STARTUP_MS,
);

/** The load a replica is killed under: bounded in requests, in requests at once and in time. */
const KILL_LOAD = { requests: 300, concurrency: 12, deadlineMs: 60_000, killAfterAnswers: 60 };
/** How long the slow upstream takes to answer (ms): several GETs are in flight on each replica at any moment. */
const UPSTREAM_DELAY_MS = 150;
const LIST_PAGE = JSON.stringify({ data: [], meta: { total: 0, pages: 0, page: 1, offset: 0, limit: 1 } });
/** The replica killed: replica 2. */
const VICTIM = 1;

/**
 * An upstream answering every request with an empty list page after UPSTREAM_DELAY_MS, but those `holds` keeps, which
 * it never answers; `inFlight` counts the requests it has not answered.
 */
async function startSlowUpstream(holds: () => boolean = () => false): Promise<TestServer & { inFlight: () => number }> {
  let inFlight = 0;
  const server = await startUpstream((req, res) => {
    req.resume();
    inFlight += 1;
    if (holds()) return;
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(LIST_PAGE);
    }, UPSTREAM_DELAY_MS);
  });
  return { ...server, inFlight: () => inFlight };
}

/** What each GET of a bounded load got: a status, or the error that came instead. */
interface LoadOutcome {
  statuses: number[];
  errors: string[];
}

/** GETs to `url`, as many at once and in all and for as long as KILL_LOAD says; `onAnswer` sees each count. */
async function boundedLoad(
  url: string,
  headers: Record<string, string>,
  onAnswer: (answered: number) => void,
): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { statuses: [], errors: [] };
  const deadline = performance.now() + KILL_LOAD.deadlineMs;
  let started = 0;
  const worker = async () => {
    while (started < KILL_LOAD.requests && performance.now() < deadline) {
      started += 1;
      try {
        outcome.statuses.push((await send(url, { headers })).status);
      } catch (error) {
        outcome.errors.push((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      }
      onAnswer(outcome.statuses.length + outcome.errors.length);
    }
  };
  await Promise.all(Array.from({ length: KILL_LOAD.concurrency }, worker));
  return outcome;
}

const KILLED_TITLE = 'a replica killed with GETs in flight on it: HAProxy sends them on, no client sees an error';
test.runIf(fleetTestRuns)(
  fleetTitle(KILLED_TITLE),
  async () => {
    const root = join(dir, 'killed');
    mkdirSync(join(root, 'logs'), { recursive: true });
    const tokenFile = join(dir, 'admin-token');
    const fleet: Replica[] = [];
    // Once the load is under way, the victim's upstream holds what the victim sends it, and the first GET it holds
    // has the victim killed: that GET, and any other the upstream has not answered, are in flight on it.
    let underWay = false;
    let inFlightWhenKilled = 0;
    const killVictimOnce = () => {
      if (!underWay) return false;
      if (inFlightWhenKilled === 0) {
        inFlightWhenKilled = victimUpstream.inFlight();
        fleet[VICTIM].cli.child.kill('SIGKILL');
      }
      return true;
    };
    const upstream = await startSlowUpstream();
    const victimUpstream = await startSlowUpstream(killVictimOnce);
    let balancer: Engine | undefined;
    try {
      const upstreamOf = (i: number) => `${(i === VICTIM ? victimUpstream : upstream).url}/v3`;
      const started = Array.from({ length: REPLICAS }, (_, i) => startReplica(i + 1, upstreamOf(i), tokenFile, root));
      fleet.push(...(await Promise.all(started)));
      const port = await freePort();
      const addresses = fleet.map((r) => ({ url: r.baseUrl, adminUrl: r.adminUrl }));
      const environment = haproxyEnvironment(`127.0.0.1:${port}`, addresses);
      balancer = startEngine(fleetChoice.haproxy.executablePath!, ['-f', HAPROXY_CONFIG, '-db'], environment);
      const listening = async () => {
        if (balancer!.child.exitCode !== null) return 'exited';
        return (await accepts(port)) ? 'listening' : undefined;
      };
      await eventually('HAProxy to listen', listening, STARTUP_MS);
      expect(balancer.child.exitCode, balancer.output()).toBeNull();
      const victim = fleet[VICTIM];
      const url = `http://127.0.0.1:${port}${new URL(victim.baseUrl).pathname}${TRAFFIC[0].path}`;
      const outcome = await boundedLoad(url, session, (answered) => {
        if (answered >= KILL_LOAD.killAfterAnswers) underWay = true;
      });
      expect(inFlightWhenKilled, `GETs in flight on replica ${VICTIM + 1} when it was killed`).toBeGreaterThan(0);
      expect(await victim.cli.exit).toBeNull();
      const answered = { errors: outcome.errors, statuses: [...new Set(outcome.statuses)] };
      expect(answered).toEqual({ errors: [], statuses: [200] });
      expect(outcome.statuses).toHaveLength(KILL_LOAD.requests);
      const killed = `replica ${VICTIM + 1} killed with ${inFlightWhenKilled} in flight on it`;
      process.stdout.write(
        `fleet test: ${outcome.statuses.length} GETs through HAProxy, ${killed}: each answered 200\n`,
      );
    } finally {
      await stopEngine(balancer);
      for (const replica of fleet) if (replica.cli.child.exitCode === null) replica.cli.child.kill('SIGTERM');
      await Promise.all(fleet.map((replica) => replica.cli.exit));
      await upstream.close();
      await victimUpstream.close();
    }
  },
  4 * STARTUP_MS,
);

test("the guide's fleet section names every file of the fleet in examples/proxy", () => {
  const guide = readFileSync(new URL('../../docs/operating-the-proxy.md', import.meta.url), 'utf8');
  const section = guide.slice(guide.indexOf('## A fleet:'));
  const fleetFiles = readdirSync(EXAMPLES).filter((name) =>
    /^(haproxy\.cfg|prometheus\.yml|las-proxy-.*\.yml)$/.test(name),
  );
  expect(fleetFiles.length).toBe(4);
  const named = markdownTableRows(section).map(([first]) => first);
  expect(fleetFiles.filter((name) => !named.includes(`\`${name}\``))).toEqual([]);
});
