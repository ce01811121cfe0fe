// The rules of docs/certification.md §2 to §5 as probes the reference server's tests run: each case
// cites the requirement it checks and the statuses that satisfy it, and every exchange is also
// judged by the contract. With no fault on, nothing is found; with a fault on, exactly its
// requirement breaks at MUST.
import {
  bodyMembers,
  loadContract,
  SAMPLE_OF_TYPE,
  validateRequest,
  withoutValueAt,
  withValueAt,
  wrongTypes,
  type Finding,
} from '../contract/index.ts';
import { REFERENCE_FIXTURES } from './defaults.ts';
import { expandTrigger } from './faults.ts';
import { judgeExchange, send, type Exchanged, type Probe } from './test-support.ts';
import type { Tokens } from './types.ts';

const JSON_API = 'application/vnd.api+json';
const LIST = '/notification-groups?filter[type]=portal';

type Body = string | Buffer | (() => string);

export interface ProbeSpec {
  method: string;
  path: string;
  /** Credential headers with `{sessionToken}`-style placeholders; absent: the session's default. */
  auth?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Body;
}

export interface StatusCase {
  requirement: string;
  title: string;
  probe: ProbeSpec;
  /** The statuses that satisfy the requirement; absent: only the contract judges the exchange. */
  statuses?: number[];
}

export class ProbeRun {
  readonly findings: Finding[] = [];

  constructor(readonly baseUrl: string, readonly tokens: Tokens, readonly defaultAuth: Record<string, string>) {}

  async exchange(spec: ProbeSpec): Promise<Exchanged> {
    const body = typeof spec.body === 'function' ? spec.body() : spec.body;
    const filled = expandTrigger({ method: spec.method, path: spec.path, headers: { ...(spec.auth ?? this.defaultAuth), ...spec.headers } }, this.tokens);
    const probe: Probe = { method: filled.method, path: filled.path, headers: filled.headers, ...(body === undefined ? {} : { body }) };
    const exchanged = await send(this.baseUrl, probe);
    this.findings.push(...judgeExchange(exchanged));
    return exchanged;
  }

  fail(requirement: string, message: string, expected?: string, actual?: string): void {
    this.findings.push(loadContract().finding(requirement, 'exchange', { message, expected, actual }));
  }
}

// --- Documents -------------------------------------------------------------------------------

let customIdCounter = 0;

/** Every AttributeConfig attribute the contract knows, with the values seen; a fresh customId each time. */
export function fullAttributeConfig(): Record<string, unknown> {
  return {
    data: {
      type: 'AttributeConfig',
      attributes: {
        customId: `profile-${process.pid}-${++customIdCounter}`,
        target: 'User',
        type: 'boolean',
        label: 'Receives the newsletter',
        sublabel: 'Monthly',
        description: 'Whether the user wants the newsletter',
        options: [{ value: 'yes', label: 'Yes' }],
        labelQuestion: 'Do you want the newsletter?',
        registration: { collect: true },
        required: false,
        editPermission: 1,
        viewPermission: 2,
        settings: { link: { display: { asButton: true }, authenticated: false, clickBehavior: 'newWindow' } },
      },
    },
  };
}

export function fullHighlight(): Record<string, unknown> {
  return {
    data: {
      type: 'Highlight',
      attributes: { collectionItemId: REFERENCE_FIXTURES.collectionItemId, color: 'yellow', range: '0-24', summary: 'Key definition' },
      relationships: { owner: { data: { type: 'User', id: REFERENCE_FIXTURES.ownerUserId }, links: { self: '/owner', related: '/users/owner' }, meta: { note: 'x' } } },
    },
  };
}

const CREATES = [
  { operationId: 'createAttributeConfig', path: '/attribute-configs', document: fullAttributeConfig, prefix: 'AC' },
  { operationId: 'createHighlight', path: '/highlights', document: fullHighlight, prefix: 'HL' },
] as const;

const post = (path: string, body: Body, headers: Record<string, string> = { 'Content-Type': JSON_API }, auth?: Record<string, string>): ProbeSpec => ({ method: 'POST', path, headers, body, ...(auth ? { auth } : {}) });
const get = (path: string, auth?: Record<string, string>): ProbeSpec => ({ method: 'GET', path, ...(auth ? { auth } : {}) });
const json = (make: () => unknown) => () => JSON.stringify(make());

// --- Credentials (docs/certification.md §2) ------------------------------------------------------

