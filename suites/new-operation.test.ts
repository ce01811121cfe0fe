// The proof that an operation is defined once, in the contract: suites/new-operation.yaml adds a
// create operation (POST /zz-proof-annotations) naming a kind of record the kit has never seen
// (zzProofShelfId), a list whose filter has another member than type (GET /zz-proof-shades,
// after List NotificationGroups) and a list filtered on the id of a record, a member with no
// allowed values (GET /zz-proof-marks) to a copy of schemas/, as data only. In this process, with no other change to
// the kit, the suite generates the cases
// of each new operation, the reference server serves it, the proxy judges its traffic under its
// own ids, generic faults on it fail the run under its own requirement, and no requirement is passed
// without a judged exchange (the record's judged counts) that can break it; the new kind of record
// is given by the flag, variable and target-file key its name derives, and a target that gives
// none has the creation cases needing one reported not run, naming them. The removal of each
// operation in turn is suites/removal.test.ts.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { useSchemaDirectory } from '../contract/contract.ts';
import { isTemplateUse } from '../contract/catalogue.ts';
import type { Fixtures } from '../targets/target.ts';
import { contractCopy, type ContractChange } from '../test-support/contract-copy.ts';

const addition = parseYaml(
  readFileSync(new URL('./new-operation.yaml', import.meta.url), 'utf8'),
) as Required<ContractChange>;

// Every part of the kit reads the one process-wide contract: point it at the copy before any
// module that loads it is imported.
const directory = contractCopy(addition);
useSchemaDirectory(directory);
const { judgeExchange, loadContract, MEDIA_TYPE, recordMembers, resolvePointer, withValueAt, withoutValueAt } =
  await import('../contract/index.ts');
const { creationCases } = await import('./cases/creation.ts');
const { credentialCases } = await import('./cases/credentials.ts');
const { errorEnvelopeCases } = await import('./cases/error-envelope.ts');
const { requestDocumentCases } = await import('./cases/request-documents.ts');
const { typeMismatchCases } = await import('./cases/type-mismatch.ts');
const { SUITE_CASES } = await import('./cases/index.ts');
const SUITE_CASES_BY_CONCERN = {
  filterCases: (await import('./cases/filter.ts')).filterCases,
  paginationCases: (await import('./cases/pagination.ts')).paginationCases,
};
const { filterQuery } = await import('./operations.ts');
const { completeDocument } = await import('./documents.ts');
const { recordAgainst: recordOfCases } = await import('../test-support/in-process-run.ts');
const { settingRows } = await import('../targets/settings.ts');
const { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer } = await import('../server/index.ts');
const { referenceTarget, send } = await import('../server/test-support.ts');
const { startValidatingProxy } = await import('../proxy/proxy.ts');
const { Recorder } = await import('../proxy/test-support.ts');

type SuiteCase = (typeof SUITE_CASES)[number];
type RunOptions = NonNullable<Parameters<typeof recordOfCases>[2]>;
type SentRequest = NonNullable<RunOptions['sent']>[number];
type CaseOutcome = NonNullable<RunOptions['outcomes']>[number];

