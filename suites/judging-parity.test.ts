// The suite, the proxy and the reference server's tests judge an exchange alike: the same recorded
// exchanges go through the suite's case (ConformanceCase.send, over a client that replays the
// recorded answer), the proxy's judge and the server's test judge, and each reports what the
// contract's one judging path found, filtered only by what that caller is about.
import { describe, expect, it } from 'vitest';
import { loadContract, MEDIA_TYPE, utf8Text, type Finding } from '../contract/index.ts';
import { judgeCaptured as judgeAsProxy } from '../proxy/judge.ts';
import { CaseSkipped, serverFindings as judgeAsServerTests, runSuiteCase } from '../server/test-support.ts';
import type { Target } from '../targets/target.ts';
import { ConformanceCase, suiteFindings, type CaseRequest } from './case.ts';
import { SUITE_CASES } from './cases/index.ts';
import type { OutgoingRequest, ReceivedResponse, TargetClient } from './client.ts';

const contract = loadContract();
const list = contract.operation('listNotificationGroups');
const createAttributeConfig = contract.operation('createAttributeConfig');
const createHighlight = contract.operation('createHighlight');

const target: Target = {
  baseUrl: 'http://127.0.0.1:9/v3',
  legacyHeader: contract.legacyHeader,
  credentials: { sessionToken: 'parity-session-token', pat: 'parity-pat', forbiddenToken: 'parity-forbidden-token' },
  fixtures: {},
  limits: { requestTimeoutMs: 1000, maxBodyBytes: 1024 * 1024 },
};
const session = { authorization: `Bearer r:${target.credentials.sessionToken}` };
const forbidden = { authorization: `Bearer r:${target.credentials.forbiddenToken}` };
const none = {};

const userId = '60a7c0f2e4b0c83d2f9a1b23';
const itemId = '61b2d3e4f5a6b7c8d9e0f1a2';
const createdId = '63d4e5f6a7b8c9d0e1f2a3b4';
const groups = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: i.toString(16).padStart(24, '0'),
    type: 'NotificationGroup',
    attributes: { groupId: 'Exams', label: `Group ${i}`, defaultValue: false, description: 'Exams' },
  }));
const listPage = (count: number, total: number) => ({
  data: groups(count),
  meta: { total, pages: Math.ceil(total / 5), page: 1, offset: 0, limit: 5 },
});
const errors = (status: number) => ({ errors: [{ status: String(status), title: 'Refused' }] });
const attributeConfig = (attributes: Record<string, unknown>) => ({ data: { type: 'AttributeConfig', attributes } });
const highlight = (data: Record<string, unknown>) => ({
  data: { type: 'Highlight', attributes: { collectionItemId: itemId, color: 'yellow' }, ...data },
});
const owner = (extra: Record<string, unknown> = {}) => ({ owner: { data: { type: 'User', id: userId }, ...extra } });
const createdConfig = (attributes: Record<string, unknown>) => ({
  data: { id: createdId, type: 'AttributeConfig', attributes: { ...attributes, inUse: false } },
});
const createdHighlight = (data: Record<string, unknown>) => ({ data: { id: createdId, ...data, type: 'Highlight' } });

interface RecordedExchange {
  name: string;
  request: CaseRequest;
  /** `bodyBytes`: the body as sent, when its bytes are not all UTF-8 (bodyText cannot hold them). */
  response: { status: number; headers?: Record<string, string>; body?: unknown; bodyText?: string; bodyBytes?: Buffer };
  /** The requirements the target's side breaks (response and exchange findings, any level). */
  breaks: string[];
}