function credentialCases(legacyHeader: string): StatusCase[] {
  const schemes = [
    { requirement: 'AUTH-SESSION-ACCEPTED', auth: { Authorization: 'Bearer r:{sessionToken}' } },
    { requirement: 'AUTH-PAT-ACCEPTED', auth: { Authorization: 'Bearer p:{pat}' } },
    { requirement: 'AUTH-LEGACY-ACCEPTED', auth: { [legacyHeader]: '{sessionToken}' } },
  ];
  const everyOperation = (auth: Record<string, string>) => [
    get(LIST, auth),
    post('/attribute-configs', json(fullAttributeConfig), undefined, auth),
    post('/highlights', json(fullHighlight), undefined, auth),
  ];
  const rejected = (requirement: string, status: number, title: string, auths: Record<string, string>[]): StatusCase[] =>
    auths.map((auth) => ({ requirement, title: `${title}: ${JSON.stringify(auth)}`, probe: get(LIST, auth), statuses: [status] }));
  return [
    // Accepted means served: a create answered 200 or 202 breaks its own requirement, not the scheme's.
    ...schemes.flatMap(({ requirement, auth }) => everyOperation(auth).map((probe) => ({ requirement, title: `${requirement} on ${probe.method} ${probe.path}`, probe, statuses: probe.method === 'GET' ? [200] : [200, 201, 202] }))),
    ...everyOperation({}).map((probe) => ({ requirement: 'AUTH-401-NO-CREDENTIALS', title: `no credentials on ${probe.method} ${probe.path}`, probe, statuses: [401] })),
    ...rejected('AUTH-401-UNKNOWN-TOKEN', 401, 'unknown token', [{ Authorization: 'Bearer r:unknown-token' }, { Authorization: 'Bearer p:unknown-token' }, { [legacyHeader]: 'unknown-token' }, { [legacyHeader]: '{pat}' }]),
    ...rejected('AUTH-401-MALFORMED', 401, 'malformed Authorization', [
      { Authorization: '{sessionToken}' },
      { Authorization: 'Bearer {sessionToken}' },
      { Authorization: 'Bearer x:{sessionToken}' },
      { Authorization: 'Bearer r:' },
      { Authorization: 'Basic r:{sessionToken}' },
      { [legacyHeader]: '' },
    ]),
    ...rejected('AUTH-401-WRONG-PREFIX', 401, 'token under the other prefix', [{ Authorization: 'Bearer p:{sessionToken}' }, { Authorization: 'Bearer r:{pat}' }]),
    ...rejected('AUTH-403-FORBIDDEN', 403, 'forbidden credential', [{ Authorization: 'Bearer r:{forbiddenToken}' }, { Authorization: 'Bearer p:{forbiddenToken}' }, { [legacyHeader]: '{forbiddenToken}' }]),
    ...[
      get('/notification-groups?filter[type]=bogus', {}),
      get(`${LIST}&page[limit]=0&page[offset]=0`, { Authorization: 'Bearer r:unknown-token' }),
      get('/notification-groups', { Authorization: 'Bearer {sessionToken}' }),
      post('/attribute-configs', '{"data":', undefined, {}),
      post('/highlights', '{"data": 5}', undefined, { Authorization: 'Bearer p:unknown-token' }),
      post('/attribute-configs', json(() => ({ data: { type: 'Highlight' } })), undefined, { Authorization: 'Bearer p:{sessionToken}' }),
    ].map((probe) => ({ requirement: 'AUTH-401-BEFORE-400', title: `unauthenticated and invalid: ${probe.method} ${probe.path}`, probe, statuses: [401] })),
    ...[post('/attribute-configs', json(fullAttributeConfig), undefined, { Authorization: 'Bearer r:{forbiddenToken}' }), post('/highlights', json(fullHighlight), undefined, { [legacyHeader]: '{forbiddenToken}' })].map((probe) => ({
      requirement: 'AUTH-403-FORBIDDEN',
      title: `forbidden credential on ${probe.path}`,
      probe,
      statuses: [403],
    })),
  ];
}

// --- List NotificationGroups (docs/certification.md §4) ------------------------------------------

const listCase = (requirement: string, query: string, statuses?: number[]): StatusCase => ({ requirement, title: `GET /notification-groups${query}`, probe: get(`/notification-groups${query}`), ...(statuses ? { statuses } : {}) });

