// The one judging path: what it judges, what it leaves alone, and how it judges a request the
// contract rejects that a server served anyway.
import { describe, expect, it } from 'vitest';
import { judgeExchange, judgeRequest, type Finding, type HttpRequest, type HttpResponse } from './index.ts';
import { contract, credentials, jsonApi } from './test-support.ts';

const ids = (findings: Finding[]) => findings.map((f) => `${f.location} ${f.requirement} ${f.level}`);
const configRequest = (attributes: unknown): HttpRequest => ({ method: 'POST', path: '/v3/attribute-configs', headers: { ...credentials, ...jsonApi }, bodyText: JSON.stringify({ data: { type: 'AttributeConfig', attributes } }) });
const created = (attributes: unknown, headers = jsonApi): HttpResponse => ({ status: 201, headers, bodyText: JSON.stringify({ data: { id: 'not-an-object-id', type: 'AttributeConfig', attributes } }) });

describe('judgeExchange', () => {
  it('judges nothing outside the base path', () => {
    const judged = judgeRequest(contract, { method: 'GET', path: '/health', headers: {} });
    expect(judged).toMatchObject({ inApi: false, operation: null, findings: [] });
    expect(judgeExchange(contract, { method: 'GET', path: '/health', headers: {} }, { status: 500, headers: {}, bodyText: 'down' })).toEqual([]);
  });

  it('judges traffic to an unspecified operation by the generic rules, and says so', () => {
    const findings = judgeExchange(contract, { method: 'GET', path: '/v3/users/1', headers: credentials }, { status: 200, headers: jsonApi, bodyText: '{"data":null}' });
    expect(ids(findings)).toEqual(['request GEN-UNSPECIFIED-OPERATION INFO']);
  });

  it('judges the body of a served valid request', () => {
    expect(ids(judgeExchange(contract, configRequest({ label: 'Consent' }), created({ label: 'Consent' })))).toEqual(['response AC-RESPONSE-INUSE MUST']);
  });

  it('judges a served request the contract rejects once, under what serving it breaks, and not its body as well', () => {
    const findings = judgeExchange(contract, configRequest({ label: 5 }), created({ label: 5 }));
    expect(ids(findings)).toEqual(['request AC-TYPE-MISMATCH MUST', 'exchange AC-TYPE-MISMATCH MUST']);
  });

  it('still judges the media type of that response, which does not depend on the request', () => {
    const findings = judgeExchange(contract, configRequest({ label: 5 }), created({ label: 5 }, { 'content-type': 'application/json' }));
    expect(ids(findings)).toEqual(['request AC-TYPE-MISMATCH MUST', 'response MEDIA-TYPE-RESPONSE MUST', 'exchange AC-TYPE-MISMATCH MUST']);
  });
});
