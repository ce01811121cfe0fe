// Enforce mode: a request that breaks the contract gets 400 and never reaches the upstream; a
// response that breaks it is replaced by 502; the proxy's own answers satisfy the contract.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkExchange, loadContract, validateRequest, validateResponse } from '../contract/index.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type RawRequest, type TestServer } from './test-support.ts';

const MEDIA_TYPE = 'application/vnd.api+json';
const MAX_BODY = 8192;
const contract = loadContract();
const goodList = JSON.stringify({
  data: [
    {
      id: '5f1d7c2e9b1e8a0012345678',
      type: 'NotificationGroup',
      attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'd' },
    },
  ],
});
const brokenCreated = JSON.stringify({ data: { id: 42, type: 'Highlight', attributes: { color: 'red' } } });
const hugeBrokenList = JSON.stringify({ data: Array.from({ length: 1000 }, () => ({ id: 7, type: 'Nope' })) });

const upstreamAnswers: Record<string, { status: number; body: string }> = {
  '/v3/notification-groups': { status: 200, body: goodList },
  '/v3/highlights': { status: 201, body: brokenCreated },
  '/v3/attribute-configs': { status: 400, body: JSON.stringify({ errors: [{ status: '400', title: 'bad' }] }) },
  '/v3/huge': { status: 200, body: hugeBrokenList },
};

let upstream: TestServer;
let proxy: StartedProxy;
const violations = new Recorder();
const reached: string[] = [];

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    req.on('end', () => {
      reached.push(`${req.method} ${req.url}`);
      const answer = upstreamAnswers[(req.url ?? '').split('?')[0]] ?? {
        status: 404,
        body: '{"errors":[{"status":"404"}]}',
      };
      res.writeHead(answer.status, { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
    });
  });
  proxy = await startValidatingProxy({
    upstream: `${upstream.url}/v3`,
    mode: 'enforce',
    maxBody: MAX_BODY,
    violations,
    violationsHeader: true,
  });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

const session = { authorization: 'Bearer r:session-token-1' };

interface RejectedCase {
  name: string;
  path: string;
  request: RawRequest;
  errors: { code: string; source: Record<string, string> }[];
  /** The refusal's status, when not 400: the one the catalogue asks the service to refuse such a request with. */
  status?: number;
}

const rejectedCases: RejectedCase[] = [
  {
    name: 'a filter value the contract does not allow',
    path: '/notification-groups?filter[type]=everyone',
    request: { headers: session },
    errors: [{ code: 'NG-FILTER-REQUIRED', source: { parameter: 'filter[type]' } }],
  },
  {
    name: 'page with one member only',
    path: '/notification-groups?filter[type]=portal&page[limit]=5',
    request: { headers: session },
    errors: [{ code: 'NG-PAGE-BOTH-MEMBERS', source: { parameter: 'page[offset]' } }],
  },
  {
    name: 'a create document of the wrong type',
    path: '/attribute-configs',
    request: {
      method: 'POST',
      headers: { ...session, 'content-type': MEDIA_TYPE },
      body: JSON.stringify({ data: { type: 'Highlight', attributes: {} } }),
    },
    errors: [{ code: 'AC-DATA-TYPE', source: { pointer: '/data/type' } }],
  },
  {
    name: 'a body that is not JSON',
    path: '/highlights',
    request: {
      method: 'POST',
      headers: { 'x-svc-session-token': 'legacy-token-1', 'content-type': MEDIA_TYPE },
      body: '{"data": ',
    },
    errors: [{ code: 'REQ-MALFORMED-JSON', source: {} }],
  },
  {
    name: 'a valid document sent as application/json',
    path: '/attribute-configs',
    request: {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'AttributeConfig', attributes: { label: 'Fine' } } }),
    },
    errors: [{ code: 'MEDIA-TYPE-REQUEST', source: {} }],
    status: 415,
  },
];

