// The proof that an operation is defined once, in the contract: suites/new-operation.yaml adds
// Create Annotation (POST /annotations) to a copy of schemas/ as data only, and in this process,
// with no other change to the kit, the suite generates its cases, the reference server serves it,
// the proxy judges its traffic, a generic fault on it fails the run under its own requirement,
// and no requirement of it is passed without a judged exchange (the record's judged counts) that
// can break it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { SCHEMA_DIR, useSchemaDirectory } from '../contract/contract.ts';
import type { Requirement } from '../contract/types.ts';

interface ContractAddition {
  paths: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
  requirements: Requirement[];
}

type Yaml = Record<string, any>;

const addition = parseYaml(readFileSync(new URL('./new-operation.yaml', import.meta.url), 'utf8')) as ContractAddition;

/** A copy of schemas/ with the addition joined in; the catalogue takes its entries before those of the first create operation. */
function contractWithAddition(): string {
  const openapi = parseYaml(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8')) as Yaml;
  const catalogue = parseYaml(readFileSync(join(SCHEMA_DIR, 'requirements.yaml'), 'utf8')) as { requirements: Requirement[] };
  const creating = Object.values(openapi.paths as Yaml).flatMap((item: Yaml) => (item.post ? [String(item.post.operationId)] : []));
  const at = catalogue.requirements.findIndex((r) => r.schemaFindings?.some((route) => route.operation !== undefined && creating.includes(route.operation)));
  Object.assign(openapi.paths, addition.paths);
  Object.assign(openapi.components.schemas, addition.components.schemas);
  catalogue.requirements.splice(at, 0, ...addition.requirements);
  const directory = mkdtempSync(join(tmpdir(), 'las-new-operation-'));
  writeFileSync(join(directory, 'openapi.yaml'), stringifyYaml(openapi));
  writeFileSync(join(directory, 'requirements.yaml'), stringifyYaml(catalogue));
  return directory;
}

// Every part of the kit reads the one process-wide contract: point it at the copy before any
// module that loads it is imported.
const directory = contractWithAddition();
useSchemaDirectory(directory);
const { judgeExchange, loadContract, MEDIA_TYPE, withValueAt, withoutValueAt } = await import('../contract/index.ts');
const { creationCases } = await import('./cases/creation.ts');
const { credentialCases } = await import('./cases/credentials.ts');
const { errorEnvelopeCases } = await import('./cases/error-envelope.ts');
const { requestDocumentCases } = await import('./cases/request-documents.ts');
const { typeMismatchCases } = await import('./cases/type-mismatch.ts');
const { SUITE_CASES } = await import('./cases/index.ts');
const { ConformanceCase } = await import('./case.ts');
const { completeDocument } = await import('./documents.ts');
const { buildRecord } = await import('../reports/record.ts');
const { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer } = await import('../server/index.ts');
const { CaseSkipped, directClient, referenceTarget, send } = await import('../server/test-support.ts');
const { startValidatingProxy } = await import('../proxy/proxy.ts');
const { Recorder } = await import('../proxy/test-support.ts');

type SuiteCase = (typeof SUITE_CASES)[number];
type CaseOutcome = Parameters<typeof buildRecord>[0]['cases'][number];

const contract = loadContract();
const operationId = 'createAnnotation';
const operation = contract.operation(operationId);
const ownRequirements = addition.requirements.map((r) => r.id);
const ownCases = SUITE_CASES.filter((c) => c.title.startsWith(`${operationId}:`));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs one case in process, as the suite's worker would, and returns its outcome for the record. */
async function outcomeOf(suiteCase: SuiteCase, baseUrl: string): Promise<CaseOutcome> {
  const requirements = [...new Set([...suiteCase.requirements, ...(suiteCase.covers ?? [])])];
  const conformance = new ConformanceCase({
    contract,
    client: directClient(baseUrl),
    target: referenceTarget(baseUrl),
    failLevel: 'must',
    scrub: (text) => text,
    requirements: suiteCase.requirements,
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  try {
    await suiteCase.run(conformance);
  } catch (error) {
    if (error instanceof CaseSkipped) return { title: suiteCase.title, requirements, status: 'skipped', skipReason: error.message, findings: [] };
    throw error;
  }
  const { findings } = conformance.findingsForPeople();
  const { notRun, exercised, unexercised } = conformance.outcomeData();
  return { title: suiteCase.title, requirements, status: conformance.blocking().length > 0 ? 'failed' : 'passed', findings, notRun, exercised, unexercised };
}

/** The certification record of the operation's own cases against the reference server with `faults` on. */
async function recordAgainst(faults: string[]) {
  const server = await startReferenceServer({ faults });
  try {
    const cases: CaseOutcome[] = [];
    for (const suiteCase of ownCases) cases.push(await outcomeOf(suiteCase, server.baseUrl));
    return buildRecord({ contract, kit: { name: 'las-conformance', version: 'proof' }, target: server.baseUrl, failLevel: 'must', startedAt: new Date(), durationMs: 0, runStatus: 'passed', cases });
  } finally {
    await server.close();
  }
}

const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`, 'content-type': MEDIA_TYPE };
const createdDocument = () => completeDocument(operation, REFERENCE_FIXTURES, 'proof');

describe('an operation added to the contract as data only (Create Annotation)', () => {
  it('is in the contract with the requirement of each of its roles', () => {
    expect(contract.requirementOf(operation, 'success')?.id).toBe('AN-CREATE-201');
    expect(contract.requirementOf(operation, 'relationshipsEcho')?.id).toBe('AN-RESPONSE-RELATIONSHIPS');
  });

  const tables = { creation: creationCases, credentials: credentialCases, 'error envelope': errorEnvelopeCases, 'request documents': requestDocumentCases, 'type mismatch': typeMismatchCases };
  for (const [concern, table] of Object.entries(tables)) {
    it(`gets its ${concern} cases from the suite's table`, () => {
      expect(table.filter((c) => c.title.startsWith(`${operationId}:`)).length).toBeGreaterThan(0);
    });
  }

  it('is served by the reference server, every one of its cases passes, and each of its requirements is passed on exchanges a judge judged, none broken', async () => {
    const record = await recordAgainst([]);
    expect(record.cases).toMatchObject({ total: ownCases.length, failed: 0, notRun: 0 });
    const verdicts = record.requirements.filter((r) => ownRequirements.includes(r.id)).map((r) => [r.id, r.verdict, r.cases > 0, (r.judged ?? 0) > 0, r.broken]);
    expect(verdicts).toEqual(ownRequirements.map((id) => [id, 'passed', true, true, 0]));
  });

  it('is bound, requirement by requirement, to judges that can break it: its judgedBy, its schema routes, or the checks judging its roles', async () => {
    const { judgesOf } = await import('../contract/checks.ts');
    expect(ownRequirements.filter((id) => judgesOf(contract, id).length === 0)).toEqual([]);
    expect(judgesOf(contract, 'AN-RESPONSE-RELATIONSHIPS')).toContain('createdResourceEchoes');
    expect(judgesOf(contract, 'AN-CREATE-201')).toContain('unlistedSuccess');
  });

  it('fails the run under its own requirement when the generic fault relationships-dropped is on', async () => {
    const record = await recordAgainst(['relationships-dropped']);
    expect(record.verdict).toBe('failed');
    expect(record.requirements.find((r) => r.id === 'AN-RESPONSE-RELATIONSHIPS')).toMatchObject({ verdict: 'failed', broken: expect.any(Number) });
    expect(record.requirements.find((r) => r.id === 'AN-RESPONSE-RELATIONSHIPS')!.broken).toBeGreaterThan(0);
  });

  it("is judged by the proxy: a client's wrong data.type under AN-DATA-TYPE, a created answer without relationships under AN-RESPONSE-RELATIONSHIPS", async () => {
    const upstream = await startReferenceServer({ faults: ['relationships-dropped'] });
    const violations = new Recorder();
    const proxy = await startValidatingProxy({ upstream: upstream.baseUrl, violations, repeatInterval: 0, contract, judgeThread: false });
    try {
      for (const document of [createdDocument(), withValueAt(createdDocument(), '/data/type', 'Highlight')]) {
        await send(proxy.baseUrl, { method: 'POST', path: operation.pathTemplate, headers: session, body: JSON.stringify(document) });
      }
      await proxy.proxy.settled();
    } finally {
      await proxy.close();
      await upstream.close();
    }
    const rules = violations.lines<{ rule: string; direction: string }>().map((l) => `${l.direction} ${l.rule}`);
    expect(rules).toEqual(expect.arrayContaining(['request AN-DATA-TYPE', 'response AN-RESPONSE-RELATIONSHIPS']));
  });

  // How each requirement of the addition is broken, on the request or on a real created answer.
  const breaks: Record<string, { request?: (document: unknown) => unknown; answer?: (status: number, document: Record<string, any>) => [number, unknown] }> = {
    'AN-DATA-REQUIRED': { request: (d) => withoutValueAt(d, '/data') },
    'AN-DATA-TYPE': { request: (d) => withValueAt(d, '/data/type', 'Note') },
    'AN-OWNER-TYPE': { request: (d) => withValueAt(d, '/data/relationships/owner/data/type', 'Group') },
    'AN-TYPE-MISMATCH': { request: (d) => withValueAt(d, '/data/attributes/pinned', 'yes') },
    'AN-CREATE-201': { answer: (_, d) => [200, d] },
    'AN-RESPONSE-SHAPE': { answer: (status, d) => [status, withValueAt(d, '/data/type', 'annotation')] },
    'AN-RESPONSE-RELATIONSHIPS': { answer: (status, d) => [status, withoutValueAt(d, '/data/relationships')] },
    'AN-ATTRIBUTES-ECHO': { answer: (status, d) => [status, withValueAt(d, '/data/attributes/note', 'another note')] },
  };

  it('names how each of its requirements is broken here, so none goes unjudged', () => {
    expect(Object.keys(breaks).sort()).toEqual([...ownRequirements].sort());
  });

  for (const [id, broken] of Object.entries(breaks)) {
    it(`has ${id} judged by the contract: an exchange that breaks it is reported under it`, async () => {
      const server = await startReferenceServer();
      try {
        const created = await send(server.baseUrl, { method: 'POST', path: operation.pathTemplate, headers: session, body: JSON.stringify(createdDocument()) });
        expect(created.response.status).toBe(201);
        const requestDocument = broken.request ? broken.request(createdDocument()) : createdDocument();
        const [status, answer] = broken.answer ? broken.answer(created.response.status, created.json as Record<string, any>) : [201, created.json];
        const request = { ...created.request, bodyText: JSON.stringify(requestDocument) };
        const response = { ...created.response, status, bodyText: JSON.stringify(answer) };
        expect(judgeExchange(contract, request, response).map((f) => f.requirement)).toContain(id);
      } finally {
        await server.close();
      }
    });
  }
});
