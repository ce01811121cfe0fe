// The options that change what the proxy judges and says: --sample, --log-values and the
// Las-Violations header (report mode: only what is known before the response starts).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { VIOLATIONS_HEADER_MAX_LENGTH, violationsHeaderValue } from './answers.ts';
import type { ViolationRecord } from './violations.ts';
import { startValidatingProxy, type StartedProxy, type ValidatingProxyOptions } from './proxy.ts';
import { answering, Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import { listItemAttributes, type Finding, type Operation } from '../contract/index.ts';
import {
  credentials,
  describeWith,
  list,
  listPage,
  listTarget,
  unallowedFilter,
  UNALLOWED_FILTER_VALUE,
} from '../contract/test-support.ts';

/** A string where an item's attribute is of another type. */
const WRONG_VALUE = 'yes';
/** The first attribute of a list's items whose type is not string. */
const typedAttribute = (list: Operation) =>
  listItemAttributes(list).find((a) => typeof a.schema.type === 'string' && a.schema.type !== 'string');

/** A page of a list whose one item has a string for that attribute. */
function brokenPage(list: Operation): string {
  const page = listPage(list);
  const item = page.data[0] as { attributes: Record<string, unknown> };
  item.attributes = { ...item.attributes, [typedAttribute(list)!.name]: WRONG_VALUE };
  return JSON.stringify(page);
}

let upstream: TestServer;

beforeAll(async () => {
  upstream = await startUpstream(answering(200, list === undefined ? '{"data":[]}' : brokenPage(list)));
});

afterAll(async () => {
  await upstream?.close();
});

async function withProxy(
  options: Partial<ValidatingProxyOptions>,
  use: (proxy: StartedProxy, violations: Recorder) => Promise<void>,
): Promise<void> {
  const violations = new Recorder();
  // Every finding written (no folding of repeats): the cases count what each exchange found.
  const proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    violations,
    repeatInterval: 0,
    ...options,
  });
  try {
    await use(proxy, violations);
  } finally {
    await proxy.close();
  }
}

const LIST = 'list';
const session = credentials;

describeWith(list, LIST)('--sample', (list) => {
  const listPath = unallowedFilter(list)!.target;
  const rates = [
    { sample: 1, judged: 8 },
    { sample: 0.5, judged: 4 },
    { sample: 0.25, judged: 2 },
    { sample: 0, judged: 0 },
  ];
  for (const c of rates) {
    test(`${c.sample} judges ${c.judged} of 8 exchanges and counts all 8`, async () => {
      await withProxy({ sample: c.sample }, async (proxy, violations) => {
        for (let i = 0; i < 8; i += 1)
          await send(`${proxy.baseUrl}${listPath}`, { headers: { ...session, 'x-request-id': `sample-${i}` } });
        await proxy.proxy.settled();
        expect(new Set(violations.lines().map((l) => l.requestId)).size).toBe(c.judged);
        const exchanges = (await proxy.proxy.metrics.exchanges.get()).values.reduce((sum, v) => sum + v.value, 0);
        expect(exchanges).toBe(8);
      });
    });
  }
});

describeWith(list, LIST)('--log-values', (list) => {
  const { target: listPath, parameter, member } = unallowedFilter(list)!;
  /** A valid request: its answer's body is judged (that of a request which had to be refused is not). */
  const validListPath = listTarget(list);
  const allowed = member.values.map((value) => `"${value}"`).join(', ');
  const { name, schema } = typedAttribute(list)!;
  const type = String(schema.type);
  const mustBe = `/data/0/attributes/${name} must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
  const cases = [
    {
      logValues: false,
      request: `${parameter} must be one of ${allowed}, got a string`,
      response: `${mustBe}, got a string`,
    },
    {
      logValues: true,
      request: `${parameter} must be one of ${allowed}, got "${UNALLOWED_FILTER_VALUE}"`,
      response: `${mustBe}, got "${WRONG_VALUE}"`,
    },
  ];
  for (const c of cases) {
    test(`${c.logValues ? 'puts' : 'keeps'} body and query values ${c.logValues ? 'in' : 'out of'} messages`, async () => {
      await withProxy({ logValues: c.logValues }, async (proxy, violations) => {
        await send(`${proxy.baseUrl}${listPath}`, { headers: session });
        await send(`${proxy.baseUrl}${validListPath}`, { headers: session });
        await proxy.proxy.settled();
        const messages = violations.lines<ViolationRecord>().map((l) => `${l.direction} ${l.message}`);
        expect(messages).toContain(`request ${c.request}`);
        expect(messages).toContain(`response ${c.response}`);
      });
    });
  }
});

describeWith(list, LIST)('Las-Violations of a request', (list) => {
  const listPath = unallowedFilter(list)!.target;
  const rule = list.roles.filterRequired;

  test('is off by default', async () => {
    await withProxy({}, async (proxy) => {
      expect(
        (await send(`${proxy.baseUrl}${listPath}`, { headers: session })).headers['las-violations'],
      ).toBeUndefined();
    });
  });

  test('in report mode lists the request findings only: the response is relayed before it is judged', async () => {
    await withProxy({ violationsHeader: true }, async (proxy, violations) => {
      const response = await send(`${proxy.baseUrl}${listPath}`, { headers: session });
      expect(response.headers['las-violations']).toBe(rule);
      await proxy.proxy.settled();
      expect(
        violations
          .lines()
          .filter((l) => l.direction === 'exchange')
          .map((l) => l.rule),
      ).toContain(rule);
    });
  });
});

describe('Las-Violations', () => {
  test('lists the most severe rules first and stays within its size', () => {
    const finding = (requirement: string, level: Finding['level']): Finding => ({
      requirement,
      level,
      location: 'request',
      pointer: '',
      message: '',
    });
    expect(
      violationsHeaderValue([
        finding('B-INFO', 'INFO'),
        finding('A-MUST', 'MUST'),
        finding('A-MUST', 'MUST'),
        finding('C-SHOULD', 'SHOULD'),
      ]),
    ).toBe('A-MUST, C-SHOULD, B-INFO');
    const many = Array.from({ length: 100 }, (_, i) => finding(`RULE-NUMBER-${i}`, 'MUST'));
    const value = violationsHeaderValue(many)!;
    expect(value.length).toBeLessThanOrEqual(VIOLATIONS_HEADER_MAX_LENGTH);
    expect(value).toMatch(/, \+\d+$/);
  });
});
