// The fleet test runs real engines operators run: HAProxy in front of the proxy's replicas and
// Prometheus scraping them (Debian's haproxy and prometheus packages). Without them that test is
// skipped (the global setup prints one line saying how to enable it); with LAS_REQUIRE_FLEET=1
// (or LAS_REQUIRE_BROWSER=1, which CI sets) it runs anyway, so a missing engine fails it.
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chooseExecutable, type Environment, type ExecutableChoice } from './executable.ts';

const REQUIRED = ['LAS_REQUIRE_FLEET', 'LAS_REQUIRE_BROWSER'] as const;
export const HAPROXY_ENVIRONMENT = {
  executable: 'LAS_HAPROXY',
  debianPath: '/usr/sbin/haproxy',
  required: REQUIRED,
} as const;
export const PROMETHEUS_ENVIRONMENT = {
  executable: 'LAS_PROMETHEUS',
  debianPath: '/usr/bin/prometheus',
  required: REQUIRED,
} as const;

export interface FleetChoice {
  haproxy: ExecutableChoice;
  prometheus: ExecutableChoice;
}

export function chooseFleet(env: Environment, exists?: (path: string) => boolean): FleetChoice {
  return {
    haproxy: chooseExecutable(HAPROXY_ENVIRONMENT, env, exists),
    prometheus: chooseExecutable(PROMETHEUS_ENVIRONMENT, env, exists),
  };
}

/** True when the fleet test runs: both engines exist, or they are required (and a missing one fails the test). */
export function fleetTestRuns(choice: FleetChoice): boolean {
  const found = choice.haproxy.executablePath !== undefined && choice.prometheus.executablePath !== undefined;
  return found || choice.haproxy.required;
}

/** The one line a run without the engines prints. */
export function fleetMissingLine(choice: FleetChoice): string {
  const missing = [choice.haproxy, choice.prometheus]
    .filter((engine) => engine.executablePath === undefined)
    .map((engine) => engine.lookedAt);
  return `Fleet test skipped: nothing at ${missing.join(' or ')}. To run it, install Debian's haproxy and prometheus (apt-get install haproxy prometheus) or set ${HAPROXY_ENVIRONMENT.executable} and ${PROMETHEUS_ENVIRONMENT.executable}; LAS_REQUIRE_FLEET=1 makes a missing engine fail it.`;
}

export const fleetChoice = chooseFleet(process.env);
export const fleetTestRunsHere = fleetTestRuns(fleetChoice);

/** The HAProxy configuration of the fleet, used as written. */
export const HAPROXY_CONFIG = fileURLToPath(new URL('../examples/proxy/haproxy.cfg', import.meta.url));

/** The environment haproxy.cfg reads: where clients connect, and each replica's address and admin port. */
export function haproxyEnvironment(
  bind: string,
  replicas: readonly { url: string; adminUrl: string }[],
): Record<string, string> {
  const addresses = replicas.flatMap((replica, i): [string, string][] => [
    [`LAS_REPLICA${i + 1}`, new URL(replica.url).host],
    [`LAS_REPLICA${i + 1}_ADMIN_PORT`, new URL(replica.adminUrl).port],
  ]);
  return { LAS_FLEET_BIND: bind, ...Object.fromEntries(addresses) };
}

/** A port free now (HAProxy and Prometheus take a port, not port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
