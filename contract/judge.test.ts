// The one judging path: what it judges, what it leaves alone, and how it judges a request the
// contract rejects that a server served anyway.
import { describe, expect, it } from 'vitest';
import {
  assessExchange,
  judgeExchange,
  judgeRequest,
  type Finding,
  type HttpRequest,
  type HttpResponse,
} from './index.ts';
import { bodyMembers, SAMPLE_OF_TYPE, serverAttributes, withValueAt } from './members.ts';
import {
  contract,
  creates,
  credentials,
  documentExample,
  itemExample,
  itWith,
  jsonApi,
  list,
  listQuery,
} from './test-support.ts';

const ids = (findings: Finding[]) => findings.map((f) => `${f.location} ${f.requirement} ${f.level}`);
/** A create whose created resource carries an attribute only the server sets, and that has a string attribute. */
const serverSetting = creates.find(
  (o) =>
    o.roles.serverAttributes !== undefined &&
    bodyMembers(o).some((m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer) && m.types.join() === 'string'),
);
const SERVER_SETTING = 'create with an attribute only the server sets and a string attribute';
const stringAttribute =
  serverSetting &&
  bodyMembers(serverSetting).find((m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer) && m.types.join() === 'string')!
    .pointer;
/** The complete example of the create's document, `value` at its string attribute when given. */
const createRequest = (value?: unknown): HttpRequest => {
  const example = documentExample(serverSetting!);
  return {
    method: 'POST',
    path: `${contract.basePath}${serverSetting!.pathTemplate}`,
    headers: { ...credentials, ...jsonApi },
    bodyText: JSON.stringify(value === undefined ? example : withValueAt(example, stringAttribute!, value)),
  };
};
/** The resource created from that request, without what only the server sets, and an id that is no ObjectId. */
const created = (request: HttpRequest, headers = jsonApi, change: Record<string, unknown> = {}): HttpResponse => {
  const { data } = JSON.parse(request.bodyText!) as { data: { attributes: Record<string, unknown> } };
  return {
    status: 201,
    headers,
    bodyText: JSON.stringify({
      data: { ...data, id: 'not-an-object-id', attributes: { ...data.attributes, ...change } },
    }),
  };
};
/** The requirement a wrong JSON type at the string attribute breaks. */
const typeMismatch = () =>
  contract.routeFor({
    operation: serverSetting!.operationId,
    location: 'request',
    keyword: 'type',
    pointer: stringAttribute!,
  }).requirement.id;

describe('judgeExchange', () => {
  it('judges nothing outside the base path', () => {
    const judged = judgeRequest(contract, { method: 'GET', path: '/health', headers: {} });
    expect(judged).toMatchObject({ inApi: false, operation: null, findings: [] });
    expect(
      judgeExchange(
        contract,
        { method: 'GET', path: '/health', headers: {} },
        { status: 500, headers: {}, bodyText: 'down' },
      ),
    ).toEqual([]);
  });

  it('judges traffic to an unspecified operation by the generic rules, and says so', () => {
    const findings = judgeExchange(
      contract,
      { method: 'GET', path: '/v3/users/1', headers: credentials },
      { status: 200, headers: jsonApi, bodyText: '{"data":null}' },
    );
    expect(ids(findings)).toEqual(['request GEN-UNSPECIFIED-OPERATION INFO']);
  });

  itWith(serverSetting, SERVER_SETTING)(
    'judges the body of a served valid request, every id even where another member is wrong',
    (operation) => {
      const request = createRequest();
      expect(ids(judgeExchange(contract, request, created(request)))).toEqual([
        `response ${operation.roles.serverAttributes} MUST`,
        'response RES-ID-OBJECTID SHOULD',
      ]);
    },
  );

  itWith(serverSetting, SERVER_SETTING)(
    'judges a served request the contract rejects once, under what serving it breaks, and not its body as well',
    () => {
      const request = createRequest(5);
      const findings = judgeExchange(contract, request, created(request));
      expect(ids(findings)).toEqual([`request ${typeMismatch()} MUST`, `exchange ${typeMismatch()} MUST`]);
    },
  );

  itWith(serverSetting, SERVER_SETTING)(
    'still judges the media type of that response, which does not depend on the request',
    () => {
      const request = createRequest(5);
      const findings = judgeExchange(contract, request, created(request, { 'content-type': 'application/json' }));
      expect(ids(findings)).toEqual([
        `request ${typeMismatch()} MUST`,
        'response MEDIA-TYPE-RESPONSE MUST',
        `exchange ${typeMismatch()} MUST`,
      ]);
    },
  );
});