const LIST_CASES: StatusCase[] = [
  listCase('NG-FILTER-ACCEPTED', '?filter[type]=portal', [200]),
  listCase('NG-FILTER-ACCEPTED', '?filter[type]=user', [200]),
  listCase('NG-FILTER-ACCEPTED', '?filter[type]=user&page[limit]=5&page[offset]=10', [200]),
  ...['', '?filter[type]=', '?filter[type]=admin', '?filter[type]=PORTAL', '?filter=portal', '?filter[type]=portal&filter[type]=user', '?page[limit]=5&page[offset]=0'].map((q) => listCase('NG-FILTER-REQUIRED', q, [400])),
  ...['&page[limit]=5', '&page[offset]=5'].map((q) => listCase('NG-PAGE-BOTH-MEMBERS', `?filter[type]=portal${q}`, [400])),
  ...['&page[limit]=0&page[offset]=0', '&page[limit]=-1&page[offset]=0'].map((q) => listCase('NG-PAGE-LIMIT-MIN', `?filter[type]=portal${q}`, [400])),
  listCase('NG-PAGE-OFFSET-MIN', '?filter[type]=portal&page[limit]=5&page[offset]=-1', [400]),
  ...['&page[limit]=abc&page[offset]=0', '&page[limit]=5&page[offset]=x', '&page[limit]=&page[offset]=0', '&page=5'].map((q) => listCase('NG-PAGE-NOT-A-NUMBER', `?filter[type]=portal${q}`, [400])),
  ...['', '&page[limit]=10&page[offset]=20', '&page[limit]=5&page[offset]=25', '&page[limit]=1&page[offset]=26', '&page[limit]=500&page[offset]=0', '&page[limit]=10&page[offset]=100', '&page[limit]=27&page[offset]=0'].map((q) =>
    listCase('NG-PAGE-LENGTH', `?filter[type]=portal${q}`, [200]),
  ),
  // Which include names exist is not shown (docs/certification.md §4): any answer is judged, none is required.
  listCase('NG-INCLUDE-SHAPE', '?filter[type]=portal&include=owner,recipients'),
];

interface WalkedPage {
  ids: unknown[];
  total: unknown;
}

/** Walks every page with a fixed limit (docs/certification.md §4): each item exactly once, `total` in all, one total. */
async function walkPages(run: ProbeRun, filterType: string, limit: number): Promise<void> {
  const pages: WalkedPage[] = [];
  for (let offset = 0; pages.length < 100; offset += limit) {
    const exchanged = await run.exchange(get(`/notification-groups?filter[type]=${filterType}&page[limit]=${limit}&page[offset]=${offset}`));
    const document = exchanged.json as { data?: unknown; meta?: { total?: unknown } } | undefined;
    // Whether the list is answered at all is the other rules' business.
    if (exchanged.response.status !== 200 || !Array.isArray(document?.data)) return;
    const total = document.meta?.total;
    pages.push({ ids: document.data.map((item: { id?: unknown } | null) => item?.id), total });
    if (document.data.length === 0 || (Number.isInteger(total) && offset + limit >= (total as number))) break;
  }
  const where = `walking ${filterType} with page[limit]=${limit}`;
  const totals = [...new Set(pages.map((p) => p.total))];
  if (totals.length > 1) run.fail('NG-META-TOTAL', `${where}: meta.total differs between pages (${totals.join(', ')})`, 'one total', totals.join(', '));
  const ids = pages.flatMap((p) => p.ids);
  const distinct = new Set(ids);
  if (distinct.size !== ids.length) run.fail('NG-PAGE-WALK', `${where}: ${ids.length - distinct.size} item(s) came more than once`, 'each item once', `${ids.length} items, ${distinct.size} distinct`);
  else if (totals.length === 1 && Number.isInteger(totals[0]) && ids.length !== totals[0]) run.fail('NG-PAGE-WALK', `${where}: ${ids.length} items in all, meta.total says ${String(totals[0])}`, String(totals[0]), String(ids.length));
}

export const WALKS = [
  { filterType: 'portal', limit: 7 },
  { filterType: 'portal', limit: 10 },
  { filterType: 'user', limit: 1 },
  { filterType: 'user', limit: 5 },
];

// --- Create AttributeConfig and Create Highlight (docs/certification.md §5) ----------------------