const contract = loadContract();
const operationId = 'zzProofCreateAnnotation';
const operation = contract.operation(operationId);
const ownRequirements = contract.requirements.map((r) => r.id).filter((id) => id.startsWith('ZZPROOF-AN-'));
const ownCases = SUITE_CASES.filter((c) => c.title.startsWith(`${operationId}:`));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * The certification record of `cases` (the operation's own, by default) against the reference server with `faults` on.
 */
function recordAgainst(faults: string[], cases: readonly SuiteCase[] = ownCases, options: RunOptions = {}) {
  return recordOfCases(faults, cases, options);
}

const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`, 'content-type': MEDIA_TYPE };
const createdDocument = () => completeDocument(operation, REFERENCE_FIXTURES, 'proof');

/**
 * Runs `cases` against the reference server: every case passes, and each of `requirements` is
 * passed on judged exchanges with none broken (an INFO requirement's observations are findings
 * too: only a MUST or a SHOULD is broken by one).
 */
async function expectPassedOnJudgedExchanges(
  cases: readonly SuiteCase[],
  requirements: readonly string[],
): Promise<void> {
  const record = await recordAgainst([], cases);
  expect(record.cases).toMatchObject({ total: cases.length, failed: 0, notRun: 0 });
  const broken = (r: { level: string; broken: number }) => (r.level === 'INFO' ? 0 : r.broken);
  const verdicts = record.requirements
    .filter((r) => requirements.includes(r.id))
    .map((r) => [r.id, r.verdict, (r.judged ?? 0) > 0, broken(r)]);
  expect(verdicts).toEqual(requirements.map((id) => [id, 'passed', true, 0]));
}

describe('a create operation added to the contract as data only', () => {
  it('is in the contract with the requirement of each of its roles', () => {
    expect(contract.requirementOf(operation, 'success')?.id).toBe('ZZPROOF-AN-CREATE-201');
    expect(contract.requirementOf(operation, 'relationshipsEcho')?.id).toBe('ZZPROOF-AN-RESPONSE-RELATIONSHIPS');
  });

  const tables = {
    creation: creationCases,
    credentials: credentialCases,
    'error envelope': errorEnvelopeCases,
    'request documents': requestDocumentCases,
    'type mismatch': typeMismatchCases,
  };
  for (const [concern, table] of Object.entries(tables)) {
    it(`gets its ${concern} cases from the suite's table`, () => {
      expect(table.filter((c) => c.title.startsWith(`${operationId}:`)).length).toBeGreaterThan(0);
    });
  }

  it('is served by the reference server, every one of its cases passes, and each of its requirements is passed on exchanges a judge judged, none broken', async () => {
    const record = await recordAgainst([]);
    expect(record.cases).toMatchObject({ total: ownCases.length, failed: 0, notRun: 0 });
    const verdicts = record.requirements
      .filter((r) => ownRequirements.includes(r.id))
      .map((r) => [r.id, r.verdict, r.cases > 0, (r.judged ?? 0) > 0, r.broken]);
    expect(verdicts).toEqual(ownRequirements.map((id) => [id, 'passed', true, true, 0]));
  });

  it('is bound, requirement by requirement, to judges that can break it: its judgedBy, its schema routes, or the checks judging its roles', async () => {
    const { judgesOf } = await import('../contract/checks/index.ts');
    expect(ownRequirements.filter((id) => judgesOf(contract, id).length === 0)).toEqual([]);
    expect(judgesOf(contract, 'ZZPROOF-AN-RESPONSE-RELATIONSHIPS')).toContain('createdResourceEchoes');
    expect(judgesOf(contract, 'ZZPROOF-AN-CREATE-201')).toContain('unlistedSuccess');
  });

  it('fails the run under its own requirement when the generic fault relationships-dropped is on', async () => {
    const record = await recordAgainst(['relationships-dropped']);
    expect(record.verdict).toBe('failed');
    expect(record.requirements.find((r) => r.id === 'ZZPROOF-AN-RESPONSE-RELATIONSHIPS')).toMatchObject({
      verdict: 'failed',
      broken: expect.any(Number),
    });
    expect(record.requirements.find((r) => r.id === 'ZZPROOF-AN-RESPONSE-RELATIONSHIPS')!.broken).toBeGreaterThan(0);
  });

  it("is judged by the proxy: a client's wrong data.type under ZZPROOF-AN-DATA-TYPE, a created answer without relationships under ZZPROOF-AN-RESPONSE-RELATIONSHIPS", async () => {
    const rules = await rulesLoggedFor([createdDocument(), withValueAt(createdDocument(), '/data/type', 'Highlight')]);
    expect(rules).toEqual(
      expect.arrayContaining(['request ZZPROOF-AN-DATA-TYPE', 'response ZZPROOF-AN-RESPONSE-RELATIONSHIPS']),
    );
  });

  // How each requirement of the addition is broken, on the request or on a real created answer.
  const breaks: Record<
    string,
    { request?: (document: unknown) => unknown; answer?: (status: number, document: unknown) => [number, unknown] }
  > = {
    'ZZPROOF-AN-DATA-REQUIRED': { request: (d) => withoutValueAt(d, '/data') },
    'ZZPROOF-AN-DATA-TYPE': { request: (d) => withValueAt(d, '/data/type', 'Note') },
    'ZZPROOF-AN-OWNER-TYPE': { request: (d) => withValueAt(d, '/data/relationships/owner/data/type', 'Group') },
    'ZZPROOF-AN-SHELF-REQUIRED': { request: (d) => withoutValueAt(d, '/data/relationships/shelf') },
    'ZZPROOF-AN-TYPE-MISMATCH': { request: (d) => withValueAt(d, '/data/attributes/pinned', 'yes') },
    'ZZPROOF-AN-CREATE-201': { answer: (_, d) => [200, d] },
    'ZZPROOF-AN-RESPONSE-SHAPE': { answer: (status, d) => [status, withValueAt(d, '/data/type', 'annotation')] },
    'ZZPROOF-AN-RESPONSE-ARCHIVED': { answer: (status, d) => [status, withoutValueAt(d, '/data/attributes/archived')] },
    'ZZPROOF-AN-RESPONSE-RELATIONSHIPS': { answer: (status, d) => [status, withoutValueAt(d, '/data/relationships')] },
    'ZZPROOF-AN-ATTRIBUTES-ECHO': {
      answer: (status, d) => [status, withValueAt(d, '/data/attributes/note', 'another note')],
    },
  };

  it('names how each of its requirements is broken here, so none goes unjudged', () => {
    expect(Object.keys(breaks).sort()).toEqual([...ownRequirements].sort());
  });

  for (const [id, broken] of Object.entries(breaks)) {
    it(`has ${id} judged by the contract: an exchange that breaks it is reported under it`, async () => {
      const server = await startReferenceServer();
      try {
        const created = await send(server.baseUrl, {
          method: 'POST',
          path: operation.pathTemplate,
          headers: session,
          body: JSON.stringify(createdDocument()),
        });
        expect(created.response.status).toBe(201);
        const requestDocument = broken.request ? broken.request(createdDocument()) : createdDocument();
        const [status, answer] = broken.answer
          ? broken.answer(created.response.status, created.json)
          : [201, created.json];
        const request = { ...created.request, bodyText: JSON.stringify(requestDocument) };
        const response = { ...created.response, status, bodyText: JSON.stringify(answer) };
        expect(judgeExchange(contract, request, response).map((f) => f.requirement)).toContain(id);
      } finally {
        await server.close();
      }
    });
  }
});

