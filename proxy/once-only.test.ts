// INFO observations repeat on every exchange of a service that makes them, so the violations log
// and the dashboard's latest findings show each once per rule, operation and direction (traffic
// to an unspecified operation once per method and first path segment); MUST and SHOULD findings
// show every time, and the metrics and the dashboard's counts see every occurrence.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { onceOnlyKey } from './judge.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

const MEDIA_TYPE = 'application/vnd.api+json';
// One group, with a deprecated totalCount (INFO: sent at all) that disagrees with total (SHOULD).
const listWithDeprecatedMeta = JSON.stringify({
  data: [{ id: '5f1d7c2e9b1e8a0012345678', type: 'NotificationGroup', attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'Exam news' } }],
  meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 20, totalCount: 2 },
});

const session = { authorization: 'Bearer r:once-only-token' };
const traffic = ['/notification-groups?filter[type]=portal', '/notification-groups?filter[type]=portal', '/users', '/users/42', '/courses'];

let upstream: TestServer;
let proxy: StartedProxy;
const violations = new Recorder();

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end(req.url?.startsWith('/v3/notification-groups') ? listWithDeprecatedMeta : '{"data":[]}');
  });
  proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations });
  for (const [index, path] of traffic.entries()) await send(`${proxy.baseUrl}${path}`, { headers: { ...session, 'x-request-id': `once-${index}` } });
  await proxy.proxy.settled();
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function counted(rule: string): Promise<number> {
  const values = (await proxy.proxy.metrics.findings.get()).values;
  return values.filter((v) => v.labels.rule === rule).reduce((sum, v) => sum + v.value, 0);
}

describe('two identical list exchanges', () => {
  const cases = [
    { rule: 'NG-META-DEPRECATED-PRESENT', level: 'INFO', lines: ['once-0'] },
    { rule: 'NG-META-DEPRECATED-AGREE', level: 'SHOULD', lines: ['once-0', 'once-1'] },
  ];
  for (const c of cases) {
    test(`${c.rule} (${c.level}): ${c.lines.length} line(s) in the log, counted 2 in the metrics`, async () => {
      const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === c.rule);
      expect(lines.map((l) => [l.requestId, l.level, l.operationId, l.direction])).toEqual(c.lines.map((id) => [id, c.level, 'listNotificationGroups', 'response']));
      expect(await counted(c.rule)).toBe(2);
    });
  }

  test('the dashboard counts both INFO observations and lists the first only', () => {
    const snapshot = proxy.proxy.feed.snapshot();
    expect(snapshot.rules.find((r) => r.rule === 'NG-META-DEPRECATED-PRESENT')?.count).toBe(2);
    expect(snapshot.latest.filter((l) => l.rule === 'NG-META-DEPRECATED-PRESENT').map((l) => l.requestId)).toEqual(['once-0']);
    expect(snapshot.latest.filter((l) => l.rule === 'NG-META-DEPRECATED-AGREE').map((l) => l.requestId)).toEqual(['once-1', 'once-0']);
  });
});

test('traffic to unspecified operations: one line per method and first path segment, every exchange counted', async () => {
  const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === 'GEN-UNSPECIFIED-OPERATION');
  expect(lines.map((l) => `${l.requestId} ${l.method} ${l.path}`)).toEqual(['once-2 GET /v3/users', 'once-4 GET /v3/courses']);
  expect(await counted('GEN-UNSPECIFIED-OPERATION')).toBe(3);
});

describe('onceOnlyKey', () => {
  const contract = loadContract();
  const record = { rule: 'NG-META-DEPRECATED-PRESENT', level: 'INFO' as const, operationId: 'listNotificationGroups', direction: 'response' as const, method: 'GET', path: '/v3/notification-groups?filter[type]=portal' };
  const cases = [
    { name: 'an INFO finding: by rule, operation and direction', record, key: 'NG-META-DEPRECATED-PRESENT listNotificationGroups response' },
    { name: 'an INFO finding outside the operations', record: { ...record, rule: 'PROXY-BODY-NOT-VALIDATED', operationId: null, path: '/v3/files/1' }, key: 'PROXY-BODY-NOT-VALIDATED unspecified response' },
    { name: 'an unspecified operation: by method and first path segment', record: { ...record, rule: 'GEN-UNSPECIFIED-OPERATION', operationId: null, direction: 'request' as const, path: '/v3/users/42?token=x' }, key: 'GEN-UNSPECIFIED-OPERATION GET /v3/users' },
    { name: 'a SHOULD finding: none, logged every time', record: { ...record, rule: 'NG-META-DEPRECATED-AGREE', level: 'SHOULD' as const }, key: null },
    { name: 'a MUST finding: none, logged every time', record: { ...record, rule: 'NG-FILTER-REQUIRED', level: 'MUST' as const, direction: 'request' as const }, key: null },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(onceOnlyKey(contract, c.record)).toBe(c.key);
    });
  }
});
