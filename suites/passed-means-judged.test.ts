// "Passed" means judged: a requirement is certified only when a check that can break it judged an
// exchange of the run and it held. The whole suite runs in-process against the reference server
// behind a rewriting client (a small rewriting proxy in all but the socket) that breaks what a
// mock or a careless implementation breaks: meta.limit 0 and meta.pages 999 on every list page,
// every resource id the string "string", no answer ever 401. None of them is certified by a
// requirement nothing judged: each fails, or is listed not exercised with its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  createAjv,
  listItemSchema,
  loadContract,
  schemaMembers,
  type Operation,
  type OperationRole,
} from '../contract/index.ts';
import { itWith, lists } from '../contract/test-support.ts';
import { buildRecord, type CaseOutcome, type CertificationRecord, type RequirementRecord } from '../reports/record.ts';
import { startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { directClient, referenceTarget } from '../server/test-support.ts';
import type { Target } from '../targets/target.ts';
import { ConformanceCase } from './case.ts';
import { caseTitle, SUITE_CASES, type SuiteCase } from './cases/index.ts';
import type { ReceivedResponse, TargetClient } from './client.ts';

const contract = loadContract();
const validateRecord = createAjv().compile(
  JSON.parse(readFileSync(new URL('../reports/conformance.schema.json', import.meta.url), 'utf8')) as object,
);

type Json = Record<string, unknown>;
type Rewrite = (request: { method: string; path: string }, response: ReceivedResponse) => ReceivedResponse;

/** The target's answers as `rewrite` changes them: what a proxy in front of the reference server would send on. */
function rewritingClient(inner: TargetClient, rewrite: Rewrite): TargetClient {
  return {
    async transmit(request) {
      const sent = await inner.transmit(request);
      return sent.ok ? { ok: true, response: rewrite(request, sent.response) } : sent;
    },
    close: () => inner.close(),
  };
}

/** A JSON body changed by `change`; anything else as it came. */
function withJson(response: ReceivedResponse, change: (body: Json) => void): ReceivedResponse {
  let body: unknown;
  try {
    body = JSON.parse(response.bodyText);
  } catch {
    return response;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return response;
  change(body as Json);
  return { ...response, bodyText: JSON.stringify(body) };
}

const metaLimitZero: Rewrite = (request, response) =>
  request.method === 'GET' && response.status === 200
    ? withJson(response, (body) => {
        if (body.meta !== null && typeof body.meta === 'object') Object.assign(body.meta, { limit: 0, pages: 999 });
      })
    : response;

/** As a mock generated from the contract answers: every id, and every string attribute, "string". */
const idsAllString: Rewrite = (_request, response) =>
  withJson(response, (body) => {
    const resources = Array.isArray(body.data) ? body.data : [body.data];
    for (const resource of resources) {
      if (resource === null || typeof resource !== 'object' || !('id' in resource)) continue;
      (resource as Json).id = 'string';
      const attributes = ((resource as Json).attributes ?? {}) as Json;
      for (const name of Object.keys(attributes)) if (typeof attributes[name] === 'string') attributes[name] = 'string';
    }
  });

/** Whether an item of `list` has a string attribute of values the contract enumerates ("string" is none of them). */
const hasEnumeratedString = (list: Operation) =>
  schemaMembers(listItemSchema(list) ?? {}).some(
    (m) => m.pointer.startsWith('/attributes/') && m.types.includes('string') && m.enum !== undefined,
  );
/** The lists whose items a mock's "string" breaks. */
const listsWithEnumeratedString = lists.filter(hasEnumeratedString);

const never401: Rewrite = (_request, response) =>
  response.status === 401
    ? {
        status: 403,
        headers: { 'content-type': 'application/vnd.api+json' },
        bodyText: JSON.stringify({ errors: [{ status: '403', title: 'Forbidden' }] }),
      }
    : response;

const unchanged: Rewrite = (_request, response) => response;

class CaseSkipped extends Error {}

/** One case of the suite run in-process, its outcome as the reporters would record it. */
async function caseOutcome(suiteCase: SuiteCase, target: Target, client: TargetClient): Promise<CaseOutcome> {
  const requirements = [...new Set([...suiteCase.requirements, ...(suiteCase.covers ?? [])])];
  const conformance = new ConformanceCase({
    contract,
    client,
    target,
    failLevel: 'must',
    scrub: (text) => text,
    requirements,
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  const title = caseTitle(suiteCase);
  try {
    await suiteCase.run(conformance);
  } catch (error) {
    if (error instanceof CaseSkipped)
      return { title, requirements, status: 'skipped', skipReason: error.message, findings: [] };
    throw error;
  }
  const data = conformance.outcomeData();
  const findings = conformance.findingsForPeople().findings;
  return {
    title,
    requirements,
    status: conformance.blocking().length > 0 ? 'failed' : 'passed',
    findings,
    notRun: data.notRun,
    exercised: data.exercised,
    unexercised: data.unexercised,
  };
}

async function recordOf(target: Target, client: TargetClient): Promise<CertificationRecord> {
  const cases: CaseOutcome[] = [];
  for (const suiteCase of SUITE_CASES) cases.push(await caseOutcome(suiteCase, target, client));
  const runStatus = cases.some((c) => c.status === 'failed') ? 'failed' : 'passed';
  return buildRecord({
    contract,
    kit: { name: 'las-conformance', version: '0.0.0' },
    target: target.baseUrl,
    failLevel: 'must',
    startedAt: new Date(),
    durationMs: 0,
    runStatus,
    cases,
  });
}

const requirementOf = (record: CertificationRecord, id: string): RequirementRecord =>
  record.requirements.find((r) => r.id === id)!;

/** Failed or warned, or listed not exercised with a reason: anything but passed without a judged exchange. */
function neverCertifiedUnjudged(record: RequirementRecord): boolean {
  if (record.verdict === 'passed') return record.judged > 0 && record.broken === 0;
  return record.verdict !== 'not-run' || record.reason !== undefined;
}

describe('passed means judged: the whole suite against the reference server behind a rewriting proxy', () => {
  let server: StartedReferenceServer;
  let target: Target;
  const run = (rewrite: Rewrite) => recordOf(target, rewritingClient(directClient(server.baseUrl), rewrite));

  beforeAll(async () => {
    server = await startReferenceServer();
    target = referenceTarget(server.baseUrl);
  });
  afterAll(() => server.close());

  it('as it is: passed, every requirement at MUST and SHOULD that the suite checks judged', async () => {
    const record = await run(unchanged);
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
    expect(record.verdict).toBe('passed');
    const unjudged = record.requirements
      .filter((r) => r.level !== 'INFO' && r.verdict === 'not-run' && r.notExercised && !r.byTargetChoice)
      .map((r) => `${r.id}: ${r.reason}`);
    expect(unjudged).toEqual([]);
  });

  itWith(lists[0], 'list')(
    "meta.limit 0 and meta.pages 999 on every list page: each list's page count fails, and no page requirement is passed unjudged",
    async () => {
      const record = await run(metaLimitZero);
      expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
      expect(record.verdict).toBe('failed');
      for (const list of lists) {
        const role = (name: OperationRole) => requirementOf(record, contract.requirementOf(list, name)!.id);
        expect(role('metaPages'), list.operationId).toMatchObject({ verdict: 'failed' });
        expect(role('metaLimitEffective'), list.operationId).toMatchObject({ verdict: 'warning' });
        for (const name of ['pageLength', 'metaPageNumber'] as const)
          expect(neverCertifiedUnjudged(role(name)), `${list.operationId} ${name}`).toBe(true);
      }
    },
  );

  it('every resource id the string "string", and every string attribute too: RES-ID-OBJECTID warns on every id judged, whatever else is wrong', async () => {
    const record = await run(idsAllString);
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
    // A list item's shape is a MUST: broken, it fails the run.
    for (const list of listsWithEnumeratedString) {
      expect(requirementOf(record, contract.requirementOf(list, 'itemShape')!.id), list.operationId).toMatchObject({
        verdict: 'failed',
      });
      expect(record.verdict).toBe('failed');
    }
    const objectId = requirementOf(record, 'RES-ID-OBJECTID');
    expect(objectId).toMatchObject({ verdict: 'warning' });
    expect(objectId.judged).toBeGreaterThan(0);
    expect(objectId.broken).toBe(objectId.judged);
  });

  it('no answer ever 401: the 401 requirements fail, and AUTH-WWW-AUTHENTICATE is listed not exercised with its reason', async () => {
    const record = await run(never401);
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
    expect(record.verdict).toBe('failed');
    expect(requirementOf(record, 'AUTH-401-NO-CREDENTIALS')).toMatchObject({ verdict: 'failed' });
    expect(requirementOf(record, 'AUTH-WWW-AUTHENTICATE')).toMatchObject({
      verdict: 'not-run',
      notExercised: true,
      judged: 0,
      reason: 'not exercised: no answer was 401',
    });
    // At --level should the run cannot pass without it.
    expect(record.requirements.filter((r) => r.verdict === 'passed' && r.judged === 0 && r.level !== 'INFO')).toEqual(
      [],
    );
  });
});