describe('enforce mode refuses a request that breaks the contract', () => {
  for (const c of rejectedCases) {
    const status = c.status ?? 400;
    test(`${c.name}: ${status} with the findings as error objects, never forwarded`, async () => {
      const before = reached.length;
      const response = await send(`${proxy.baseUrl}${c.path}`, c.request);
      expect(response.status).toBe(status);
      expect(reached.length).toBe(before);
      const document = JSON.parse(response.body.toString()) as {
        errors: { status: string; code: string; source?: Record<string, string> }[];
      };
      expect(document.errors.map((e) => ({ code: e.code, source: e.source ?? {} }))).toEqual(c.errors);
      expect(document.errors.every((e) => e.status === String(status))).toBe(true);
      expect(response.headers['las-violations']).toBe(c.errors.map((e) => e.code).join(', '));
      // The proxy's own answer is one the contract accepts for this request.
      const operation = contract.operations.find((o) => c.path.startsWith(o.pathTemplate))!;
      const request = {
        method: c.request.method ?? 'GET',
        path: `/v3${c.path}`,
        headers: c.request.headers as Record<string, string>,
        bodyText: c.request.body as string | undefined,
      };
      const answer = { status, headers: response.headers, bodyText: response.body.toString() };
      const requestFindings = validateRequest(contract, operation, request);
      expect([
        ...validateResponse(contract, operation, answer),
        ...checkExchange(contract, { operation, request, response: answer, requestFindings }),
      ]).toEqual([]);
    });
  }
});

describe('enforce mode and credentials', () => {
  test('answers 401 itself to an invalid request without credentials, as section 5 asks of the service (401 before any 400)', async () => {
    const before = reached.length;
    const response = await send(`${proxy.baseUrl}/notification-groups?filter[type]=everyone`);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="v3"');
    expect((JSON.parse(response.body.toString()) as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual([
      'PROXY-CREDENTIALS-UNREADABLE',
    ]);
    expect(reached.length).toBe(before);
  });

  test('forwards a valid request without credentials: which operations are public is not shown', async () => {
    const before = reached.length;
    await send(`${proxy.baseUrl}/notification-groups?filter[type]=portal`);
    expect(reached.length).toBe(before + 1);
  });
});

describe('enforce mode judges the response before answering', () => {
  test('a valid exchange passes unchanged', async () => {
    const response = await send(`${proxy.baseUrl}/notification-groups?filter[type]=portal`, {
      headers: { ...session, 'x-request-id': 'enforce-ok' },
    });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(goodList);
    expect(response.headers['las-violations']).toBeUndefined();
  });

  test('a response that breaks the contract becomes 502; the original is logged with its own status', async () => {
    const body = JSON.stringify({ data: { type: 'Highlight', attributes: { color: 'red' } } });
    const response = await send(`${proxy.baseUrl}/highlights`, {
      method: 'POST',
      headers: { ...session, 'content-type': MEDIA_TYPE, 'x-request-id': 'enforce-broken' },
      body,
    });
    expect(response.status).toBe(502);
    const document = JSON.parse(response.body.toString()) as { errors: { status: string; code: string }[] };
    expect(document.errors.map((e) => [e.status, e.code])).toEqual([['502', 'RES-ID-STRING']]);
    await proxy.proxy.settled();
    expect(
      violations
        .lines()
        .filter((l) => l.requestId === 'enforce-broken')
        .map((l) => [l.rule, l.direction, l.status]),
    ).toEqual([['RES-ID-STRING', 'response', 201]]);
  });

  test('a response above --max-body passes through unjudged, with an INFO finding', async () => {
    const response = await send(`${proxy.baseUrl}/huge`, { headers: { ...session, 'x-request-id': 'enforce-huge' } });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(hugeBrokenList);
    await proxy.proxy.settled();
    expect(
      violations
        .lines()
        .filter((l) => l.requestId === 'enforce-huge')
        .map((l) => l.rule),
    ).toContain('PROXY-BODY-NOT-VALIDATED');
  });
});