const recorded: RecordedExchange[] = [
  {
    name: 'a list page',
    request: { operation: list, query: 'filter[type]=portal&page[limit]=5&page[offset]=0', credentials: session },
    response: { status: 200, body: listPage(5, 12) },
    breaks: [],
  },
  {
    name: 'a list without filter answered 400',
    request: { operation: list, credentials: session },
    response: { status: 400, body: { errors: [{ status: '400', source: { parameter: 'filter[type]' } }] } },
    breaks: [],
  },
  {
    name: 'no credentials answered 401',
    request: { operation: list, query: 'filter[type]=user', credentials: none },
    response: { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: errors(401) },
    breaks: [],
  },
  {
    name: 'the forbidden token answered 403',
    request: { operation: list, query: 'filter[type]=user', credentials: forbidden },
    response: { status: 403, body: errors(403) },
    breaks: [],
  },
  {
    name: 'a create answered 201',
    request: {
      operation: createAttributeConfig,
      credentials: session,
      document: attributeConfig({ label: 'Consent' }),
    },
    response: { status: 201, body: createdConfig({ label: 'Consent' }) },
    breaks: [],
  },
  {
    name: 'a create answered 202',
    request: { operation: createHighlight, credentials: session, document: highlight({}) },
    response: { status: 202 },
    breaks: ['CREATE-202-ACCEPTED'],
  },
  {
    name: 'a create answered 404',
    request: { operation: createHighlight, credentials: session, document: highlight({}) },
    response: { status: 404, body: errors(404) },
    breaks: [],
  },
  {
    name: 'a create answered 409',
    request: {
      operation: createAttributeConfig,
      credentials: session,
      document: attributeConfig({ label: 'Consent' }),
    },
    response: { status: 409, body: errors(409) },
    breaks: [],
  },
  {
    name: 'a 401 without WWW-Authenticate',
    request: { operation: list, query: 'filter[type]=user', credentials: none },
    response: { status: 401, body: errors(401) },
    breaks: ['AUTH-WWW-AUTHENTICATE'],
  },
  {
    name: 'a valid list answered 500 with an HTML page',
    request: { operation: list, query: 'filter[type]=portal', credentials: session },
    response: {
      status: 500,
      headers: { 'content-type': 'text/html' },
      bodyText: '<html><body>Internal Server Error</body></html>',
    },
    breaks: ['ERR-NO-5XX', 'MEDIA-TYPE-RESPONSE'],
  },
  // Answers clients read otherwise than the value the contract validates.
  {
    name: 'a list page holding a byte that is not UTF-8 in a label',
    request: { operation: list, query: 'filter[type]=portal&page[limit]=5&page[offset]=0', credentials: session },
    response: {
      status: 200,
      bodyBytes: Buffer.concat(
        JSON.stringify(listPage(1, 1))
          .split('Group 0')
          .flatMap((part, i) => (i === 0 ? [Buffer.from(`${part}Caf`), Buffer.from([0xe9])] : [Buffer.from(part)])),
      ),
    },
    breaks: ['RES-JSON-UTF8'],
  },
  {
    name: 'a list page whose meta is given twice, the first a string',
    request: { operation: list, query: 'filter[type]=portal&page[limit]=5&page[offset]=0', credentials: session },
    response: { status: 200, bodyText: JSON.stringify(listPage(1, 1)).replace('"meta":', '"meta":"bogus","meta":') },
    breaks: ['RES-MEMBER-NAMES-UNIQUE'],
  },
  // One such member each: the proxy lists the first finding of a rule, the suite each.
  ...[
    ['"total":1', '"total":1.0'],
    ['"offset":0', '"offset":0e0'],
  ].map(([plain, written]) => ({
    name: `a list page whose meta writes ${plain} as ${written}`,
    request: { operation: list, query: 'filter[type]=portal&page[limit]=5&page[offset]=0', credentials: session },
    response: { status: 200, bodyText: JSON.stringify(listPage(1, 1)).replace(plain, written) },
    breaks: ['RES-INTEGER-FORM'],
  })),
  {
    name: 'malformed JSON answered 503',
    request: { operation: createHighlight, credentials: session, bodyText: '{"data":' },
    response: { status: 503, body: errors(503) },
    breaks: ['ERR-NO-5XX'],
  },
  {
    name: 'a valid create answered 200, a success status it does not list',
    request: {
      operation: createAttributeConfig,
      credentials: session,
      document: attributeConfig({ label: 'Consent' }),
    },
    response: { status: 200, body: createdConfig({ label: 'Consent' }) },
    breaks: ['AC-CREATE-201'],
  },
  {
    name: 'a valid create answered 422, an error status it does not list',
    request: {
      operation: createAttributeConfig,
      credentials: session,
      document: attributeConfig({ label: 'Consent' }),
    },
    response: { status: 422, body: errors(422) },
    breaks: ['EXCH-STATUS-LISTED'],
  },
  {
    name: 'a create the contract rejects answered 422, a refusal it names for no condition',
    request: { operation: createAttributeConfig, credentials: session, document: attributeConfig({ label: 1 }) },
    response: { status: 422, body: errors(422) },
    breaks: ['AC-TYPE-MISMATCH'],
  },
  {
    name: 'no credentials answered 403',
    request: { operation: list, query: 'filter[type]=user', credentials: none },
    response: { status: 403, body: errors(403) },
    breaks: ['AUTH-401-NO-CREDENTIALS'],
  },
  {
    name: 'no credentials and no filter answered 400',
    request: { operation: list, credentials: none },
    response: { status: 400, body: { errors: [{ status: '400', source: { parameter: 'filter[type]' } }] } },
    breaks: ['AUTH-401-BEFORE-400'],
  },
  {
    name: 'no credentials answered 200',
    request: { operation: list, query: 'filter[type]=user', credentials: none },
    response: { status: 200, body: listPage(5, 5) },
    breaks: ['AUTH-401-NO-CREDENTIALS'],
  },
  {
    name: 'a body sent as application/json answered 201',
    request: {
      operation: createHighlight,
      credentials: session,
      document: highlight({}),
      contentType: 'application/json',
    },
    response: { status: 201, body: createdHighlight({ attributes: { collectionItemId: itemId, color: 'yellow' } }) },
    breaks: ['MEDIA-TYPE-REQUEST-415'],
  },
  {
    name: 'a body sent as application/json answered 415',
    request: {
      operation: createHighlight,
      credentials: session,
      document: highlight({}),
      contentType: 'application/json',
    },
    response: { status: 415, body: errors(415) },
    breaks: [],
  },
  {
    name: 'a body sent as application/json answered 415 with a numeric error status',
    request: {
      operation: createHighlight,
      credentials: session,
      document: highlight({}),
      contentType: 'application/json',
    },
    response: { status: 415, body: { errors: [{ status: 415, title: 'Unsupported Media Type' }] } },
    breaks: ['ERR-STATUS-STRING'],
  },
  {
    name: 'a list answered 429 with a numeric error status',
    request: { operation: list, query: 'filter[type]=user', credentials: session },
    response: { status: 429, body: { errors: [{ status: 429 }] } },
    breaks: ['ERR-STATUS-STRING'],
  },
  {
    name: 'an attribute of the wrong type answered 201 and echoed',
    request: { operation: createAttributeConfig, credentials: session, document: attributeConfig({ label: 5 }) },
    response: { status: 201, body: createdConfig({ label: 5 }) },
    breaks: ['AC-TYPE-MISMATCH'],
  },
  {
    name: 'an owner of type Group answered 201 and echoed',
    request: {
      operation: createHighlight,
      credentials: session,
      document: highlight({ relationships: { owner: { data: { type: 'Group', id: userId } } } }),
    },
    response: {
      status: 201,
      body: createdHighlight({ relationships: { owner: { data: { type: 'Group', id: userId } } } }),
    },
    breaks: ['HL-OWNER-TYPE'],
  },
  {
    name: 'owner links of the wrong type answered 201 and echoed',
    request: {
      operation: createHighlight,
      credentials: session,
      document: highlight({ relationships: owner({ links: 5, meta: 'x' }) }),
    },
    response: {
      status: 201,
      body: createdHighlight({
        attributes: { collectionItemId: itemId, color: 'yellow' },
        relationships: owner({ links: 5, meta: 'x' }),
      }),
    },
    breaks: ['REQ-RELATIONSHIPS-REFUSED'],
  },
  {
    name: 'a valid Highlight answered 201 without its owner',
    request: { operation: createHighlight, credentials: session, document: highlight({ relationships: owner() }) },
    response: { status: 201, body: createdHighlight({ attributes: { collectionItemId: itemId, color: 'yellow' } }) },
    breaks: ['HL-RESPONSE-RELATIONSHIPS'],
  },
];

