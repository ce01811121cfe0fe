// The admin port: liveness, readiness, Prometheus metrics with bounded labels, the dashboard page.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { credentials, itWith, list, listPage, listTarget, unallowedFilter } from '../contract/test-support.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, send, startUpstream, type TestServer } from './test-support.ts';

let upstream: TestServer;
let proxy: StartedProxy;

beforeAll(async () => {
  // An answer longer than --max-body: its body is counted as not validated.
  upstream = await startUpstream(answering(200, JSON.stringify(list ? listPage(list) : { data: [] })));
  proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, maxBody: 64 });
  if (list === undefined) return;
  await send(`${proxy.baseUrl}${listTarget(list)}`, { headers: credentials });
  await send(`${proxy.baseUrl}${unallowedFilter(list)!.target}`, { headers: credentials });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe('admin endpoints', () => {
  const statuses: { path: string; status: number; contentType: RegExp }[] = [
    { path: '/healthz', status: 200, contentType: /^application\/json/ },
    { path: '/readyz', status: 200, contentType: /^application\/json/ },
    { path: '/metrics', status: 200, contentType: /^text\/plain/ },
    { path: '/', status: 200, contentType: /^text\/html/ },
    { path: '/summary.json', status: 200, contentType: /^application\/json/ },
    { path: '/nothing-here', status: 404, contentType: /^application\/json/ },
  ];
  for (const c of statuses) {
    test(`GET ${c.path} → ${c.status}`, async () => {
      const response = await send(`${proxy.adminUrl}${c.path}`);
      expect(response.status).toBe(c.status);
      expect(response.headers['content-type']).toMatch(c.contentType);
    });
  }

  itWith(list, 'list')(
    'metrics count exchanges by operation and status, findings by rule, direction, party and level, and skipped bodies',
    async (list) => {
      await proxy.proxy.settled();
      const lines = (await send(`${proxy.adminUrl}/metrics`)).body.toString().split('\n');
      const rule = list.roles.filterRequired;
      expect(lines).toContain(`las_proxy_exchanges_total{operation="${list.operationId}",status="200"} 2`);
      expect(lines).toContain(
        `las_proxy_findings_total{rule="${rule}",direction="request",party="client",level="MUST"} 1`,
      );
      expect(lines).toContain(
        `las_proxy_findings_total{rule="${rule}",direction="exchange",party="service",level="MUST"} 1`,
      );
      expect(lines).toContain('las_proxy_bodies_not_validated_total{direction="response"} 2');
      expect(lines).toContain('las_proxy_validation_duration_seconds_count 2');
      expect(lines).toContain('# TYPE las_proxy_upstream_errors_total counter');
    },
  );

  test('two proxies in one process keep separate registries', async () => {
    const other = await startValidatingProxy({ upstream: `${upstream.url}/v3` });
    try {
      expect((await send(`${other.adminUrl}/metrics`)).body.toString()).not.toMatch(/las_proxy_exchanges_total\{/);
    } finally {
      await other.close();
    }
  });
});