const listRequest: HttpRequest = {
  method: 'GET',
  path: list ? `${contract.basePath}${list.pathTemplate}?${listQuery(list)}` : '/',
  headers: credentials,
};
const listAnswer = (body: unknown): HttpResponse => ({ status: 200, headers: jsonApi, bodyText: JSON.stringify(body) });
/** An item of the list, as its case file's complete example has it, with an ObjectId. */
const item = list ? { ...itemExample(list), id: '6553f100c0ffee0000000101' } : {};
const judgedIds = (request: HttpRequest, response: HttpResponse) =>
  [
    ...new Set(
      assessExchange(contract, request, response)
        .judged.filter((j) => j.location !== 'request')
        .map((j) => j.requirement),
    ),
  ].sort();

describe('assessExchange', () => {
  itWith(serverSetting, SERVER_SETTING)('finds what judgeExchange finds', () => {
    const request = createRequest();
    const response = created(createRequest('Other'));
    expect(assessExchange(contract, request, response).findings).toEqual(judgeExchange(contract, request, response));
  });

  itWith(serverSetting, SERVER_SETTING)(
    'says what was judged on a created resource: its shape, ids, media type, echo and status',
    (operation) => {
      const request = createRequest();
      const serverSet = Object.fromEntries(
        serverAttributes(operation).map((a) => [a.name, SAMPLE_OF_TYPE[a.types[0]]]),
      );
      const judged = judgedIds(request, created(request, jsonApi, serverSet));
      const roles = (['attributesEcho', 'success', 'serverAttributes', 'responseShape'] as const).map(
        (role) => operation.roles[role]!,
      );
      expect(judged).toEqual(
        [
          ...roles,
          'ERR-NO-5XX',
          'MEDIA-TYPE-RESPONSE',
          'RES-ID-OBJECTID',
          'RES-ID-STRING',
          'RES-MEMBER-NAMES-UNIQUE',
        ].sort(),
      );
    },
  );

  itWith(list, 'list')('judges no item, id or meta requirement on an empty list without meta', (operation) => {
    const judged = judgedIds(listRequest, listAnswer({ data: [] }));
    expect(judged).toEqual(
      [
        'ERR-NO-5XX',
        'MEDIA-TYPE-RESPONSE',
        operation.roles.success!,
        operation.roles.responseShape!,
        'RES-MEMBER-NAMES-UNIQUE',
      ].sort(),
    );
  });

  itWith(list, 'list')('judges items, ids and meta where the list holds them', (operation) => {
    const judged = judgedIds(
      listRequest,
      listAnswer({ data: [item], meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 10 } }),
    );
    const roles = (['itemShape', 'metaIntegers', 'metaPages', 'pageLength', 'metaPageNumber'] as const).map(
      (role) => operation.roles[role]!,
    );
    expect(judged).toEqual(expect.arrayContaining([...roles, 'RES-ID-STRING', 'RES-ID-OBJECTID']));
  });

  itWith(list, 'list')('judges the ObjectId of every item, even when another member of the document is wrong', () => {
    const response = listAnswer({
      data: [
        { ...item, id: 'string' },
        { ...item, id: 'string', type: 7 },
      ],
    });
    const objectIds = assessExchange(contract, listRequest, response)
      .findings.filter((f) => f.requirement === 'RES-ID-OBJECTID')
      .map((f) => f.pointer);
    expect(objectIds).toEqual(['/data/0/id', '/data/1/id']);
  });

  itWith(list, 'list')('says why a check could not judge a requirement', (operation) => {
    const response = listAnswer({ data: [item], meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 0 } });
    expect(assessExchange(contract, listRequest, response).unjudged).toEqual([
      {
        requirement: operation.roles.pageLength,
        location: 'response',
        reason: 'meta.limit was 0 and the request gave no page[limit]',
      },
      {
        requirement: operation.roles.metaPageNumber,
        location: 'response',
        reason: 'meta.limit was 0 and the request gave no page[limit]',
      },
    ]);
  });
});

