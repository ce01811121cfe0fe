// The proxy in front of the reference server. Without faults, scripted traffic over the three
// operations and the three credential schemes yields request findings for exactly the invalid
// requests and nothing on the response side; with each fault a single exchange shows, its trigger
// yields a response or exchange finding naming the requirement the fault breaks.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  DEFAULT_CREDENTIALS,
  expandTrigger,
  FAULTS,
  REFERENCE_FIXTURES,
  startReferenceServer,
} from '../server/index.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { exchangeHash, Recorder, send, type RawRequest } from './test-support.ts';
import type { ViolationRecord } from './violations.ts';

const MEDIA_TYPE = 'application/vnd.api+json';
const credentials = {
  session: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` },
  pat: { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` },
  legacy: { 'x-svc-session-token': DEFAULT_CREDENTIALS.sessionToken },
  forbidden: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.forbiddenToken}` },
  unknown: { authorization: 'Bearer r:a-token-nobody-issued' },
  none: {},
};

const attributeConfig = {
  type: 'AttributeConfig',
  attributes: { target: 'User', type: 'boolean', label: 'Receives the newsletter', required: false },
};
const highlight = {
  type: 'Highlight',
  attributes: {
    collectionItemId: REFERENCE_FIXTURES.collectionItemId,
    color: 'yellow',
    range: '0-24',
    summary: 'Key definition',
  },
  relationships: { owner: { data: { type: 'User', id: REFERENCE_FIXTURES.ownerUserId } } },
};

interface ScriptedExchange {
  name: string;
  path: string;
  request: RawRequest;
  /** The requirement the request breaks; undefined for a valid request. */
  breaks?: string;
  /** A response-side warning a choice the specification leaves open may bring (rule zero: warn, never fail). */
  mayWarn?: string;
}

const list = (
  query: string,
  headers: Record<string, string>,
  breaks?: string,
  name = `list ${query}`,
): ScriptedExchange => ({ name, path: `/notification-groups${query}`, request: { headers }, breaks });
const create = (
  path: string,
  document: unknown,
  headers: Record<string, string>,
  breaks?: string,
  name = `create ${path}`,
): ScriptedExchange => ({
  name,
  path,
  request: {
    method: 'POST',
    headers: { 'content-type': MEDIA_TYPE, ...headers },
    body: typeof document === 'string' ? document : JSON.stringify(document),
  },
  breaks,
});

const script: ScriptedExchange[] = [
  list('?filter[type]=portal', credentials.session),
  list('?filter[type]=user', credentials.pat),
  list('?filter[type]=portal&page[limit]=5&page[offset]=10', credentials.legacy),
  list('?filter[type]=user&page[limit]=100&page[offset]=0&include=owner', credentials.session),
  list('?filter[type]=portal', credentials.forbidden, undefined, 'list with the forbidden credential'),
  list('?filter[type]=portal', credentials.unknown, undefined, 'list with an unknown token'),
  create('/attribute-configs', { data: attributeConfig }, credentials.session),
  create(
    '/attribute-configs',
    { data: attributeConfig },
    credentials.legacy,
    undefined,
    'create AttributeConfig, legacy header',
  ),
  create('/highlights', { data: highlight }, credentials.pat),
  create('/highlights', { data: { type: 'Highlight' } }, credentials.session, undefined, 'create a bare Highlight'),
  // Section 2.1: a relationship's data may be null and no member of a relationship object is required.
  create(
    '/highlights',
    { data: { ...highlight, relationships: { owner: { data: null } } } },
    credentials.session,
    undefined,
    'create a Highlight whose owner data is null',
  ),
  create(
    '/highlights',
    {
      data: {
        ...highlight,
        relationships: { owner: { links: { related: `/v3/users/${REFERENCE_FIXTURES.ownerUserId}` } } },
      },
    },
    credentials.pat,
    undefined,
    'create a Highlight whose owner has links only',
  ),
  list('', credentials.session, 'NG-FILTER-REQUIRED'),
  list('?filter[type]=everyone', credentials.pat, 'NG-FILTER-REQUIRED'),
  list('?filter[type]=portal&page[limit]=5', credentials.legacy, 'NG-PAGE-BOTH-MEMBERS'),
  list('?filter[type]=portal&page[limit]=0&page[offset]=0', credentials.session, 'NG-PAGE-LIMIT-MIN'),
  list('?filter[type]=portal&page[limit]=10&page[offset]=-1', credentials.session, 'NG-PAGE-OFFSET-MIN'),
  list('?filter[type]=portal&page[limit]=ten&page[offset]=0', credentials.session, 'NG-PAGE-NOT-A-NUMBER'),
  list('?filter[type]=portal', credentials.none, 'AUTH-CREDENTIALS-PRESENT', 'list without credentials'),
  list(
    '?filter[type]=portal',
    { authorization: `Bearer ${DEFAULT_CREDENTIALS.sessionToken}` },
    'AUTH-401-MALFORMED',
    'list with a malformed Authorization',
  ),
  list('?filter[type]=everyone', credentials.none, 'AUTH-CREDENTIALS-PRESENT', 'an invalid list without credentials'),
  create(
    '/attribute-configs',
    { data: { ...attributeConfig, type: 'Highlight' } },
    credentials.session,
    'AC-DATA-TYPE',
    'create AttributeConfig of the wrong type',
  ),
  create(
    '/attribute-configs',
    { data: { type: 'AttributeConfig' } },
    credentials.pat,
    'AC-ATTRIBUTES-REQUIRED',
    'create AttributeConfig without attributes',
  ),
  create(
    '/attribute-configs',
    { data: { ...attributeConfig, attributes: { required: 'yes' } } },
    credentials.legacy,
    'AC-TYPE-MISMATCH',
    'create AttributeConfig with a string for a boolean',
  ),
  create(
    '/attribute-configs',
    '{"data": {"type": ',
    credentials.session,
    'REQ-MALFORMED-JSON',
    'create AttributeConfig from malformed JSON',
  ),
  create(
    '/highlights',
    {
      data: { ...highlight, relationships: { owner: { data: { type: 'Group', id: REFERENCE_FIXTURES.ownerUserId } } } },
    },
    credentials.pat,
    'HL-OWNER-TYPE',
    'create Highlight owned by a Group',
  ),
  create(
    '/highlights',
    { data: 'Highlight' },
    credentials.session,
    'HL-DATA-REQUIRED',
    'create Highlight whose data is a string',
  ),
  // Other request media types are not shown (docs/certification.md §3): the reference server answers JSON:API's
  // 415, which the operation does not list, so EXCH-STATUS-LISTED may warn.
  {
    ...create(
      '/highlights',
      { data: highlight },
      { ...credentials.session, 'content-type': 'application/json' },
      'MEDIA-TYPE-REQUEST',
      'create Highlight sent as application/json',
    ),
    mayWarn: 'EXCH-STATUS-LISTED',
  },
];

describe('in front of the reference server without faults', () => {
  let upstream: Awaited<ReturnType<typeof startReferenceServer>>;
  let proxy: StartedProxy;
  const violations = new Recorder();

  beforeAll(async () => {
    upstream = await startReferenceServer({ port: 0 });
    // Every finding written (no folding of repeats): each case reads what its own exchange found.
    proxy = await startValidatingProxy({ upstream: upstream.baseUrl, violations, repeatInterval: 0 });
    for (const [index, exchange] of script.entries()) {
      await send(`${proxy.baseUrl}${exchange.path}`, {
        ...exchange.request,
        headers: { ...exchange.request.headers, 'x-request-id': `script-${index}` },
      });
    }
    await proxy.proxy.settled();
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  const lines = () => violations.lines<ViolationRecord>();

  for (const [index, exchange] of script.entries()) {
    test(`${exchange.name}: ${exchange.breaks ? `request findings naming ${exchange.breaks}` : 'no request finding'}`, () => {
      const rules = lines()
        .filter((l) => l.requestId === `script-${index}` && l.direction === 'request')
        .map((l) => l.rule);
      if (exchange.breaks) expect(rules).toContain(exchange.breaks);
      else expect(rules).toEqual([]);
    });
  }

  // INFO findings are observations (deprecated meta members sent), not violations.
  test('no response or exchange finding above INFO, but for warnings a script entry allows', () => {
    const allowed = (l: ViolationRecord) =>
      l.level === 'INFO' ||
      (l.level === 'SHOULD' && script[Number(l.requestId.replace('script-', ''))].mayWarn === l.rule);
    expect(
      lines()
        .filter((l) => l.direction !== 'request' && !allowed(l))
        .map((l) => `${l.requestId} ${l.rule}: ${l.message}`),
    ).toEqual([]);
  });

  const identical: { name: string; path: string; headers: Record<string, string> }[] = [
    {
      name: 'a page of the list',
      path: '/notification-groups?filter[type]=portal&page[limit]=10&page[offset]=20',
      headers: credentials.session,
    },
    { name: 'a 400', path: '/notification-groups?filter[type]=everyone', headers: credentials.pat },
    { name: 'a 401', path: '/notification-groups?filter[type]=portal', headers: credentials.none },
    { name: 'a 403', path: '/notification-groups?filter[type]=portal', headers: credentials.forbidden },
  ];
  for (const c of identical) {
    // Two fetches a moment apart may straddle a second, so only Date is left out of the comparison.
    test(`relays ${c.name} byte for byte`, async () => {
      const direct = await send(`${upstream.baseUrl}${c.path}`, { headers: c.headers });
      const proxied = await send(`${proxy.baseUrl}${c.path}`, { headers: c.headers });
      expect(exchangeHash(proxied, ['date'])).toBe(exchangeHash(direct, ['date']));
    });
  }
});

describe('in front of the reference server with a fault', () => {
  const detectable = FAULTS.filter((fault) => fault.detectableInOneExchange && fault.trigger);

  test('the catalogue has faults a single exchange shows', () => {
    expect(detectable.length).toBeGreaterThan(10);
  });

  for (const fault of detectable) {
    test(`${fault.name}: a response or exchange finding names ${fault.requirement}`, async () => {
      const upstream = await startReferenceServer({ port: 0, faults: [fault.name] });
      const violations = new Recorder();
      const proxy = await startValidatingProxy({ upstream: upstream.baseUrl, violations, repeatInterval: 0 });
      try {
        const trigger = expandTrigger(fault.trigger!, DEFAULT_CREDENTIALS);
        await send(`${proxy.baseUrl}${trigger.path}`, {
          method: trigger.method,
          headers: trigger.headers,
          body: trigger.body === '' ? undefined : trigger.body,
        });
        await proxy.proxy.settled();
        expect(
          violations
            .lines<ViolationRecord>()
            .filter((l) => l.direction !== 'request')
            .map((l) => l.rule),
        ).toContain(fault.requirement);
      } finally {
        await proxy.close();
        await upstream.close();
      }
    });
  }
});
