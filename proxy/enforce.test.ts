// Enforce mode: a request that breaks the contract gets 400 and never reaches the upstream; a
// response that breaks it is replaced by 502; the proxy's own answers satisfy the contract.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  checkExchange,
  MEDIA_TYPE,
  successBody,
  validateRequest,
  validateResponse,
  type Operation,
} from '../contract/index.ts';
import {
  contract,
  create,
  credentials,
  documentExample,
  exampleOf,
  itWith,
  list,
  listPage,
  listTarget,
  unallowedFilter,
} from '../contract/test-support.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { Recorder, send, startUpstream, type RawRequest, type TestServer } from './test-support.ts';

const MAX_BODY = 8192;
const LIST = 'list';
const CREATE = 'create';
const goodList = list === undefined ? '' : JSON.stringify(listPage(list));
const hugeBrokenList = JSON.stringify({ data: Array.from({ length: 1000 }, () => ({ id: 7, type: 'Nope' })) });
/** A type no create of the contract takes. */
const OTHER_TYPE = 'Nope';

type Document = { data: Record<string, unknown> & { attributes?: Record<string, unknown> } };
/** The complete example of a create's document. */
const createDocument = (operation: Operation) => documentExample(operation) as Document;

/**
 * The resource a create answers to its complete example, but for an id that is a number, not a string: RES-ID-STRING,
 * and nothing else.
 */
function createdWithNumericId(operation: Operation): string {
  const sent = createDocument(operation).data;
  const example = (exampleOf(successBody(operation)) as Document).data;
  return JSON.stringify({
    data: { ...example, ...sent, attributes: { ...example.attributes, ...sent.attributes }, id: 42 },
  });
}

const upstreamAnswers: Record<string, { status: number; body: string }> = {
  ...(list && { [`${contract.basePath}${list.pathTemplate}`]: { status: 200, body: goodList } }),
  ...(create && {
    [`${contract.basePath}${create.pathTemplate}`]: { status: 201, body: createdWithNumericId(create) },
  }),
  [`${contract.basePath}/huge`]: { status: 200, body: hugeBrokenList },
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

const session = credentials;

interface RejectedCase {
  name: string;
  path: string;
  request: RawRequest;
  errors: { code: string; source: Record<string, string> }[];
  /** The refusal's status, when not 400: the one the catalogue asks the service to refuse such a request with. */
  status?: number;
}

/** The requests a list refuses. */
const listRejections = (list: Operation): RejectedCase[] => [
  {
    name: 'a filter value the contract does not allow',
    path: unallowedFilter(list)!.target,
    request: { headers: session },
    errors: [{ code: list.roles.filterRequired!, source: { parameter: unallowedFilter(list)!.parameter } }],
  },
  {
    name: 'page with one member only',
    path: `${listTarget(list)}&page[limit]=5`,
    request: { headers: session },
    errors: [{ code: list.roles.pageBothMembers!, source: { parameter: 'page[offset]' } }],
  },
];

/** The requests a create refuses. */
const createRejections = (create: Operation): RejectedCase[] => [
  {
    name: 'a create document of the wrong type',
    path: create.pathTemplate,
    request: {
      method: 'POST',
      headers: { ...session, 'content-type': MEDIA_TYPE },
      body: JSON.stringify({ data: { ...createDocument(create).data, type: OTHER_TYPE } }),
    },
    errors: [
      {
        code: contract.routeFor({
          operation: create.operationId,
          location: 'request',
          keyword: 'const',
          pointer: '/data/type',
        }).requirement.id,
        source: { pointer: '/data/type' },
      },
    ],
  },
  {
    name: 'a body that is not JSON',
    path: create.pathTemplate,
    request: {
      method: 'POST',
      headers: { [contract.legacyHeader]: 'legacy-token-1', 'content-type': MEDIA_TYPE },
      body: '{"data": ',
    },
    errors: [{ code: 'REQ-MALFORMED-JSON', source: {} }],
  },
  {
    name: 'a valid document sent as application/json',
    path: create.pathTemplate,
    request: {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify(createDocument(create)),
    },
    errors: [{ code: 'MEDIA-TYPE-REQUEST', source: {} }],
    status: 415,
  },
];

describe('enforce mode refuses a request that breaks the contract', () => {
  const kinds: { operation: Operation | undefined; what: string; cases: (operation: Operation) => RejectedCase[] }[] = [
    { operation: list, what: LIST, cases: listRejections },
    { operation: create, what: CREATE, cases: createRejections },
  ];
  for (const kind of kinds)
    if (kind.operation === undefined)
      itWith(undefined, kind.what)(`refuses what a ${kind.what} refuses`, () => undefined);
    else for (const c of kind.cases(kind.operation)) refused(c);
});

function refused(c: RejectedCase): void {
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
      path: `${contract.basePath}${c.path}`,
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

describe('enforce mode and credentials', () => {
  itWith(list, LIST)(
    'answers 401 itself to an invalid request without credentials, as section 5 asks of the service (401 before any 400)',
    async (list) => {
      const before = reached.length;
      const response = await send(`${proxy.baseUrl}${unallowedFilter(list)!.target}`);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="v3"');
      expect(
        (JSON.parse(response.body.toString()) as { errors: { code: string }[] }).errors.map((e) => e.code),
      ).toEqual(['PROXY-CREDENTIALS-UNREADABLE']);
      expect(reached.length).toBe(before);
    },
  );

  itWith(list, LIST)(
    'forwards a valid request without credentials: which operations are public is not shown',
    async (list) => {
      const before = reached.length;
      await send(`${proxy.baseUrl}${listTarget(list)}`);
      expect(reached.length).toBe(before + 1);
    },
  );
});

describe('enforce mode judges the response before answering', () => {
  itWith(list, LIST)('a valid exchange passes unchanged', async (list) => {
    const response = await send(`${proxy.baseUrl}${listTarget(list)}`, {
      headers: { ...session, 'x-request-id': 'enforce-ok' },
    });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(goodList);
    expect(response.headers['las-violations']).toBeUndefined();
  });

  itWith(create, CREATE)(
    'a response that breaks the contract becomes 502; the original is logged with its own status',
    async (create) => {
      const body = JSON.stringify(createDocument(create));
      const response = await send(`${proxy.baseUrl}${create.pathTemplate}`, {
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
    },
  );

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
