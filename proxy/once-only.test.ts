// Findings repeat on every exchange of a service that makes them, so the violations log and the
// dashboard's latest findings show each kind once per interval (an INFO observation per rule,
// operation and direction, traffic to unspecified operations included; anything else also per
// pointer, indices folded), then one line with the count of
// repeats; the metrics and the dashboard's counts see every occurrence.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repeatKind } from './judge.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

const MEDIA_TYPE = 'application/vnd.api+json';
// One group, with a deprecated totalCount (INFO: sent at all) that disagrees with total (SHOULD).
const listWithDeprecatedMeta = JSON.stringify({
  data: [
    {
      id: '5f1d7c2e9b1e8a0012345678',
      type: 'NotificationGroup',
      attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'Exam news' },
    },
  ],
  meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 20, totalCount: 2 },
});

const session = { authorization: 'Bearer r:once-only-token' };
const traffic = [
  '/notification-groups?filter[type]=portal',
  '/notification-groups?filter[type]=portal',
  '/users',
  '/users/42',
  '/courses',
];

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
  for (const [index, path] of traffic.entries())
    await send(`${proxy.baseUrl}${path}`, { headers: { ...session, 'x-request-id': `once-${index}` } });
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
    { rule: 'NG-META-DEPRECATED-AGREE', level: 'SHOULD', lines: ['once-0'] },
  ];
  for (const c of cases) {
    test(`${c.rule} (${c.level}): ${c.lines.length} line(s) in the log, counted 2 in the metrics`, async () => {
      const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === c.rule);
      expect(lines.map((l) => [l.requestId, l.level, l.operationId, l.direction])).toEqual(
        c.lines.map((id) => [id, c.level, 'listNotificationGroups', 'response']),
      );
      expect(await counted(c.rule)).toBe(2);
    });
  }

  test('the dashboard counts both occurrences of each and lists the first only', () => {
    const snapshot = proxy.proxy.feed.snapshot();
    expect(snapshot.rules.find((r) => r.rule === 'NG-META-DEPRECATED-PRESENT')?.count).toBe(2);
    expect(snapshot.latest.filter((l) => l.rule === 'NG-META-DEPRECATED-PRESENT').map((l) => l.requestId)).toEqual([
      'once-0',
    ]);
    expect(snapshot.rules.find((r) => r.rule === 'NG-META-DEPRECATED-AGREE')?.count).toBe(2);
    expect(snapshot.latest.filter((l) => l.rule === 'NG-META-DEPRECATED-AGREE').map((l) => l.requestId)).toEqual([
      'once-0',
    ]);
  });
});

test('traffic to unspecified operations: one INFO line whatever the paths, every exchange counted', async () => {
  const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === 'GEN-UNSPECIFIED-OPERATION');
  expect(lines.map((l) => `${l.requestId} ${l.method} ${l.path}`)).toEqual(['once-2 GET /v3/users']);
  expect(await counted('GEN-UNSPECIFIED-OPERATION')).toBe(3);
});

describe('repeatKind', () => {
  const exchange = {
    method: 'GET',
    path: '/v3/notification-groups?filter[type]=portal',
    operationId: 'listNotificationGroups',
  };
  const finding = {
    requirement: 'NG-META-DEPRECATED-PRESENT',
    level: 'INFO' as const,
    location: 'response' as const,
    pointer: '/meta/totalCount',
  };
  const cases = [
    {
      name: 'an INFO finding: by rule, operation and direction',
      finding,
      exchange,
      kind: 'NG-META-DEPRECATED-PRESENT listNotificationGroups response',
    },
    {
      name: 'an INFO finding outside the operations',
      finding: { ...finding, requirement: 'PROXY-BODY-NOT-VALIDATED' },
      exchange: { ...exchange, operationId: null, path: '/v3/files/1' },
      kind: 'PROXY-BODY-NOT-VALIDATED unspecified response',
    },
    {
      name: 'an unspecified operation: by rule and direction, whatever the path',
      finding: { ...finding, requirement: 'GEN-UNSPECIFIED-OPERATION', location: 'request' as const },
      exchange: { ...exchange, operationId: null, path: '/v3/users/42?token=x' },
      kind: 'GEN-UNSPECIFIED-OPERATION unspecified request',
    },
    {
      name: 'a MUST finding: also by pointer, array indices folded',
      finding: {
        ...finding,
        requirement: 'NG-ITEM-SHAPE',
        level: 'MUST' as const,
        pointer: '/data/17/attributes/recipientType/1',
      },
      exchange,
      kind: 'NG-ITEM-SHAPE listNotificationGroups response /data/*/attributes/recipientType/*',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(repeatKind(c.finding, c.exchange.operationId)).toBe(c.kind);
    });
  }
});

test('when the interval ends (here: on close), one line per kind that repeated carries the count', async () => {
  await proxy.close();
  const summaries = violations.lines<ViolationRecord>().filter((l) => l.repeated !== undefined);
  expect(summaries.map((l) => [l.rule, l.requestId, l.repeated]).sort()).toEqual([
    ['GEN-UNSPECIFIED-OPERATION', 'once-2', 2],
    ['NG-META-DEPRECATED-AGREE', 'once-0', 1],
    ['NG-META-DEPRECATED-PRESENT', 'once-0', 1],
  ]);
});
