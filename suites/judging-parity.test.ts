// The suite, the proxy and the reference server's tests judge an exchange alike: the same recorded
// exchanges go through the suite's case (ConformanceCase.send, over a client that replays the
// recorded answer), the proxy's judge and the server's test judge, and each reports what the
// contract's one judging path found, filtered only by what that caller is about.
import { describe, expect, it } from 'vitest';
import {
  bodyMembers,
  listItemSchema,
  MEDIA_TYPE,
  schemaMembers,
  utf8Text,
  type Finding,
  type Operation,
} from '../contract/index.ts';
import {
  contract,
  create,
  creates,
  describeWith,
  documentExample,
  exampleOf,
  itemExample,
  list,
  listQuery,
  requirementJudgedBy,
} from '../contract/test-support.ts';
import { judgeCaptured as judgeAsProxy } from '../proxy/judge.ts';
import { CaseSkipped, serverFindings as judgeAsServerTests, runSuiteCase } from '../server/test-support.ts';
import type { Target } from '../targets/target.ts';
import { ConformanceCase, suiteFindings, type CaseRequest } from './case.ts';
import { SUITE_CASES } from './cases/index.ts';
import type { OutgoingRequest, ReceivedResponse, TargetClient } from './client.ts';

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

const createdId = '63d4e5f6a7b8c9d0e1f2a3b4';
const errors = (status: number) => ({ errors: [{ status: String(status), title: 'Refused' }] });

interface RecordedExchange {
  name: string;
  request: CaseRequest;
  /** `bodyBytes`: the body as sent, when its bytes are not all UTF-8 (bodyText cannot hold them). */
  response: { status: number; headers?: Record<string, string>; body?: unknown; bodyText?: string; bodyBytes?: Buffer };
  /** The requirements the target's side breaks (response and exchange findings, any level). */
  breaks: string[];
}

/** The requirement a request of `operation` breaks with a violation of `keyword` at `pointer`. */
const requestRequirement = (operation: Operation, keyword: string, pointer: string) =>
  contract.requirementFor({ operation: operation.operationId, location: 'request', keyword, pointer }).id;

/** The first member the list's query requires, as the query names it (`filter[type]`). */
function requiredQueryMember(list: Operation): string {
  const [member] = listQuery(list).split('&');
  return member.split('=')[0];
}

/** A free-text attribute of the list's items (a string of no fixed values or form), if they have one. */
function freeTextAttribute(list: Operation): string | undefined {
  const members = schemaMembers(listItemSchema(list) ?? {});
  const free = members.find(
    (m) =>
      /^\/attributes\/[^/]+$/.test(m.pointer) &&
      m.types.length === 1 &&
      m.types[0] === 'string' &&
      m.enum === undefined &&
      m.const === undefined,
  );
  return free?.pointer.split('/')[2];
}

