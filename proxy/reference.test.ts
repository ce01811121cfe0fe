// The proxy in front of the reference server. Without faults, scripted traffic over the contract's
// operations and the three credential schemes yields request findings for exactly the invalid
// requests and nothing on the response side; with each fault a single exchange shows, its trigger
// yields a response or exchange finding naming the requirement the fault breaks.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  bodyMembers,
  filterRequired,
  includeNames,
  INCLUDE_PARAMETER,
  MEDIA_TYPE,
  SAMPLE_OF_TYPE,
  servedFilterMember,
  withValueAt,
  wrongTypes,
  type Operation,
} from '../contract/index.ts';
import {
  contract,
  createWithoutRecord,
  createWithRecord,
  describeWith,
  documentExample,
  list,
  listTarget,
  unallowedFilter,
} from '../contract/test-support.ts';
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

const credentials = {
  session: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` },
  pat: { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}` },
  legacy: { [contract.legacyHeader]: DEFAULT_CREDENTIALS.sessionToken },
  forbidden: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.forbiddenToken}` },
  unknown: { authorization: 'Bearer r:a-token-nobody-issued' },
  none: {},
};
/** A type no operation of the contract takes. */
const OTHER_TYPE = 'Group';
/** An include name for a list whose contract shows none: any may be sent. */
const ANY_INCLUDE = 'owner';

interface ScriptedExchange {
  name: string;
  path: string;
  request: RawRequest;
  /** The requirement the request breaks; undefined for a valid request. */
  breaks?: string;
  /** A response-side warning a choice the specification leaves open may bring (rule zero: warn, never fail). */
  mayWarn?: string;
}

const get = (
  path: string,
  headers: Record<string, string>,
  breaks?: string,
  name = `list ${path}`,
): ScriptedExchange => ({
  name,
  path,
  request: { headers },
  breaks,
});
const post = (
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

/** What a list is sent: each allowed value of its filter, pages, an include; then what it refuses. */
function listScript(list: Operation): ScriptedExchange[] {
  const target = listTarget(list);
  const member = servedFilterMember(list);
  const byValue = (member?.values ?? []).map((value) =>
    target.replace(new RegExp(`(filter\\[${member!.name}\\]=)[^&]*`), `$1${encodeURIComponent(value)}`),
  );
  const include = list.parameters.some((p) => p.name === INCLUDE_PARAMETER)
    ? `&${INCLUDE_PARAMETER}=${includeNames(list)[0] ?? ANY_INCLUDE}`
    : '';
  const roles = list.roles;
  const unallowed = unallowedFilter(list);
  return [
    ...byValue.map((path, i) => get(path, i % 2 === 0 ? credentials.session : credentials.pat)),
    get(listTarget(list, { limit: 5, offset: 10 }), credentials.legacy),
    get(`${listTarget(list, { limit: 100, offset: 0 })}${include}`, credentials.session),
    get(target, credentials.forbidden, undefined, 'list with the forbidden credential'),
    get(target, credentials.unknown, undefined, 'list with an unknown token'),
    ...(filterRequired(list) ? [get(list.pathTemplate, credentials.session, roles.filterRequired)] : []),
    ...(unallowed ? [get(unallowed.target, credentials.pat, roles.filterRequired)] : []),
    get(`${target}&page[limit]=5`, credentials.legacy, roles.pageBothMembers),
    get(`${target}&page[limit]=0&page[offset]=0`, credentials.session, roles.pageLimitMin),
    get(`${target}&page[limit]=10&page[offset]=-1`, credentials.session, roles.pageOffsetMin),
    get(`${target}&page[limit]=ten&page[offset]=0`, credentials.session, roles.pageNotANumber),
    get(target, credentials.none, 'AUTH-CREDENTIALS-PRESENT', 'list without credentials'),
    get(
      target,
      { authorization: `Bearer ${DEFAULT_CREDENTIALS.sessionToken}` },
      'AUTH-401-MALFORMED',
      'list with a malformed Authorization',
    ),
    ...(unallowed
      ? [get(unallowed.target, credentials.none, 'AUTH-CREDENTIALS-PRESENT', 'an invalid list without credentials')]
      : []),
  ];
}

type Document = { data: Record<string, unknown> & { relationships?: Record<string, unknown> } };

/** The complete example of a create's document, naming the reference server's records. */
function validDocument(create: Operation): Document {
  return bodyMembers(create)
    .filter((m) => m.record !== undefined && REFERENCE_FIXTURES[m.record] !== undefined)
    .reduce<unknown>(
      (document, m) => withValueAt(document, m.pointer, REFERENCE_FIXTURES[m.record!]),
      documentExample(create),
    ) as Document;
}

/** The requirement a request's document breaks with `keyword` failing at `pointer`. */
const brokenAt = (create: Operation, keyword: string, pointer: string) =>
  contract.routeFor({ operation: create.operationId, location: 'request', keyword, pointer }).requirement.id;

/** The first attribute of a create's document with a type, and a JSON type it does not take. */
function mistypedAttribute(create: Operation): { pointer: string; value: unknown } | undefined {
  const member = bodyMembers(create).find(
    (m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer) && wrongTypes(m).length > 0,
  );
  return (
    member && {
      pointer: member.pointer,
      value: SAMPLE_OF_TYPE[wrongTypes(member).find((t) => t !== 'null') ?? wrongTypes(member)[0]],
    }
  );
}

/** Relationship variants section 2.1 allows: a relationship's data may be null, and no member of it is required. */
function relationshipScript(create: Operation, document: Document): ScriptedExchange[] {
  const [name, relationship] = Object.entries(document.data.relationships ?? {})[0] ?? [];
  if (name === undefined) return [];
  const links = (relationship as { links?: unknown }).links;
  const withRelationship = (value: unknown) => ({
    data: { ...document.data, relationships: { ...document.data.relationships, [name]: value } },
  });
  return [
    post(
      create.pathTemplate,
      withRelationship({ data: null }),
      credentials.session,
      undefined,
      `create ${create.pathTemplate} whose ${name} data is null`,
    ),
    ...(links === undefined
      ? []
      : [
          post(
            create.pathTemplate,
            withRelationship({ links }),
            credentials.pat,
            undefined,
            `create ${create.pathTemplate} whose ${name} has links only`,
          ),
        ]),
  ];
}

/** A relationship naming a record, given a type the contract does not take there. */
function mistypedRecord(create: Operation, document: Document): ScriptedExchange[] {
  const record = bodyMembers(create).find(
    (m) => m.record !== undefined && /^\/data\/relationships\/[^/]+\/data\/id$/.test(m.pointer),
  );
  if (record === undefined) return [];
  const pointer = record.pointer.replace(/id$/, 'type');
  const typeMember = bodyMembers(create).find((m) => m.pointer === pointer);
  const keyword = typeMember?.const !== undefined ? 'const' : 'enum';
  return [
    post(
      create.pathTemplate,
      withValueAt(document, pointer, OTHER_TYPE),
      credentials.pat,
      brokenAt(create, keyword, pointer),
      `create ${create.pathTemplate} whose record at ${pointer} is a ${OTHER_TYPE}`,
    ),
  ];
}

/** What a create is sent: its complete example with each scheme, the relationships 2.1 allows; then what it refuses. */
function createScript(create: Operation): ScriptedExchange[] {
  const path = create.pathTemplate;
  const document = validDocument(create);
  const attributes = bodyMembers(create).find((m) => m.pointer === '/data/attributes');
  const typeMember = bodyMembers(create).find((m) => m.pointer === '/data/type');
  const mistyped = mistypedAttribute(create);
  return [
    post(path, document, credentials.session),
    post(path, document, credentials.legacy, undefined, `create ${path}, legacy header`),
    post(path, document, credentials.pat, undefined, `create ${path}, personal access token`),
    ...(attributes?.required === false
      ? [post(path, { data: { type: create.resourceType } }, credentials.session, undefined, `create a bare ${path}`)]
      : []),
    ...relationshipScript(create, document),
    post(
      path,
      { data: { ...document.data, type: OTHER_TYPE } },
      credentials.session,
      brokenAt(create, typeMember?.const !== undefined ? 'const' : 'enum', '/data/type'),
      `create ${path} of the wrong type`,
    ),
    ...(attributes?.required
      ? [
          post(
            path,
            { data: { type: create.resourceType } },
            credentials.pat,
            brokenAt(create, 'required', '/data/attributes'),
            `create ${path} without attributes`,
          ),
        ]
      : []),
    ...(mistyped
      ? [
          post(
            path,
            withValueAt(document, mistyped.pointer, mistyped.value),
            credentials.legacy,
            brokenAt(create, 'type', mistyped.pointer),
            `create ${path} with a value of the wrong type at ${mistyped.pointer}`,
          ),
        ]
      : []),
    post(path, '{"data": {"type": ', credentials.session, 'REQ-MALFORMED-JSON', `create ${path} from malformed JSON`),
    ...mistypedRecord(create, document),
    post(
      path,
      { data: create.resourceType },
      credentials.session,
      brokenAt(create, 'type', '/data'),
      `create ${path} whose data is a string`,
    ),
    // Other request media types are not shown (docs/certification.md §3): the reference server answers JSON:API's
    // 415, which the operation does not list, so EXCH-STATUS-LISTED may warn.
    {
      ...post(
        path,
        document,
        { ...credentials.session, 'content-type': 'application/json' },
        'MEDIA-TYPE-REQUEST',
        `create ${path} sent as application/json`,
      ),
      mayWarn: 'EXCH-STATUS-LISTED',
    },
  ];
}

/** A create of each kind, with a record and without: those whose complete examples the contract holds. */
const scriptedCreates = [...new Set([createWithoutRecord, createWithRecord])].filter(
  (operation): operation is Operation => operation !== undefined,
);
const script: ScriptedExchange[] = [
  ...(list === undefined ? [] : listScript(list)),
  ...scriptedCreates.flatMap(createScript),
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

  describeWith(list, 'list')('relays byte for byte', (list) => {
    const identical: { name: string; path: string; headers: Record<string, string> }[] = [
      { name: 'a page of the list', path: listTarget(list, { limit: 10, offset: 20 }), headers: credentials.session },
      ...(unallowedFilter(list)
        ? [{ name: 'a 400', path: unallowedFilter(list)!.target, headers: credentials.pat }]
        : []),
      { name: 'a 401', path: listTarget(list), headers: credentials.none },
      { name: 'a 403', path: listTarget(list), headers: credentials.forbidden },
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