describe('a kind of record the kit has never seen, named by the added create operation alone (x-record: zzProofShelfId)', () => {
  const KIND = 'zzProofShelfId';
  /** How the kind is given to a run, derived from its name by the one rule. */
  const GIVEN_BY = '--zz-proof-shelf-id, LAS_ZZ_PROOF_SHELF_ID or fixtures.zzProofShelfId in the target file';
  const members = recordMembers(contract.operations).filter((m) => m.kind === KIND);
  const created = contract.requirementOf(operation, 'success')!.id;
  const shelfIdIn = (document: unknown): unknown => {
    try {
      return resolvePointer(document, members[0].pointer);
    } catch {
      return undefined;
    }
  };
  const withoutKind = (): Fixtures =>
    Object.fromEntries(Object.entries(REFERENCE_FIXTURES).filter(([kind]) => kind !== KIND));
  /** The titles of the cases that sent `id` as the kind's record in a request answered 201, each once. */
  const creatingWith = (sent: SentRequest[], id: string) => [
    ...new Set(sent.filter((r) => r.status === 201 && shelfIdIn(r.document) === id).map((r) => r.case)),
  ];

  it('is named by one member of the added operation, and is a target setting whose flag, variable and file key derive from its name', () => {
    expect(members.map((m) => `${m.operation.operationId} ${m.pointer}`)).toEqual([
      `${operationId} /data/relationships/shelf/data/id`,
    ]);
    expect(settingRows().find((row) => row.key === KIND)).toMatchObject({
      record: true,
      flag: '--zz-proof-shelf-id',
      variable: 'LAS_ZZ_PROOF_SHELF_ID',
      fileKey: `fixtures.${KIND}`,
    });
  });

  it('is given to a run by its flag, its variable or its target-file key', async () => {
    const { Command } = await import('commander');
    const { registerRunCommand, runSettings } = await import('../cli/run.ts');
    /** The settings of `run` with these flags and variables, as the command reads them. */
    const settingsOf = (args: string[], env: Record<string, string> = {}) => {
      const program = new Command();
      registerRunCommand(program);
      const run = program.commands.find((command) => command.name() === 'run')!;
      run.parseOptions(['--base-url', 'http://127.0.0.1:1/v3', ...args]);
      return runSettings(run.opts<Parameters<typeof runSettings>[0]>(), env);
    };
    expect(settingsOf(['--zz-proof-shelf-id', 'from-flag']).fixtures).toEqual({ [KIND]: 'from-flag' });
    expect(settingsOf([], { LAS_ZZ_PROOF_SHELF_ID: 'from-variable' }).fixtures).toEqual({ [KIND]: 'from-variable' });
    const file = join(directory, 'shelf-target.yaml');
    writeFileSync(file, `fixtures:\n  ${KIND}: from-file\n`);
    expect(settingsOf(['--target', file]).fixtures).toEqual({ [KIND]: 'from-file' });
  });

  it("has the operation's full set of cases run against the embedded reference server, those that must create sending the record the target supplied (the server's own)", async () => {
    const sent: SentRequest[] = [];
    const record = await recordAgainst([], ownCases, { sent });
    expect(record.cases).toMatchObject({ total: ownCases.length, failed: 0, notRun: 0 });
    expect(record.inputs.records[KIND]).toBe(true);
    expect(
      record.requirements.filter((r) => r.verdict === 'passed' && !((r.judged ?? 0) > 0)).map((r) => r.id),
    ).toEqual([]);
    const supplied = referenceTarget('http://127.0.0.1:1/v3').fixtures[KIND];
    expect(supplied).toBe(REFERENCE_FIXTURES[KIND]);
    expect(creatingWith(sent, supplied)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/: a complete valid document → /),
        expect.stringMatching(/: the same complete document twice → /),
      ]),
    );
  });

  it("fills the required relationship naming it with the target's record in every case meant to be served: the minimal document is created with it", async () => {
    const sent: SentRequest[] = [];
    await recordAgainst([], ownCases, { sent });
    const minimal = sent.filter((r) => /: a minimal valid document → /.test(r.case));
    expect(minimal.map((r) => [shelfIdIn(r.document), r.status])).toEqual([[REFERENCE_FIXTURES[KIND], 201]]);
    const otherwise = sent.filter((r) => r.status === 201 && shelfIdIn(r.document) !== REFERENCE_FIXTURES[KIND]);
    expect(otherwise.map((r) => r.case)).toEqual([]);
  });

  it("sends the id the target supplies: one the reference server does not hold is answered 404, and the creation fails under the operation's own requirement", async () => {
    const sent: SentRequest[] = [];
    const unheld = 'ffffffffffffffffffffffff';
    const record = await recordAgainst([], ownCases, { sent, fixtures: { ...REFERENCE_FIXTURES, [KIND]: unheld } });
    expect(sent.filter((r) => shelfIdIn(r.document) === unheld).map((r) => r.status)).toContain(404);
    expect(record.requirements.find((r) => r.id === created)).toMatchObject({ verdict: 'failed' });
  });

  it('is held by the reference server: a creation naming its record is answered 201 and echoes it; an id it does not hold is answered 404 at the member', async () => {
    const server = await startReferenceServer();
    try {
      const post = (fixtures: Fixtures) =>
        send(server.baseUrl, {
          method: 'POST',
          path: operation.pathTemplate,
          headers: session,
          body: JSON.stringify(completeDocument(operation, fixtures, 'shelf')),
        });
      const held = await post(REFERENCE_FIXTURES);
      expect(held.response.status).toBe(201);
      expect(shelfIdIn(held.json)).toBe(REFERENCE_FIXTURES[KIND]);
      const unheld = await post({ ...REFERENCE_FIXTURES, [KIND]: 'ffffffffffffffffffffffff' });
      expect(unheld.response.status).toBe(404);
      expect(unheld.json).toMatchObject({ errors: [{ status: '404', source: { pointer: members[0].pointer } }] });
    } finally {
      await server.close();
    }
  });

  it("is judged by the proxy under the operation's own ids, and only those: a shelf id of another JSON type under ZZPROOF-AN-SHELF-REQUIRED, a creation naming the shelf answered without relationships under ZZPROOF-AN-RESPONSE-RELATIONSHIPS", async () => {
    const rules = await rulesLoggedFor([createdDocument(), withValueAt(createdDocument(), members[0].pointer, 42)]);
    expect([...new Set(rules)].sort()).toEqual([
      'request ZZPROOF-AN-SHELF-REQUIRED',
      'response ZZPROOF-AN-RESPONSE-RELATIONSHIPS',
    ]);
  });

  it("fails the run under the operation's own requirement when the generic fault relationships-dropped is on, in the cases that created with the shelf", async () => {
    const sent: SentRequest[] = [];
    const record = await recordAgainst(['relationships-dropped'], ownCases, { sent });
    const relationships = contract.requirementOf(operation, 'relationshipsEcho')!.id;
    expect(record.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id)).toEqual([relationships]);
    const blamed = new Set(record.requirements.find((r) => r.id === relationships)!.evidence.map((e) => e.case));
    expect(creatingWith(sent, REFERENCE_FIXTURES[KIND]).filter((title) => blamed.has(title)).length).toBeGreaterThan(0);
  });

  it('is reported not given by a run whose target does not supply it: exactly the cases that create with it are not run, their reason naming its flag, variable and target-file key', async () => {
    const sent: SentRequest[] = [];
    await recordAgainst([], ownCases, { sent });
    const outcomes: CaseOutcome[] = [];
    const record = await recordAgainst([], ownCases, { fixtures: withoutKind(), outcomes });
    expect(record.inputs.records[KIND]).toBe(false);
    const notRun = outcomes.filter((o) => o.status === 'skipped');
    expect(notRun.map((o) => o.title).sort()).toEqual(creatingWith(sent, REFERENCE_FIXTURES[KIND]).sort());
    for (const outcome of notRun) expect(outcome.skipReason).toContain(GIVEN_BY);
    expect(record).toMatchObject({ verdict: 'incomplete', cases: { failed: 0, notRun: notRun.length } });
    // The operation's requirements the run had to check and could not: each says which setting would have let it.
    const ownNotRun = record.requirements.filter((r) => ownRequirements.includes(r.id) && record.notRun.includes(r.id));
    expect(ownNotRun.length).toBeGreaterThan(0);
    for (const requirement of ownNotRun) expect(requirement.reason).toContain(GIVEN_BY);
  });
});