/** Exchanges with a list: its items the complete example's, five to a page. */
function listExchanges(list: Operation): RecordedExchange[] {
  const text = freeTextAttribute(list);
  const items = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const item = itemExample(list);
      const attributes = item.attributes as Record<string, unknown>;
      return {
        ...item,
        id: i.toString(16).padStart(24, '0'),
        attributes: { ...attributes, [text ?? '']: `Item ${i}` },
      };
    });
  const listPage = (count: number, total: number) => ({
    data: items(count),
    meta: { total, pages: Math.ceil(total / 5), page: 1, offset: 0, limit: 5 },
  });
  const filtered = listQuery(list);
  const paged = listQuery(list, { limit: 5, offset: 0 });
  const refusedFilter = {
    errors: [{ status: '400', source: { parameter: requiredQueryMember(list) } }],
  };
  return [
    {
      name: 'a list page',
      request: { operation: list, query: paged, credentials: session },
      response: { status: 200, body: listPage(5, 12) },
      breaks: [],
    },
    {
      name: 'a list without filter answered 400',
      request: { operation: list, credentials: session },
      response: { status: 400, body: refusedFilter },
      breaks: [],
    },
    {
      name: 'no credentials answered 401',
      request: { operation: list, query: filtered, credentials: none },
      response: { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: errors(401) },
      breaks: [],
    },
    {
      name: 'the forbidden token answered 403',
      request: { operation: list, query: filtered, credentials: forbidden },
      response: { status: 403, body: errors(403) },
      breaks: [],
    },
    {
      name: 'a 401 without WWW-Authenticate',
      request: { operation: list, query: filtered, credentials: none },
      response: { status: 401, body: errors(401) },
      breaks: ['AUTH-WWW-AUTHENTICATE'],
    },
    {
      name: 'a valid list answered 500 with an HTML page',
      request: { operation: list, query: filtered, credentials: session },
      response: {
        status: 500,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html><body>Internal Server Error</body></html>',
      },
      breaks: ['ERR-NO-5XX', 'MEDIA-TYPE-RESPONSE'],
    },
    // Answers clients read otherwise than the value the contract validates.
    ...(text === undefined
      ? []
      : [
          {
            name: 'a list page holding a byte that is not UTF-8 in a free-text attribute',
            request: { operation: list, query: paged, credentials: session },
            response: {
              status: 200,
              bodyBytes: Buffer.concat(
                JSON.stringify(listPage(1, 1))
                  .split('Item 0')
                  .flatMap((part, i) =>
                    i === 0 ? [Buffer.from(`${part}Caf`), Buffer.from([0xe9])] : [Buffer.from(part)],
                  ),
              ),
            },
            breaks: ['RES-JSON-UTF8'],
          },
        ]),
    {
      name: 'a list page whose meta is given twice, the first a string',
      request: { operation: list, query: paged, credentials: session },
      response: { status: 200, bodyText: JSON.stringify(listPage(1, 1)).replace('"meta":', '"meta":"bogus","meta":') },
      breaks: ['RES-MEMBER-NAMES-UNIQUE'],
    },
    // One such member each: the proxy lists the first finding of a rule, the suite each.
    ...[
      ['"total":1', '"total":1.0'],
      ['"offset":0', '"offset":0e0'],
    ].map(([plain, written]) => ({
      name: `a list page whose meta writes ${plain} as ${written}`,
      request: { operation: list, query: paged, credentials: session },
      response: { status: 200, bodyText: JSON.stringify(listPage(1, 1)).replace(plain, written) },
      breaks: [requirementJudgedBy('integerForm')!],
    })),
    {
      name: 'no credentials answered 403',
      request: { operation: list, query: filtered, credentials: none },
      response: { status: 403, body: errors(403) },
      breaks: ['AUTH-401-NO-CREDENTIALS'],
    },
    {
      name: 'no credentials and no filter answered 400',
      request: { operation: list, credentials: none },
      response: { status: 400, body: refusedFilter },
      breaks: ['AUTH-401-BEFORE-400'],
    },
    {
      name: 'no credentials answered 200',
      request: { operation: list, query: filtered, credentials: none },
      response: { status: 200, body: listPage(5, 5) },
      breaks: ['AUTH-401-NO-CREDENTIALS'],
    },
    {
      name: 'a list answered 429 with a numeric error status',
      request: { operation: list, query: filtered, credentials: session },
      response: { status: 429, body: { errors: [{ status: 429 }] } },
      breaks: ['ERR-STATUS-STRING'],
    },
  ];
}

type Document = { data: Record<string, unknown> & { attributes: Record<string, unknown> } };

/** The resource a target creates from `document`: the complete example of its answer, holding what was sent. */
function created(create: Operation, document: Document): Document {
  const example = exampleOf(create.responseBodies.get(201)) as Document;
  return {
    data: {
      ...example.data,
      ...document.data,
      id: createdId,
      attributes: { ...example.data.attributes, ...document.data.attributes },
    },
  };
}

