// Operating the proxy: a violations log that fails is reported once, counted, and makes the proxy
// not ready until a new destination replaces it (SIGHUP); the proxy's own answers carry the
// request id; the upstream's latency and the process's own metrics are on /metrics.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  contract,
  credentials,
  itWith,
  list,
  listTarget,
  servedRequest,
  unallowedFilter,
} from '../contract/test-support.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { answering, eventually, Recorder, send, startUpstream, type TestServer } from './test-support.ts';

/** A destination like /dev/full: every write fails with ENOSPC. */
class FullDisk extends Writable {
  override _write(_chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error) => void): void {
    callback(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  }
}

let upstream: TestServer;
let proxy: StartedProxy;
const logLines = new Recorder();

beforeAll(async () => {
  upstream = await startUpstream(answering(200, '{"data":[]}'));
  proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    violations: new FullDisk(),
    logger: pino({ level: 'error' }, logLines),
  });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

const LIST = 'list';

async function lostLines(): Promise<number> {
  return (await proxy.proxy.metrics.violationsLinesLost.get()).values.reduce((sum, v) => sum + v.value, 0);
}

itWith(list, LIST)(
  'a failing violations log: reported on the log once, lost lines counted, /readyz not ready; a replacement restores it',
  async (list) => {
    for (const id of ['full-1', 'full-2', 'full-3'])
      await send(`${proxy.baseUrl}${unallowedFilter(list)!.target}`, {
        headers: { ...credentials, 'x-request-id': id },
      });
    await proxy.proxy.settled();
    await eventually('lines counted as lost', async () => ((await lostLines()) > 0 ? true : undefined));
    const readiness = await send(`${proxy.adminUrl}/readyz`);
    expect(readiness.status).toBe(503);
    expect((JSON.parse(readiness.body.toString()) as { status: string }).status).toMatch(
      /^violations log failing \(ENOSPC\)$/,
    );
    expect(logLines.lines().filter((l) => String(l.msg).startsWith('writing the violations log failed')).length).toBe(
      1,
    );

    const fresh = new Recorder();
    proxy.proxy.replaceViolations(fresh);
    // Another kind of finding: the first of its kind in this interval, so written in full.
    await send(`${proxy.baseUrl}${listTarget(list, { limit: 0, offset: 0 })}`, {
      headers: { ...credentials, 'x-request-id': 'after-reopen' },
    });
    await proxy.proxy.settled();
    expect(fresh.lines().map((l) => l.requestId)).toContain('after-reopen');
    expect((await send(`${proxy.adminUrl}/readyz`)).status).toBe(200);
  },
);

itWith(list, LIST)('the proxy answers with the request id of the exchange when it answers itself', async (list) => {
  const enforcing = await startValidatingProxy({ upstream: `${upstream.url}/v3`, mode: 'enforce', violations: null });
  try {
    // Invalid and without credentials: the proxy answers 401 itself.
    const answer = await send(`${enforcing.baseUrl}${unallowedFilter(list)!.target}`, {
      headers: { 'x-request-id': 'own-answer' },
    });
    expect(answer.status).toBe(401);
    expect(answer.headers['x-request-id']).toBe('own-answer');
  } finally {
    await enforcing.close();
  }
});

test('/metrics has the upstream latency and the process metrics', async () => {
  const { method, target, headers, body } = servedRequest(contract.operations[0]);
  await send(`${proxy.baseUrl}${target}`, { method, headers, body });
  const text = (await send(`${proxy.adminUrl}/metrics`)).body.toString();
  expect(text).toMatch(/las_proxy_upstream_response_seconds_count [1-9]/);
  expect(text).toMatch(/las_proxy_process_cpu_seconds_total/);
});