function createCases(): StatusCase[] {
  const cases: StatusCase[] = [];
  for (const { path, document, prefix } of CREATES) {
    const create = (requirement: string, title: string, body: Body, statuses: number[], headers?: Record<string, string>) => cases.push({ requirement, title: `${path}: ${title}`, probe: post(path, body, headers), statuses });
    create(`${prefix}-CREATE-201`, 'every member', json(document), [201]);
    for (const body of ['', '{}', '{"data":null}', '{"data":[]}', '{"data":"x"}', '[]', '"data"']) create(`${prefix}-DATA-REQUIRED`, `body ${body || '(empty)'}`, body, [400]);
    for (const body of ['{"data":', '{data: 1}', 'nul', '{"data":{}}}']) create('REQ-MALFORMED-JSON', `malformed ${body}`, body, [400]);
    create('REQ-MALFORMED-JSON', 'invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), [400]);
    const otherType = prefix === 'AC' ? 'Highlight' : 'AttributeConfig';
    create(`${prefix}-DATA-TYPE`, `data.type ${otherType}`, json(() => withValueAt(document(), '/data/type', otherType)), [400, 409]);
    create(`${prefix}-DATA-TYPE`, 'data.type missing', json(() => withoutValueAt(document(), '/data/type')), [400, 409]);
    // Other request media types are not shown (docs/certification.md §3): only the contract judges the answer.
    cases.push({ requirement: 'ERR-NO-5XX', title: `${path}: body sent as application/json`, probe: post(path, json(document), { 'Content-Type': 'application/json' }) });
  }
  const ac = (title: string, make: () => unknown, statuses: number[] = [201]) => cases.push({ requirement: 'AC-CREATE-201', title: `/attribute-configs: ${title}`, probe: post('/attribute-configs', json(make)), statuses });
  ac('empty attributes', () => ({ data: { type: 'AttributeConfig', attributes: {} } }));
  ac('relationships', () => withValueAt(fullAttributeConfig(), '/data/relationships', { group: { data: [{ type: 'UserGroup', id: REFERENCE_FIXTURES.ownerUserId }] } }));
  ac('an inUse of its own (ignored)', () => withValueAt(fullAttributeConfig(), '/data/attributes/inUse', true));
  ac('an attribute the contract does not name', () => withValueAt(fullAttributeConfig(), '/data/attributes/colour', 'blue'));
  cases.push({ requirement: 'AC-ATTRIBUTES-REQUIRED', title: '/attribute-configs: no attributes', probe: post('/attribute-configs', json(() => withoutValueAt(fullAttributeConfig(), '/data/attributes'))), statuses: [400] });
  const hl = (title: string, make: () => unknown) => cases.push({ requirement: 'HL-CREATE-201', title: `/highlights: ${title}`, probe: post('/highlights', json(make)), statuses: [201] });
  hl('type only', () => ({ data: { type: 'Highlight' } }));
  hl('no relationships', () => withoutValueAt(fullHighlight(), '/data/relationships'));
  hl('no attributes', () => withoutValueAt(fullHighlight(), '/data/attributes'));
  for (const [title, make] of [
    ['owner of type Group', () => withValueAt(fullHighlight(), '/data/relationships/owner/data/type', 'Group')],
    ['owner without type', () => withoutValueAt(fullHighlight(), '/data/relationships/owner/data/type')],
  ] as const) {
    cases.push({ requirement: 'HL-OWNER-TYPE', title: `/highlights: ${title}`, probe: post('/highlights', json(make)), statuses: [400] });
  }
  return [...cases, ...typeMismatchCases()];
}

/** Every typed body member with every JSON type it does not allow, cited as the contract routes it. */
function typeMismatchCases(): StatusCase[] {
  const contract = loadContract();
  const cases: StatusCase[] = [];
  for (const { operationId, path, document } of CREATES) {
    const operation = contract.operation(operationId);
    for (const member of bodyMembers(operation)) {
      for (const type of wrongTypes(member)) {
        const make = () => withValueAt(document(), member.pointer, SAMPLE_OF_TYPE[type]);
        const bodyText = JSON.stringify(make());
        const [first] = validateRequest(contract, operation, { method: 'POST', path: `${contract.basePath}${path}`, headers: { authorization: 'Bearer r:x', 'content-type': JSON_API }, bodyText });
        if (!first) continue;
        const statuses = first.pointer === '/data/type' ? [400, 409] : [400];
        cases.push({ requirement: first.requirement, title: `${path}: ${member.pointer} as ${type}`, probe: post(path, json(make)), statuses });
      }
    }
  }
  return cases;
}

// --- Running them --------------------------------------------------------------------------------

export function profileCases(legacyHeader = loadContract().legacyHeader): StatusCase[] {
  return [...credentialCases(legacyHeader), ...LIST_CASES, ...createCases()];
}

export async function runCase(run: ProbeRun, testCase: StatusCase): Promise<void> {
  const exchanged = await run.exchange(testCase.probe);
  const status = exchanged.response.status;
  if (testCase.statuses && !testCase.statuses.includes(status)) {
    run.fail(testCase.requirement, `${testCase.title}: expected ${testCase.statuses.join(' or ')}, got ${status}`, testCase.statuses.join(' or '), String(status));
  }
}

export async function runWalks(run: ProbeRun): Promise<void> {
  for (const { filterType, limit } of WALKS) await walkPages(run, filterType, limit);
}

/** Runs every case and walk against one server; returns what was found. */
export async function runProfile(run: ProbeRun): Promise<Finding[]> {
  for (const testCase of profileCases()) await runCase(run, testCase);
  await runWalks(run);
  return run.findings;
}