/** The first attribute of the create's complete example whose value is a string. */
function stringAttribute(create: Operation): string {
  const attributes = (documentExample(create) as Document).data.attributes;
  return Object.keys(attributes).find((name) => typeof attributes[name] === 'string')!;
}

/** Exchanges with a create: its document the complete example. */
function createExchanges(create: Operation): RecordedExchange[] {
  const document = documentExample(create) as Document;
  const text = stringAttribute(create);
  const withAttribute = (value: unknown): Document => ({
    data: { ...document.data, attributes: { ...document.data.attributes, [text]: value } },
  });
  const attributeMismatch = requestRequirement(create, 'type', `/data/attributes/${text}`);
  return [
    {
      name: 'a create answered 201',
      request: { operation: create, credentials: session, document },
      response: { status: 201, body: created(create, document) },
      breaks: [],
    },
    {
      name: 'a create answered 202',
      request: { operation: create, credentials: session, document },
      response: { status: 202 },
      breaks: ['CREATE-202-ACCEPTED'],
    },
    {
      name: 'a create answered 404',
      request: { operation: create, credentials: session, document },
      response: { status: 404, body: errors(404) },
      breaks: [],
    },
    {
      name: 'a create answered 409',
      request: { operation: create, credentials: session, document },
      response: { status: 409, body: errors(409) },
      breaks: [],
    },
    {
      name: 'malformed JSON answered 503',
      request: { operation: create, credentials: session, bodyText: '{"data":' },
      response: { status: 503, body: errors(503) },
      breaks: ['ERR-NO-5XX'],
    },
    {
      name: 'a valid create answered 200, a success status it does not list',
      request: { operation: create, credentials: session, document },
      response: { status: 200, body: created(create, document) },
      breaks: [contract.successRequirement(create.operationId).id],
    },
    {
      name: 'a valid create answered 422, an error status it does not list',
      request: { operation: create, credentials: session, document },
      response: { status: 422, body: errors(422) },
      breaks: ['EXCH-STATUS-LISTED'],
    },
    {
      name: 'a create the contract rejects answered 422, a refusal it names for no condition',
      request: { operation: create, credentials: session, document: withAttribute(1) },
      response: { status: 422, body: errors(422) },
      breaks: [attributeMismatch],
    },
    {
      name: 'a body sent as application/json answered 201',
      request: { operation: create, credentials: session, document, contentType: 'application/json' },
      response: { status: 201, body: created(create, document) },
      breaks: ['MEDIA-TYPE-REQUEST-415'],
    },
    {
      name: 'a body sent as application/json answered 415',
      request: { operation: create, credentials: session, document, contentType: 'application/json' },
      response: { status: 415, body: errors(415) },
      breaks: [],
    },
    {
      name: 'a body sent as application/json answered 415 with a numeric error status',
      request: { operation: create, credentials: session, document, contentType: 'application/json' },
      response: { status: 415, body: { errors: [{ status: 415, title: 'Unsupported Media Type' }] } },
      breaks: ['ERR-STATUS-STRING'],
    },
    {
      name: 'an attribute of the wrong type answered 201 and echoed',
      request: { operation: create, credentials: session, document: withAttribute(5) },
      response: { status: 201, body: created(create, withAttribute(5)) },
      breaks: [attributeMismatch],
    },
  ];
}

/** A create whose document has a relationship naming the type of its record, if the contract holds one. */
const createWithRelationship = creates.find((o) =>
  bodyMembers(o).some((m) => /^\/data\/relationships\/[^/]+\/data\/type$/.test(m.pointer)),
);