/** A client that sends nothing: it keeps the request the case built and answers the recorded response. */
function replayingClient(response: ReceivedResponse): TargetClient & { sent: OutgoingRequest[] } {
  const sent: OutgoingRequest[] = [];
  return {
    sent,
    async transmit(request) {
      sent.push(request);
      return { ok: true, response };
    },
    async close() {},
  };
}

/** The recorded answer as the suite's client receives it: read as bytes, as the client reads them. */
function receivedResponse(recordedResponse: RecordedExchange['response']): ReceivedResponse {
  const { text: bodyText, utf8 } = utf8Text(bodyBytes(recordedResponse));
  return {
    status: recordedResponse.status,
    headers: { ...(bodyText === '' ? {} : { 'content-type': MEDIA_TYPE }), ...recordedResponse.headers },
    bodyText,
    utf8,
  };
}

function bodyBytes(recordedResponse: RecordedExchange['response']): Buffer {
  return (
    recordedResponse.bodyBytes ??
    Buffer.from(
      recordedResponse.bodyText ?? (recordedResponse.body === undefined ? '' : JSON.stringify(recordedResponse.body)),
    )
  );
}

const comparable = ({ requirement, level, location, pointer, message, expected, actual }: Finding) => ({
  requirement,
  level,
  location,
  pointer,
  message,
  expected,
  actual,
});

interface Judged {
  suite: Finding[];
  proxy: Finding[];
  serverTests: Finding[];
}

const bytes = (text: string | undefined) =>
  text === undefined || text === '' ? { kind: 'none' as const } : { kind: 'captured' as const, raw: Buffer.from(text) };

/** What the proxy finds on one exchange a case sent (`raw`: the body's bytes, when its text cannot hold them). */
function judgedByProxy(sent: OutgoingRequest, response: ReceivedResponse, raw?: Buffer): Finding[] {
  const path = `${contract.basePath}${sent.path}`;
  return judgeAsProxy(
    contract,
    {
      method: sent.method,
      path,
      requestHeaders: sent.headers,
      requestBody: bytes(sent.bodyText),
      response: {
        status: response.status,
        rawHeaders: Object.entries(response.headers).flat(),
        body: raw === undefined ? bytes(response.bodyText) : { kind: 'captured', raw },
      },
    },
    { includeValues: true, maxBody: target.limits.maxBodyBytes },
  ).findings;
}

