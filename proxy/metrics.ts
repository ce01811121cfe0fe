// The proxy's metrics, in a registry of its own (two proxies in one process never mix counts).
// Labels are bounded: operation ids, statuses, rule ids, directions and levels, never paths.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FAIRNESS_WINDOW_MS } from './fairness.ts';

export interface ProxyMetrics {
  registry: Registry;
  exchanges: Counter<'operation' | 'status'>;
  findings: Counter<'rule' | 'direction' | 'party' | 'level'>;
  validationSeconds: Histogram<never>;
  upstreamErrors: Counter<'kind'>;
  bodiesNotValidated: Counter<'direction'>;
  judgeBacklog: Gauge<never>;
  judgedExchanges: Counter<'thread'>;
  shedExchanges: Counter<'reason'>;
  deferredRequests: Counter<never>;
  judgingFailures: Counter<never>;
  violationsLinesLost: Counter<never>;
  violationsLinesDropped: Counter<never>;
  upstreamSeconds: Histogram<never>;
  captureEvents: Counter<'event'>;
}

export interface MetricSources {
  /** Exchanges waiting for the judging thread. */
  judgeBacklog(): number;
}

/** Default metrics of prom-client that are gauges named like counters. */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export function createProxyMetrics(sources: MetricSources): ProxyMetrics {
  const registry = new Registry();
  const registers = [registry];
  // The process's own: CPU, memory, event loop lag, handles (prefixed las_proxy_process_ to stay apart).
  collectDefaultMetrics({ register: registry, prefix: 'las_proxy_' });
  // prom-client names three gauges `_total`, a counter's suffix (promtool check metrics refuses
  // them); the same counts stay on the gauges without it (las_proxy_nodejs_active_handles, ...).
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(`las_proxy_${name}`);
  return {
    violationsLinesLost: new Counter({
      name: 'las_proxy_violations_lines_lost_total',
      help: 'Violations log lines that could not be written (the destination failed; SIGHUP reopens the file)',
      registers,
    }),
    violationsLinesDropped: new Counter({
      name: 'las_proxy_violations_lines_dropped_total',
      help: 'Violations log lines dropped because the destination did not keep up (more than 4 MiB waiting: a stalled reader of stdout, a slow disk)',
      registers,
    }),
    upstreamSeconds: new Histogram({
      name: 'las_proxy_upstream_response_seconds',
      help: "Time from forwarding a request to the upstream's status line",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    registry,
    captureEvents: new Counter({
      name: 'las_proxy_capture_events_total',
      help: 'Capture (--capture DIR): entries written, entries lost (the disk too slow or failing), files dropped to keep the directory under its bound',
      labelNames: ['event'],
      registers,
    }),
    exchanges: new Counter({
      name: 'las_proxy_exchanges_total',
      help: 'Exchanges proxied, by operation and the status the client received',
      labelNames: ['operation', 'status'],
      registers,
    }),
    findings: new Counter({
      name: 'las_proxy_findings_total',
      help: 'Findings, by requirement id, direction, who broke the contract (party: client for request findings, service for response and exchange findings) and level',
      labelNames: ['rule', 'direction', 'party', 'level'],
      registers,
    }),
    validationSeconds: new Histogram({
      name: 'las_proxy_validation_duration_seconds',
      help: 'Time spent judging one exchange (request, response and exchange checks)',
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'las_proxy_upstream_errors_total',
      help: 'Upstream failures, by kind (unreachable, untrusted, reset, invalid, timeout)',
      labelNames: ['kind'],
      registers,
    }),
    bodiesNotValidated: new Counter({
      name: 'las_proxy_bodies_not_validated_total',
      help: 'Bodies passed through without validation (larger than --max-body, or undecodable)',
      labelNames: ['direction'],
      registers,
    }),
    judgingFailures: new Counter({
      name: 'las_proxy_judging_failures_total',
      help: 'Exchanges whose judging failed with an error (each logged once per distinct error; enforce mode refuses them)',
      registers,
    }),
    shedExchanges: new Counter({
      name: 'las_proxy_exchanges_shed_total',
      help: "Exchanges relayed but not judged because judging was behind: reason backlog (the judging thread's backlog was full) or client-share (the client already held its share of the backlog)",
      labelNames: ['reason'],
      registers,
    }),
    deferredRequests: new Counter({
      name: 'las_proxy_requests_deferred_total',
      help: `Requests held back (their connection not read, to a later ${FAIRNESS_WINDOW_MS} ms window) because their client had taken more than its share of the forwarding thread (reading, decoding, judging, answering its requests: a quarter, or its equal part while fewer than four clients are served) and more than the average client served in the window`,
      registers,
    }),
    judgedExchanges: new Counter({
      name: 'las_proxy_exchanges_judged_total',
      help: 'Exchanges judged, by the thread that judged them (forwarding or worker)',
      labelNames: ['thread'],
      registers,
    }),
    judgeBacklog: new Gauge({
      name: 'las_proxy_judge_backlog_exchanges',
      help: 'Exchanges forwarded and waiting for the judging thread (a steady rise means judging falls behind)',
      registers,
      collect() {
        this.set(sources.judgeBacklog());
      },
    }),
  };
}
