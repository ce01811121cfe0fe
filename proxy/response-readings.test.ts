// Answers clients read otherwise than the value the contract validates (contract/json-text.ts):
// bytes that are not UTF-8, a member name given twice, an integer written 1.0 or 0e0. The proxy
// finds them in both modes (enforce mode replaces the answer only for the MUST, UTF-8), and
// `judge` finds them in a recording as far as a HAR shows them: bytes only in a base64 entry. The
// answers are pages of the contract's first list, built from its complete example.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { listItemAttributes, MEDIA_TYPE, withValueAt, type Operation } from '../contract/index.ts';
import {
  contract,
  describeWith,
  list,
  examplePage,
  requestPath,
  requirementJudgedBy,
} from '../contract/test-support.ts';
import { recordedExchange } from './har.ts';
import { findingsOf, judgeCaptured } from './judge.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

const session = { authorization: 'Bearer r:response-readings-session' };
const LIST = 'list whose items have an attribute of free text';
/** A list of the contract's, when it holds one, and an attribute of its items that takes any string. */
const reading = list && listItemAttributes(list).find((a) => a.schema.type === 'string' && a.schema.enum === undefined);
const listRead = reading && list;
/** What the free-text attribute of the first item holds: a word whose last letter is not ASCII. */
const WORD = 'Caf\u00e9';

/** The page of the list its complete example describes, the first item's free-text attribute holding WORD. */
function conformingPage(list: Operation): { query: string; body: string } {
  const { query, page } = examplePage(list);
  const data = page.data.map((item, i) => (i === 0 ? withValueAt(item, `/attributes/${reading!.name}`, WORD) : item));
  return { query: requestPath(list, query), body: JSON.stringify({ ...page, data }) };
}

interface ReadingCase {
  name: string;
  body: Buffer;
  rule: string;
  level: 'MUST' | 'SHOULD';
}

/** The answers the proxy and `judge` read otherwise than the value the contract validates. */
const readingCases = (conforming: string): ReadingCase[] => [
  {
    name: `an attribute (${reading!.name}) holding a byte that is not UTF-8`,
    body: Buffer.concat(
      conforming
        .split(WORD)
        .flatMap((part, i) => (i === 0 ? [Buffer.from(`${part}Caf`), Buffer.from([0xe9])] : [Buffer.from(part)])),
    ),
    rule: 'RES-JSON-UTF8',
    level: 'MUST',
  },
  {
    name: 'meta given twice, the first a string',
    body: Buffer.from(conforming.replace('"meta":', '"meta":"bogus","meta":')),
    rule: 'RES-MEMBER-NAMES-UNIQUE',
    level: 'SHOULD',
  },
  {
    name: 'meta.offset written 0e0',
    body: Buffer.from(conforming.replace('"offset":0', '"offset":0e0')),
    rule: requirementJudgedBy('integerForm')!,
    level: 'SHOULD',
  },
];

/** The page the upstream answers and the query that asks for it; none when the contract holds no such list. */
const page = listRead ? conformingPage(listRead) : { query: '', body: '' };
const cases = listRead ? readingCases(page.body) : [];
const conforming = page.body;
const query = page.query;
const describeReadings = describeWith(listRead, LIST);

let upstream: TestServer;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    const body = cases.find((c) => c.rule === req.headers['x-answer'])?.body ?? Buffer.from(conforming);
    res.writeHead(200, { 'content-type': MEDIA_TYPE, 'content-length': body.length });
    res.end(body);
  });
});

afterAll(async () => {
  await upstream?.close();
});

async function withProxy(
  mode: 'report' | 'enforce',
  run: (proxy: StartedProxy, violations: Recorder) => Promise<void>,
): Promise<void> {
  const violations = new Recorder();
  const proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, violations, mode });
  try {
    await run(proxy, violations);
  } finally {
    await proxy.close();
  }
}

const serviceRules = (violations: Recorder, requestId: string) =>
  violations
    .lines<ViolationRecord>()
    .filter((l) => l.requestId === requestId && l.party === 'service')
    .map((l) => `${l.rule} ${l.level}`);

describeReadings('the proxy', () => {
  test('report mode, a conforming answer: no service finding', async () => {
    await withProxy('report', async (proxy, violations) => {
      await send(`${proxy.proxyUrl}${query}`, { headers: { ...session, 'x-request-id': 'conforming' } });
      await proxy.proxy.settled();
      expect(serviceRules(violations, 'conforming')).toEqual([]);
    });
  });

  for (const c of cases) {
    test(`report mode, ${c.name}: relayed byte for byte, logged as ${c.rule} (${c.level}) of the service`, async () => {
      await withProxy('report', async (proxy, violations) => {
        const response = await send(`${proxy.proxyUrl}${query}`, {
          headers: { ...session, 'x-answer': c.rule, 'x-request-id': c.rule },
        });
        expect(response.body.equals(c.body)).toBe(true);
        await proxy.proxy.settled();
        expect(serviceRules(violations, c.rule)).toEqual([`${c.rule} ${c.level}`]);
      });
    });

    const replaced = c.level === 'MUST';
    test(`enforce mode, ${c.name}: ${replaced ? '502 naming' : 'relayed, logged as'} ${c.rule}`, async () => {
      await withProxy('enforce', async (proxy, violations) => {
        const response = await send(`${proxy.proxyUrl}${query}`, {
          headers: { ...session, 'x-answer': c.rule, 'x-request-id': c.rule },
        });
        if (replaced) {
          expect(response.status).toBe(502);
          expect(
            (JSON.parse(response.body.toString()) as { errors: { code: string }[] }).errors.map((e) => e.code),
          ).toEqual([c.rule]);
        } else {
          expect(response.body.equals(c.body)).toBe(true);
        }
        await proxy.proxy.settled();
        expect(serviceRules(violations, c.rule)).toEqual([`${c.rule} ${c.level}`]);
      });
    });
  }
});

/** A HAR entry of the exchange, its answer as base64 or as the text a HAR writer decodes it to. */
function harEntry(body: Buffer, as: 'base64' | 'text'): unknown {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    request: {
      method: 'GET',
      url: `https://service.example${query}`,
      headers: [{ name: 'Authorization', value: session.authorization }],
    },
    response: {
      status: 200,
      headers: [{ name: 'Content-Type', value: MEDIA_TYPE }],
      content:
        as === 'base64'
          ? { mimeType: MEDIA_TYPE, text: body.toString('base64'), encoding: 'base64' }
          : { mimeType: MEDIA_TYPE, text: body.toString('utf8') },
    },
  };
}

const judged = (entry: unknown) =>
  findingsOf(
    contract,
    judgeCaptured(contract, recordedExchange(entry).exchange, { includeValues: false, maxBody: 1024 * 1024 }),
  )
    .filter((f) => f.location !== 'request')
    .map((f) => f.requirement);

describeReadings('judge on a recording', () => {
  for (const c of cases) {
    test(`${c.name}, its answer in base64: ${c.rule}`, () => {
      expect(judged(harEntry(c.body, 'base64'))).toEqual([c.rule]);
    });
  }

  test('bytes that were not UTF-8, recorded as text: the writer replaced them, and judge cannot see they were', () => {
    expect(judged(harEntry(cases[0].body, 'text'))).toEqual([]);
  });

  test("a duplicate name and an integer's form survive in text", () => {
    expect(cases.slice(1).map((c) => judged(harEntry(c.body, 'text')))).toEqual(cases.slice(1).map((c) => [c.rule]));
  });
});