// Section 7: an error object's status is the HTTP status as a string, whoever answers it with
// whatever status. The statuses are the contract's: every error status an operation lists, the
// generic ones (x-generic-statuses), and one 4xx neither names.
const namedErrorStatuses = [
  ...new Set([...contract.operations.flatMap((o) => o.statuses.filter((s) => s >= 400)), ...contract.genericStatuses]),
].sort((a, b) => a - b);
const unnamedErrorStatus = Array.from({ length: 100 }, (_, i) => 400 + i).find((s) => !namedErrorStatuses.includes(s))!;
const errorStatuses = [...namedErrorStatuses, unnamedErrorStatus];
const requestsTo: { to: string; request: HttpRequest }[] = [
  ...contract.operations.map((operation) => ({
    to: operation.operationId,
    request: {
      method: operation.method,
      path: `${contract.basePath}${operation.pathTemplate}${operation.requestBody ? '' : `?${listQuery(operation)}`}`,
      headers: operation.requestBody ? { ...credentials, ...jsonApi } : credentials,
      ...(operation.requestBody
        ? { bodyText: JSON.stringify({ data: { type: operation.resourceType, attributes: {} } }) }
        : {}),
    },
  })),
  { to: 'an unspecified operation', request: { method: 'GET', path: '/v3/users', headers: credentials } },
];
const refusal = (status: number, statusMember: unknown): HttpResponse => ({
  status,
  headers: jsonApi,
  bodyText: JSON.stringify({ errors: [{ status: statusMember, title: 'Refused' }] }),
});

describe('an error object is judged alike at every error status', () => {
  for (const { to, request } of requestsTo) {
    for (const status of errorStatuses) {
      it(`${to} answered ${status}: a numeric status member breaks ERR-STATUS-STRING, a string one is judged and holds`, () => {
        const numeric = judgeExchange(contract, request, refusal(status, status)).filter(
          (f) => f.requirement === 'ERR-STATUS-STRING',
        );
        expect(numeric.map((f) => `${f.location} ${f.level} ${f.pointer}`)).toEqual(['response MUST /errors/0/status']);
        const asString = assessExchange(contract, request, refusal(status, String(status)));
        expect(asString.findings.filter((f) => f.requirement === 'ERR-STATUS-STRING')).toEqual([]);
        expect(asString.judged).toContainEqual({ requirement: 'ERR-STATUS-STRING', location: 'response' });
      });
    }
  }
});

describe('an error object member of the wrong type is judged at one level per status, whichever operation answers', () => {
  for (const status of errorStatuses) {
    it(`${status}: /errors/0/title as a number`, () => {
      const routed = requestsTo.map(({ request }) => {
        const [finding] = judgeExchange(contract, request, {
          status,
          headers: jsonApi,
          bodyText: JSON.stringify({ errors: [{ title: 5 }] }),
        }).filter((f) => f.pointer === '/errors/0/title');
        return `${finding?.requirement} ${finding?.level}`;
      });
      expect(new Set(routed).size, routed.join(', ')).toBe(1);
    });
  }
});
