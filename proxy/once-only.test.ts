// Findings repeat on every exchange of a service that makes them, so the violations log and the
// dashboard's latest findings show each kind once per interval (an INFO observation per rule,
// operation and direction, traffic to unspecified operations included; anything else also per
// pointer, indices folded), then one line with the count of
// repeats; the metrics and the dashboard's counts see every occurrence. The list exchanges go to a
// list of the contract's whose meta has a deprecated member, skipped when it holds none.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deprecatedMetaMembers, MEDIA_TYPE, type Operation } from '../contract/index.ts';
import { contract, describeWith, examplePage, lists, requestPath } from '../contract/test-support.ts';
import { repeatKind } from './judge.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

const LIST = 'list whose meta has a deprecated member replaced by another';
/** A list naming requirements for a deprecated meta member, with a member of its meta so deprecated and replaced. */
const deprecating = lists
  .map((list) => ({ list, deprecated: deprecatedMetaMembers(list).find((m) => m.replacement !== undefined) }))
  .find(({ list, deprecated }) => deprecated && list.roles.metaDeprecatedPresent && list.roles.metaDeprecatedAgree);
const list = deprecating?.list;

/** The list's example page with the deprecated member (INFO: sent at all) disagreeing with its replacement (SHOULD). */
function pageWithDeprecatedMeta(list: Operation, deprecated: { name: string; replacement?: string }) {
  const { query, page } = examplePage(list);
  const meta = { ...page.meta, [deprecated.name]: page.meta[deprecated.replacement!] + 1 };
  return { path: requestPath(list, query), body: JSON.stringify({ ...page, meta }) };
}
const listed = deprecating && pageWithDeprecatedMeta(deprecating.list, deprecating.deprecated!);

const session = { authorization: 'Bearer r:once-only-token' };
/** Two identical list exchanges (when the contract holds such a list), then three to paths outside the contract. */
const traffic = [
  ...(listed ? [listed.path, listed.path].map((path, i) => ({ id: `once-${i}`, path })) : []),
  ...['/users', '/users/42', '/courses'].map((path, i) => ({
    id: `once-${i + 2}`,
    path: `${contract.basePath}${path}`,
  })),
];

let upstream: TestServer;
let proxy: StartedProxy;
const violations = new Recorder();

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end(listed && req.url === listed.path ? listed.body : '{"data":[]}');
  });
  proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations });
  for (const { id, path } of traffic)
    await send(`${proxy.proxyUrl}${path}`, { headers: { ...session, 'x-request-id': id } });
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

describeWith(list, LIST)('two identical list exchanges', (list) => {
  const rules = [list.roles.metaDeprecatedPresent!, list.roles.metaDeprecatedAgree!];
  for (const rule of rules) {
    const { level } = contract.requirement(rule);
    test(`${rule} (${level}): 1 line in the log, counted 2 in the metrics`, async () => {
      const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === rule);
      expect(lines.map((l) => [l.requestId, l.level, l.operationId, l.direction])).toEqual([
        ['once-0', level, list.operationId, 'response'],
      ]);
      expect(await counted(rule)).toBe(2);
    });
  }

  test('the dashboard counts both occurrences of each and lists the first only', () => {
    const snapshot = proxy.proxy.feed.snapshot();
    for (const rule of rules) {
      expect(snapshot.rules.find((r) => r.rule === rule)?.count).toBe(2);
      expect(snapshot.latest.filter((l) => l.rule === rule).map((l) => l.requestId)).toEqual(['once-0']);
    }
  });
});

test('traffic to unspecified operations: one INFO line whatever the paths, every exchange counted', async () => {
  const lines = violations.lines<ViolationRecord>().filter((l) => l.rule === 'GEN-UNSPECIFIED-OPERATION');
  expect(lines.map((l) => `${l.requestId} ${l.method} ${l.path}`)).toEqual(['once-2 GET /v3/users']);
  expect(await counted('GEN-UNSPECIFIED-OPERATION')).toBe(3);
});

// repeatKind reads the finding and the operation alone: both made up here.
describe('repeatKind', () => {
  const exchange = {
    method: 'GET',
    path: '/v3/examples?filter[type]=portal',
    operationId: 'listExamples',
  };
  const finding = {
    requirement: 'EX-META-DEPRECATED-PRESENT',
    level: 'INFO' as const,
    location: 'response' as const,
    pointer: '/meta/totalCount',
  };
  const cases = [
    {
      name: 'an INFO finding: by rule, operation and direction',
      finding,
      exchange,
      kind: 'EX-META-DEPRECATED-PRESENT listExamples response',
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
        requirement: 'EX-ITEM-SHAPE',
        level: 'MUST' as const,
        pointer: '/data/17/attributes/recipientType/1',
      },
      exchange,
      kind: 'EX-ITEM-SHAPE listExamples response /data/*/attributes/recipientType/*',
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
  const listRules = list ? [list.roles.metaDeprecatedPresent!, list.roles.metaDeprecatedAgree!] : [];
  expect(summaries.map((l) => [l.rule, l.requestId, l.repeated]).sort()).toEqual(
    [['GEN-UNSPECIFIED-OPERATION', 'once-2', 2], ...listRules.map((rule) => [rule, 'once-0', 1])].sort(),
  );
});
