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
import { contract, credentials, jsonApi } from './test-support.ts';

const ids = (findings: Finding[]) => findings.map((f) => `${f.location} ${f.requirement} ${f.level}`);
const configRequest = (attributes: unknown): HttpRequest => ({
  method: 'POST',
  path: '/v3/attribute-configs',
  headers: { ...credentials, ...jsonApi },
  bodyText: JSON.stringify({ data: { type: 'AttributeConfig', attributes } }),
});
const created = (attributes: unknown, headers = jsonApi): HttpResponse => ({
  status: 201,
  headers,
  bodyText: JSON.stringify({ data: { id: 'not-an-object-id', type: 'AttributeConfig', attributes } }),
});

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

  it('judges the body of a served valid request, every id even where another member is wrong', () => {
    expect(ids(judgeExchange(contract, configRequest({ label: 'Consent' }), created({ label: 'Consent' })))).toEqual([
      'response AC-RESPONSE-INUSE MUST',
      'response RES-ID-OBJECTID SHOULD',
    ]);
  });

  it('judges a served request the contract rejects once, under what serving it breaks, and not its body as well', () => {
    const findings = judgeExchange(contract, configRequest({ label: 5 }), created({ label: 5 }));
    expect(ids(findings)).toEqual(['request AC-TYPE-MISMATCH MUST', 'exchange AC-TYPE-MISMATCH MUST']);
  });

  it('still judges the media type of that response, which does not depend on the request', () => {
    const findings = judgeExchange(
      contract,
      configRequest({ label: 5 }),
      created({ label: 5 }, { 'content-type': 'application/json' }),
    );
    expect(ids(findings)).toEqual([
      'request AC-TYPE-MISMATCH MUST',
      'response MEDIA-TYPE-RESPONSE MUST',
      'exchange AC-TYPE-MISMATCH MUST',
    ]);
  });
});

const listRequest: HttpRequest = {
  method: 'GET',
  path: '/v3/notification-groups?filter[type]=user',
  headers: credentials,
};
const listAnswer = (body: unknown): HttpResponse => ({ status: 200, headers: jsonApi, bodyText: JSON.stringify(body) });
const group = {
  id: '6553f100c0ffee0000000101',
  type: 'NotificationGroup',
  attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'Exams' },
};
const judgedIds = (request: HttpRequest, response: HttpResponse) =>
  [
    ...new Set(
      assessExchange(contract, request, response)
        .judged.filter((j) => j.location !== 'request')
        .map((j) => j.requirement),
    ),
  ].sort();

describe('assessExchange', () => {
  it('finds what judgeExchange finds', () => {
    const request = configRequest({ label: 'Consent' });
    const response = created({ label: 'Other' });
    expect(assessExchange(contract, request, response).findings).toEqual(judgeExchange(contract, request, response));
  });

  it('says what was judged on a created resource: its shape, ids, media type, echo and status', () => {
    const judged = judgedIds(configRequest({ label: 'Consent' }), created({ label: 'Consent', inUse: false }));
    expect(judged).toEqual([
      'AC-ATTRIBUTES-ECHO',
      'AC-CREATE-201',
      'AC-RESPONSE-INUSE',
      'AC-RESPONSE-SHAPE',
      'ERR-NO-5XX',
      'MEDIA-TYPE-RESPONSE',
      'RES-ID-OBJECTID',
      'RES-ID-STRING',
      'RES-MEMBER-NAMES-UNIQUE',
    ]);
  });

  it('judges no item, id or meta requirement on an empty list without meta', () => {
    const judged = judgedIds(listRequest, listAnswer({ data: [] }));
    expect(judged).toEqual([
      'ERR-NO-5XX',
      'MEDIA-TYPE-RESPONSE',
      'NG-FILTER-ACCEPTED',
      'NG-RESPONSE-SHAPE',
      'RES-MEMBER-NAMES-UNIQUE',
    ]);
  });

  it('judges items, ids and meta where the list holds them', () => {
    const judged = judgedIds(
      listRequest,
      listAnswer({ data: [group], meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 10 } }),
    );
    expect(judged).toEqual(
      expect.arrayContaining([
        'NG-ITEM-SHAPE',
        'RES-ID-STRING',
        'RES-ID-OBJECTID',
        'NG-META-INTEGERS',
        'NG-META-PAGES',
        'NG-PAGE-LENGTH',
        'NG-META-PAGE-NUMBER',
      ]),
    );
  });

  it('judges the ObjectId of every item, even when another member of the document is wrong', () => {
    const request = listRequest;
    const response = listAnswer({
      data: [
        { ...group, id: 'string' },
        { ...group, id: 'string', attributes: { ...group.attributes, groupId: 'Nobody' } },
      ],
    });
    const objectIds = assessExchange(contract, request, response)
      .findings.filter((f) => f.requirement === 'RES-ID-OBJECTID')
      .map((f) => f.pointer);
    expect(objectIds).toEqual(['/data/0/id', '/data/1/id']);
  });

  it('says why a check could not judge a requirement', () => {
    const response = listAnswer({ data: [group], meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 0 } });
    expect(assessExchange(contract, listRequest, response).unjudged).toEqual([
      {
        requirement: 'NG-PAGE-LENGTH',
        location: 'response',
        reason: 'meta.limit was 0 and the request gave no page[limit]',
      },
      {
        requirement: 'NG-META-PAGE-NUMBER',
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
    request: operation.requestBody
      ? {
          ...configRequest({ label: 'Consent' }),
          method: operation.method,
          path: `${contract.basePath}${operation.pathTemplate}`,
          bodyText: JSON.stringify({ data: { type: operation.resourceType, attributes: {} } }),
        }
      : listRequest,
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