/** Exchanges with a create whose document has a relationship naming its record's type, its first. */
function relationshipExchanges(create: Operation): RecordedExchange[] {
  const document = documentExample(create) as Document;
  const relationships = document.data.relationships as Record<string, { data: { type: string; id: string } }>;
  const [name, relationship] = Object.entries(relationships).find(([, r]) => r.data?.type !== undefined)!;
  const withRelationship = (value: Record<string, unknown>): Document => ({
    data: { ...document.data, relationships: { ...relationships, [name]: value } },
  });
  const otherType = withRelationship({ data: { ...relationship.data, type: `${relationship.data.type}Other` } });
  const linksMistyped = withRelationship({ data: relationship.data, links: 5, meta: 'x' });
  const withoutRelationships = (sent: Document): Document => {
    const body = created(create, sent);
    delete body.data.relationships;
    return body;
  };
  return [
    {
      name: `a ${name} of another type answered 201 and echoed`,
      request: { operation: create, credentials: session, document: otherType },
      response: { status: 201, body: created(create, otherType) },
      breaks: [requestRequirement(create, 'const', `/data/relationships/${name}/data/type`)],
    },
    {
      name: `${name} links of the wrong type answered 201 and echoed`,
      request: { operation: create, credentials: session, document: linksMistyped },
      response: { status: 201, body: created(create, linksMistyped) },
      breaks: ['REQ-RELATIONSHIPS-REFUSED'],
    },
    {
      name: `a valid create answered 201 without its ${name}`,
      request: { operation: create, credentials: session, document },
      response: { status: 201, body: withoutRelationships(document) },
      breaks: [contract.requirementOf(create, 'relationshipsEcho')!.id],
    },
  ];
}

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

/** Every recorded exchange of `exchanges` judged alike by the suite, the proxy and the server tests. */
function judgedAlike(exchanges: RecordedExchange[]): void {
  for (const exchange of exchanges) {
    it(`${exchange.name}: ${exchange.breaks.length === 0 ? 'nothing on the target side' : exchange.breaks.join(', ')}`, async () => {
      const judged = await judgeEveryWay(exchange);
      const targetSide = judged.proxy.filter((f) => f.location !== 'request');
      expect([...new Set(targetSide.map((f) => f.requirement))].sort()).toEqual([...exchange.breaks].sort());
      expect(judged.suite).toEqual(suiteFindings(contract, judged.proxy));
      expect(judged.serverTests).toEqual(targetSide.filter((f) => f.level !== 'INFO'));
    });
  }
}

/** What the suite finds on the exchange named `name` of `exchanges`, each finding as its requirement and level. */
async function suiteLevels(exchanges: RecordedExchange[], name: string): Promise<string[]> {
  const judged = await judgeEveryWay(exchanges.find((x) => x.name === name)!);
  return judged.suite.map((f) => `${f.requirement} ${f.level}`);
}

describe('one exchange, one verdict: the suite, the proxy and the server tests judge alike', () => {
  describeWith(list, 'list')('with a list', (list) => judgedAlike(listExchanges(list)));

  describeWith(create, 'create')('with a create', (create) => {
    const exchanges = createExchanges(create);
    judgedAlike(exchanges);

    it('a served request the contract rejects is one finding at the level of what serving it breaks', async () => {
      const mismatch = exchanges.find((x) => x.name === 'an attribute of the wrong type answered 201 and echoed')!;
      expect(await suiteLevels(exchanges, mismatch.name)).toEqual([`${mismatch.breaks[0]} MUST`]);
      expect(await suiteLevels(exchanges, 'a body sent as application/json answered 201')).toEqual([
        'MEDIA-TYPE-REQUEST-415 SHOULD',
      ]);
    });
  });

  describeWith(createWithRelationship, 'create whose document has a relationship naming its type')(
    'with a relationship',
    (create) => {
      const exchanges = relationshipExchanges(create);
      judgedAlike(exchanges);

      it('a served relationship member of the wrong type is one finding, at the level of what serving it breaks', async () => {
        const mistyped = exchanges.find((x) => x.name.endsWith(' links of the wrong type answered 201 and echoed'))!;
        expect(await suiteLevels(exchanges, mistyped.name)).toEqual(['REQ-RELATIONSHIPS-REFUSED SHOULD']);
      });
    },
  );
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