async function judgeEveryWay(exchange: RecordedExchange): Promise<Judged> {
  const response = receivedResponse(exchange.response);
  const client = replayingClient(response);
  const conformance = new ConformanceCase({
    contract,
    client,
    target,
    failLevel: 'must',
    scrub: (text) => text,
    requirements: ['ERR-NO-5XX'],
    outcomeInWorker: false,
    skip: (reason) => {
      throw new Error(`a replayed exchange is never skipped: ${reason}`);
    },
  });
  await conformance.send(exchange.request);
  const [sent] = client.sent;
  const path = `${contract.basePath}${sent.path}`;
  const serverTests = judgeAsServerTests({
    request: { method: sent.method, path, headers: sent.headers, bodyText: sent.bodyText },
    response,
    json: undefined,
  });
  return {
    suite: conformance.findingsForPeople().findings.map(comparable),
    proxy: judgedByProxy(sent, response, exchange.response.bodyBytes).map(comparable),
    serverTests: serverTests.map(comparable),
  };
}

describe('one exchange, one verdict: the suite, the proxy and the server tests judge alike', () => {
  for (const exchange of recorded) {
    it(`${exchange.name}: ${exchange.breaks.length === 0 ? 'nothing on the target side' : exchange.breaks.join(', ')}`, async () => {
      const judged = await judgeEveryWay(exchange);
      const targetSide = judged.proxy.filter((f) => f.location !== 'request');
      expect([...new Set(targetSide.map((f) => f.requirement))].sort()).toEqual([...exchange.breaks].sort());
      expect(judged.suite).toEqual(suiteFindings(contract, judged.proxy));
      expect(judged.serverTests).toEqual(targetSide.filter((f) => f.level !== 'INFO'));
    });
  }

  it('a served request the contract rejects is one finding at the level of what serving it breaks', async () => {
    const levels = async (name: string) =>
      (await judgeEveryWay(recorded.find((x) => x.name === name)!)).suite.map((f) => `${f.requirement} ${f.level}`);
    expect(await levels('an attribute of the wrong type answered 201 and echoed')).toEqual(['AC-TYPE-MISMATCH MUST']);
    expect(await levels('owner links of the wrong type answered 201 and echoed')).toEqual([
      'REQ-RELATIONSHIPS-REFUSED SHOULD',
    ]);
    expect(await levels('a body sent as application/json answered 201')).toEqual(['MEDIA-TYPE-REQUEST-415 SHOULD']);
  });
});

// The suite's own cases, each answered with a status no operation lists and the contract names
// for no condition (422), against what the proxy finds on the same exchanges. A case whose every
// request the contract rejects (a request finding at MUST: its content, or its credentials) must
// fail at the same level in both, the proxy's findings among the suite's: the case's own
// expectation adds at most its own requirement.
const LEVELS = ['MUST', 'SHOULD'] as const;
const worstLevel = (findings: Finding[]) => LEVELS.find((level) => findings.some((f) => f.level === level)) ?? 'none';
const refusable = (findings: Finding[]) => findings.some((f) => f.location === 'request' && f.level === 'MUST');
const verdictOf = (findings: Finding[]) =>
  [...new Set(findings.filter((f) => f.level !== 'INFO').map((f) => `${f.requirement} ${f.level}`))].sort();

describe("a request the contract rejects answered 422: the suite's cases and the proxy give one verdict", () => {
  const unnamed = receivedResponse({ status: 422, body: errors(422) });
  let compared = 0;
  for (const suiteCase of SUITE_CASES) {
    it(suiteCase.title, async () => {
      const client = replayingClient(unnamed);
      let suite: Finding[];
      try {
        suite = await runSuiteCase(suiteCase, target, client);
      } catch (error) {
        if (error instanceof CaseSkipped) return;
        throw error;
      }
      const judged = client.sent.map((sent) => judgedByProxy(sent, unnamed));
      if (judged.length === 0 || !judged.every(refusable)) return;
      compared += 1;
      const proxy = judged.flatMap((findings) => suiteFindings(contract, findings)).filter((f) => f.level !== 'INFO');
      expect(worstLevel(proxy), 'the proxy fails it').not.toBe('none');
      expect(worstLevel(suite), 'at the level the suite fails it').toBe(worstLevel(proxy));
      expect(verdictOf(suite)).toEqual(expect.arrayContaining(verdictOf(proxy)));
    });
  }

  it('compared the cases that send only requests the contract rejects', () => {
    expect(compared).toBeGreaterThan(20);
  });
});