describe('a list added to the contract as data only, its filter on another member than type', () => {
  const listId = 'zzProofListShades';
  const list = contract.operation(listId);
  const listRequirements = contract.requirements.map((r) => r.id).filter((id) => id.startsWith('ZZPROOF-SH-'));
  const listCases = SUITE_CASES.filter((c) => c.title.startsWith(`${listId}:`));
  /** Requirements the proxy alone judges (client traffic the suite never makes). */
  const proxyOnly = listRequirements.filter((id) => contract.requirement(id).checkedBy?.includes('suite') === false);

  it("takes the rules every list follows from the catalogue's templates, by one entry, each bound to its role", () => {
    const taking = addition.requirements.filter(isTemplateUse).filter((use) => use.operation === listId);
    expect(taking).toHaveLength(1);
    expect(listRequirements).toHaveLength(
      taking[0].templates.length +
        addition.requirements.filter((r) => !isTemplateUse(r) && r.id.startsWith('ZZPROOF-SH-')).length,
    );
    expect(list.roles).toMatchObject({
      pageLength: 'ZZPROOF-SH-PAGE-LENGTH',
      metaPages: 'ZZPROOF-SH-META-PAGES',
      pageWalk: 'ZZPROOF-SH-PAGE-WALK',
      responseShape: 'ZZPROOF-SH-RESPONSE-SHAPE',
    });
    expect(contract.requirement('ZZPROOF-SH-RESPONSE-SHAPE').basis).toBe(
      '4.1: the 200 body requires a data array of ZzProofShades; included, when sent, is an array of resources.',
    );
  });

  it('gets its filter and pagination cases from its own filter member, page and roles', () => {
    const { filterCases } = SUITE_CASES_BY_CONCERN;
    const titles = listCases.map((c) => c.title);
    for (const value of ['warm', 'cool', 'neutral']) {
      expect(titles).toContain(`${listId}: filter[tone]=${value} → 200 with a list document`);
      for (const limit of [1, 3, 10, 25])
        expect(titles).toContain(
          `${listId}: walk filter[tone]=${value} at page[limit]=${limit}: every item exactly once`,
        );
    }
    expect(titles).toEqual(
      expect.arrayContaining([
        `${listId}: no filter → 400`,
        `${listId}: an unknown filter[tone] value → 400`,
        `${listId}: filter with another member instead of tone → 400`,
        `${listId}: page[limit]=0 → 400`,
        `${listId}: page[offset] without page[limit] → 400`,
      ]),
    );
    expect(filterCases.filter((c) => c.title.startsWith(`${listId}:`)).length).toBeGreaterThan(0);
    // Every requirement of the list the suite can judge is one its cases answer to or cover; none is another list's.
    const named = new Set(listCases.flatMap((c) => [...c.requirements, ...(c.covers ?? [])]));
    expect(listRequirements.filter((id) => !proxyOnly.includes(id) && !named.has(id))).toEqual([]);
    expect([...named].filter((id) => id.startsWith('NG-'))).toEqual([]);
  });

  it('is served by the reference server from items seeded from its schema: every case passes, and each requirement is passed on judged exchanges, none broken', async () => {
    await expectPassedOnJudgedExchanges(
      listCases,
      listRequirements.filter((id) => !proxyOnly.includes(id)),
    );
  });

  const ownFailures: [fault: string, requirements: string[]][] = [
    ['meta-pages-rounded-down', ['ZZPROOF-SH-META-PAGES']],
    // Its items' first attribute with allowed values (tone) and their boolean one (glossy): what the item faults
    // change.
    // A tone outside the allowed values is also another tone than the filter asked for, which this contract makes a
    // MUST.
    ['item-value-outside-enum', ['ZZPROOF-SH-FILTER-MATCH', 'ZZPROOF-SH-ITEM-SHAPE']],
    ['item-boolean-as-string', ['ZZPROOF-SH-ITEM-SHAPE']],
    // Its included resources' fixed type, and its optional filter member naming a record.
    ['included-type-in-lower-case', ['ZZPROOF-SH-INCLUDED-SHAPE']],
    ['filter-member-ignored', ['ZZPROOF-SH-FILTER-MATCH']],
  ];
  for (const [fault, requirements] of ownFailures) {
    it(`fails the run under its own requirement when the generic fault ${fault} is on`, async () => {
      const record = await recordAgainst([fault], listCases);
      expect(record.verdict).toBe('failed');
      expect(
        record.requirements
          .filter((r) => r.verdict === 'failed')
          .map((r) => r.id)
          .sort(),
      ).toEqual(requirements);
    });
  }

  it("sends every filter member (its optional one with the required one, so together), the member naming a record at the target's record and at one no target holds, and each include name it defines alone and all together", () => {
    const titles = listCases.map((c) => c.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        `${listId}: filter[collectionItemId]=<collectionItemId> → 200 with a list document`,
        `${listId}: filter[collectionItemId]=<a collection item id no record has> → 200 or 400, a list document when served`,
        `${listId}: include=maker → 200, included as the contract gives it`,
        `${listId}: include=palette → 200, included as the contract gives it`,
        `${listId}: include=maker,palette → 200, included as the contract gives it`,
      ]),
    );
    expect(titles.filter((title) => title.includes('an include name the specification does not define'))).toEqual([]);
  });

  it('is served by the reference server applying every filter member and filling included for each name it defines', async () => {
    const server = await startReferenceServer();
    const get = async (query: string) =>
      (
        await send(server.baseUrl, {
          method: 'GET',
          path: `${list.pathTemplate}?${query}`,
          headers: { authorization: session.authorization },
        })
      ).json as { meta: { total: number }; included?: { type: string }[] };
    try {
      const all = (await get('filter[tone]=warm')).meta.total;
      expect(all).toBeGreaterThan(0);
      expect(
        (await get(`filter[tone]=warm&filter[collectionItemId]=${REFERENCE_FIXTURES.collectionItemId}`)).meta.total,
      ).toBe(all);
      expect((await get('filter[tone]=warm&filter[collectionItemId]=000000000000000000000000')).meta.total).toBe(0);
      expect((await get('filter[tone]=warm&include=maker,palette')).included?.map((r) => r.type)).toEqual([
        'ZzProofMaker',
        'ZzProofPalette',
      ]);
      expect((await get('filter[tone]=warm&include=palette')).included?.map((r) => r.type)).toEqual(['ZzProofPalette']);
      expect((await get('filter[tone]=warm')).included).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  /** The direction and rule of each line the proxy logs for these list queries to a server with `faults` on. */
  async function listRulesLoggedFor(faults: string[], queries: string[]): Promise<string[]> {
    const upstream = await startReferenceServer({ faults });
    const violations = new Recorder();
    const proxy = await startValidatingProxy({
      upstream: upstream.baseUrl,
      violations,
      repeatInterval: 0,
      contract,
      judgeThread: false,
    });
    try {
      for (const query of queries) {
        await send(proxy.baseUrl, {
          method: 'GET',
          path: `${list.pathTemplate}?${query}`,
          headers: { authorization: session.authorization },
        });
      }
      await proxy.proxy.settled();
    } finally {
      await proxy.close();
      await upstream.close();
    }
    return violations.lines<{ rule: string; direction: string }>().map((l) => `${l.direction} ${l.rule}`);
  }

  it('is judged by the proxy under its own ids: a wrong included type under ZZPROOF-SH-INCLUDED-SHAPE, an ignored filter member under ZZPROOF-SH-FILTER-MATCH', async () => {
    const rules = await listRulesLoggedFor(
      ['included-type-in-lower-case', 'filter-member-ignored'],
      ['filter[tone]=warm&include=maker', 'filter[tone]=cool&filter[collectionItemId]=000000000000000000000000'],
    );
    expect(rules).toEqual(
      expect.arrayContaining(['response ZZPROOF-SH-FILTER-MATCH', 'response ZZPROOF-SH-INCLUDED-SHAPE']),
    );
    expect(rules.filter((rule) => !rule.includes(' ZZPROOF-SH-'))).toEqual([]);
  });

  it('passes every case with the generic choice last-filter-value-matches-nothing on, its last filter value then served an empty page', async () => {
    const record = await recordAgainst([], listCases, { choices: ['last-filter-value-matches-nothing'] });
    expect(record.cases).toMatchObject({ total: listCases.length, failed: 0 });
    const server = await startReferenceServer({ choices: ['last-filter-value-matches-nothing'] });
    try {
      const page = async (tone: string) =>
        (
          await send(server.baseUrl, {
            method: 'GET',
            path: `${list.pathTemplate}?filter[tone]=${tone}`,
            headers: { authorization: session.authorization },
          })
        ).json as { meta: { total: number } };
      expect((await page('neutral')).meta.total).toBe(0);
      expect((await page('warm')).meta.total).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("is judged by the proxy under its own ids: a client's page[limit]=0 under ZZPROOF-SH-PAGE-LIMIT-MIN, a wrong meta.pages under ZZPROOF-SH-META-PAGES", async () => {
    const rules = await listRulesLoggedFor(
      ['meta-pages-rounded-down', 'page-limit-below-one-accepted'],
      ['filter[tone]=warm&page[limit]=10&page[offset]=0', 'filter[tone]=cool&page[limit]=0&page[offset]=0'],
    );
    expect(rules).toEqual(
      expect.arrayContaining(['request ZZPROOF-SH-PAGE-LIMIT-MIN', 'response ZZPROOF-SH-META-PAGES']),
    );
    expect(rules.filter((rule) => / NG-/.test(rule))).toEqual([]);
  });
});

describe('a list added to the contract as data only, filtered on the id of a record: a member with no allowed values', () => {
  const listId = 'zzProofListMarks';
  const list = contract.operation(listId);
  const kind = 'collectionItemId';
  const listRequirements = contract.requirements.map((r) => r.id).filter((id) => id.startsWith('ZZPROOF-MK-'));
  const listCases = SUITE_CASES.filter((c) => c.title.startsWith(`${listId}:`));
  const proxyOnly = listRequirements.filter((id) => contract.requirement(id).checkedBy?.includes('suite') === false);
  const total = async (baseUrl: string, query: string) =>
    (
      (
        await send(baseUrl, {
          method: 'GET',
          path: `${list.pathTemplate}?${query}`,
          headers: { authorization: session.authorization },
        })
      ).json as { meta: { total: number } }
    ).meta.total;

  it("gets a filter case and walks that send the target's record of the kind its member names", () => {
    const titles = listCases.map((c) => c.title);
    expect(titles).toContain(`${listId}: filter[${kind}]=<${kind}> → 200 with a list document`);
    for (const limit of [1, 3, 10, 25])
      expect(titles).toContain(
        `${listId}: walk filter[${kind}]=<${kind}> at page[limit]=${limit}: every item exactly once`,
      );
    expect(filterQuery(list, undefined, { [kind]: 'the-record' })).toBe(`filter[${kind}]=the-record`);
  });

  it('is served by the reference server filtered on that member: the record it holds matches items, another id none', async () => {
    const server = await startReferenceServer();
    try {
      expect(
        await total(server.baseUrl, filterQuery(list, undefined, referenceTarget(server.baseUrl).fixtures)),
      ).toBeGreaterThan(0);
      expect(await total(server.baseUrl, `filter[${kind}]=ffffffffffffffffffffffff`)).toBe(0);
      expect(await total(server.baseUrl, `filter[${kind}]=`)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('passes every case against the reference server, each requirement passed on judged exchanges, none broken', async () => {
    await expectPassedOnJudgedExchanges(
      listCases,
      listRequirements.filter((id) => !proxyOnly.includes(id)),
    );
  });

  it('takes the template FILTER-MATCH at SHOULD: its contract states no meaning for its filter, and an id no target holds is sent too', () => {
    expect(contract.requirement(list.roles.filterMatch!)).toMatchObject({
      id: 'ZZPROOF-MK-FILTER-MATCH',
      level: 'SHOULD',
    });
    expect(listCases.map((c) => c.title)).toContain(
      `${listId}: filter[${kind}]=<a collection item id no record has> → 200 or 400, a list document when served`,
    );
  });

  it('fails the run under its own requirement when the generic fault meta-pages-rounded-down is on: its cases judge pages that hold items', async () => {
    const record = await recordAgainst(['meta-pages-rounded-down'], listCases);
    expect(record.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id)).toEqual([
      'ZZPROOF-MK-META-PAGES',
    ]);
  });
});

/**
 * The direction and rule of each line the proxy logs for `documents` created through it, in front of a server whose
 * created answers drop their relationships.
 */
async function rulesLoggedFor(documents: unknown[]): Promise<string[]> {
  const upstream = await startReferenceServer({ faults: ['relationships-dropped'] });
  const violations = new Recorder();
  const proxy = await startValidatingProxy({
    upstream: upstream.baseUrl,
    violations,
    repeatInterval: 0,
    contract,
    judgeThread: false,
  });
  try {
    for (const document of documents) {
      await send(proxy.baseUrl, {
        method: 'POST',
        path: operation.pathTemplate,
        headers: session,
        body: JSON.stringify(document),
      });
    }
    await proxy.proxy.settled();
  } finally {
    await proxy.close();
    await upstream.close();
  }
  return violations.lines<{ rule: string; direction: string }>().map((l) => `${l.direction} ${l.rule}`);
}
