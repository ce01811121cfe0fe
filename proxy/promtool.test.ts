// The proxy's /metrics as Prometheus's own linter reads it: `promtool check metrics` passes
// after traffic that fills every labelled counter the proxy keeps.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { contract, servedRequest } from '../contract/test-support.ts';
import { promtoolChoice, promtoolTestRuns } from '../test-support/promtool.ts';
import { startValidatingProxy } from './proxy.ts';
import { answering, send, startUpstream } from './test-support.ts';

test.runIf(promtoolTestRuns)('promtool check metrics passes on /metrics after traffic', async () => {
  expect(promtoolChoice.executablePath, `no promtool at ${promtoolChoice.lookedAt}`).toBeDefined();
  const upstream = await startUpstream(answering(200, '{"data":[{"id":7}]}'));
  const proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations: null });
  try {
    const { method, target, headers, body } = servedRequest(contract.operations[0]);
    await send(`${proxy.baseUrl}${target}`, { method, headers, body });
    await send(`${proxy.baseUrl}/unspecified`);
    await proxy.proxy.settled();
    const metrics = (await send(`${proxy.adminUrl}/metrics`)).body.toString();
    expect(metrics).toContain('las_proxy_findings_total{');
    const checked = spawnSync(promtoolChoice.executablePath!, ['check', 'metrics'], {
      input: metrics,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}` }).toEqual({
      status: 0,
      problems: '',
    });
  } finally {
    await proxy.close();
    await upstream.close();
  }
});
