import { describe, expect, it } from 'vitest';
import { chooseFleet, fleetMissingLine, fleetTestRuns, HAPROXY_ENVIRONMENT, PROMETHEUS_ENVIRONMENT } from './fleet.ts';

const onDisk =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);
const DEBIAN = [HAPROXY_ENVIRONMENT.debianPath, PROMETHEUS_ENVIRONMENT.debianPath];

describe('chooseFleet', () => {
  it("runs the fleet test with Debian's haproxy and prometheus", () => {
    const choice = chooseFleet({}, onDisk(...DEBIAN));
    expect([choice.haproxy.executablePath, choice.prometheus.executablePath]).toEqual(DEBIAN);
    expect(fleetTestRuns(choice)).toBe(true);
  });

  it('skips it when either engine is missing, saying in one line which and how to enable it', () => {
    for (const present of DEBIAN) {
      const choice = chooseFleet({}, onDisk(present));
      expect(fleetTestRuns(choice)).toBe(false);
      const line = fleetMissingLine(choice);
      expect(line.split('\n')).toHaveLength(1);
      expect(line).toContain(DEBIAN.find((path) => path !== present));
      expect(line).not.toContain(`at ${present}`);
      expect(line).toContain('apt-get install haproxy prometheus');
      expect(line).toContain('LAS_REQUIRE_FLEET=1');
    }
  });

  it('takes the executables LAS_HAPROXY and LAS_PROMETHEUS name', () => {
    const choice = chooseFleet(
      { LAS_HAPROXY: '/opt/haproxy', LAS_PROMETHEUS: '/opt/prometheus' },
      onDisk('/opt/haproxy', '/opt/prometheus'),
    );
    expect([choice.haproxy.executablePath, choice.prometheus.executablePath]).toEqual([
      '/opt/haproxy',
      '/opt/prometheus',
    ]);
  });

  it("runs it (and a missing engine fails it) under LAS_REQUIRE_FLEET=1 or CI's LAS_REQUIRE_BROWSER=1", () => {
    expect(fleetTestRuns(chooseFleet({ LAS_REQUIRE_FLEET: '1' }, onDisk()))).toBe(true);
    expect(fleetTestRuns(chooseFleet({ LAS_REQUIRE_BROWSER: '1' }, onDisk()))).toBe(true);
    expect(fleetTestRuns(chooseFleet({ LAS_REQUIRE_FLEET: '0' }, onDisk()))).toBe(false);
  });
});
