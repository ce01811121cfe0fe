// The suite against an implementation the kit did not write: the mock server openapi-backend
// builds from the kit's own contract, wired as its documentation shows (a mocked answer for every
// operation; a request its validator rejects answered 400, here in the API's error envelope; an
// unknown path 404). Such a mock
// answers from the schemas alone: it never looks at credentials, it reads only bodies sent as
// `application/json`, and it fills `const` members with `{}`. The verdict must blame exactly
// those, pass what the mock does get right, and pass nothing it did not judge.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_TYPE } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { runCli, type CliResult } from '../cli/test-support.ts';
import { startValidatingProxy, type StartedProxy } from '../proxy/proxy.ts';
import { Recorder } from '../proxy/test-support.ts';
import type { ViolationRecord } from '../proxy/violations.ts';
import { askedFirst, contract, creates, describeWith, itWith, list, lists } from '../contract/test-support.ts';
import type { Operation, OperationRole } from '../contract/index.ts';

/** The requirements `roles` name for each of `operations`. */
const inRoles = (operations: Operation[], roles: OperationRole[]) =>
  operations.flatMap((operation) => roles.map((role) => contract.requirementOf(operation, role)!.id));
/** The requirement a request of `operation` breaks with a member of the wrong JSON type at `pointer`. */
const wrongTypeAt = (operation: Operation, pointer: string) =>
  contract.requirementFor({ operation: operation.operationId, location: 'request', keyword: 'type', pointer }).id;
/** The shape of every success body: a list's items, a created resource. */
const SHAPES = [...inRoles(lists, ['itemShape']), ...inRoles(creates, ['responseShape'])];

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/** openapi-backend's mock of the contract, served under the contract's base path. */
async function startMock(): Promise<{ server: Server; baseUrl: string }> {
  // openapi-backend checks a definition against OpenAPI 3.0; `quick` skips that check (the contract is 3.1).
  const api = new OpenAPIBackend({ definition: structuredClone(contract.document) as never, quick: true });
  api.register({
    // openapi-backend's name for the handler of an operation given no handler of its own: here every operation,
    // answered with its mock.
    notImplemented: (c: Context) => {
      const { status, mock } = c.api.mockResponseForOperation(c.operation.operationId!);
      return { status, body: mock };
    },
    validationFail: (c: Context) => ({
      status: 400,
      body: {
        errors: (c.validation.errors ?? []).map((e) => ({
          status: '400',
          title: 'Bad Request',
          detail: `${e.instancePath} ${e.message ?? ''}`,
        })),
      },
    }),
    notFound: () => ({ status: 404, body: { errors: [{ status: '404', title: 'Not Found' }] } }),
    methodNotAllowed: () => ({ status: 405, body: { errors: [{ status: '405', title: 'Method Not Allowed' }] } }),
  });
  await api.init();
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://mock');
      const answer = (await api.handleRequest({
        method: request.method ?? 'GET',
        path: url.pathname.slice(contract.basePath.length),
        query: url.search.slice(1),
        headers: request.headers as Record<string, string>,
        body: await bodyOf(request),
      })) as { status: number; body: unknown };
      response.writeHead(answer.status, { 'content-type': MEDIA_TYPE }).end(JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${contract.basePath}` };
}

interface Run {
  result: CliResult;
  record: CertificationRecord;
}

async function runSuite(baseUrl: string, reportDir: string): Promise<Run> {
  const result = await runCli([
    'run',
    '--base-url',
    baseUrl,
    '--session-token',
    'mock-session-token',
    '--pat',
    'mock-personal-access-token',
    '--generate',
    '0',
    '--report-dir',
    reportDir,
  ]);
  return {
    result,
    record: JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord,
  };
}

// A run against a target starts with the preflight, which asks a list, or with none a create.
describeWith(askedFirst, 'list or create')("openapi-backend's mock of the contract", () => {
  let root: string;
  let mock: Server;
  let proxy: StartedProxy;
  const violations = new Recorder();
  let result: CliResult;
  let record: CertificationRecord;
  let throughProxy: Run;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'las-foreign-mock-'));
    const started = await startMock();
    mock = started.server;
    proxy = await startValidatingProxy({ upstream: started.baseUrl, violations });
    const [direct, proxied] = await Promise.all([
      runSuite(started.baseUrl, join(root, 'direct')),
      runSuite(proxy.baseUrl, join(root, 'through-proxy')),
    ]);
    ({ result, record } = direct);
    throughProxy = proxied;
    await proxy.proxy.settled();
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    mock?.closeAllConnections();
    await new Promise((resolve) => mock?.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  const verdictOf = (id: string) => record.requirements.find((r) => r.id === id)?.verdict;

  describe("the suite against openapi-backend's mock of the contract", () => {
    it("fails the run (exit 1) on the target's answers, never on an error of the kit's own", () => {
      expect(record.verdict).toBe('failed');
      expect(result.code).toBe(1);
      expect(result.stderr).not.toMatch(/TypeError|ReferenceError|RangeError|no-verdict/);
    });

    it('fails every credentials requirement: the mock serves a request whatever its credentials (section 5)', () => {
      for (const id of [
        'AUTH-401-NO-CREDENTIALS',
        'AUTH-401-UNKNOWN-TOKEN',
        'AUTH-401-MALFORMED',
        'AUTH-401-WRONG-PREFIX',
        'AUTH-401-BEFORE-400',
      ])
        expect(verdictOf(id), id).toBe('failed');
    });

    it('fails the document shapes: the mock fills each `type` const with {} (sections 2.2, 4.2, 4.3)', () => {
      for (const id of SHAPES) expect(verdictOf(id), id).toBe('failed');
    });

    it("fails the request documents it never reads: a body in the API's media type is not validated, so broken ones are answered 201 (sections 4.2, 4.3)", () => {
      const broken = creates.flatMap((create) => [
        wrongTypeAt(create, '/data'),
        wrongTypeAt(create, '/data/attributes'),
      ]);
      expect(broken.length).toBeGreaterThan(0);
      for (const id of broken) expect(verdictOf(id), id).toBe('failed');
    });

    // Only a list's query is validated: a create's document in the API's media type never is, so never refused.
    itWith(list, 'list')(
      'passes what the mock gets right: its query validation answers 400 in the error envelope',
      () => {
        for (const id of [
          ...inRoles(lists, ['filterRequired', 'pageLimitMin', 'pageOffsetMin']),
          'ERR-ENVELOPE',
          'ERR-STATUS-STRING',
        ])
          expect(verdictOf(id), id).toBe('passed');
      },
    );

    it('passes what the mock gets right: it creates with 201, and answers no request 5xx', () => {
      for (const id of [...inRoles(creates, ['success']), 'ERR-NO-5XX']) expect(verdictOf(id), id).toBe('passed');
    });

    it('passes no MUST or SHOULD requirement that no exchange judged, and none that an exchange broke', () => {
      const passed = record.requirements.filter((r) => r.verdict === 'passed' && r.level !== 'INFO');
      expect(passed.length).toBeGreaterThan(0);
      for (const requirement of passed) {
        expect(requirement.judged, requirement.id).toBeGreaterThan(0);
        expect(requirement.broken, requirement.id).toBe(0);
      }
    });
  });

  describe('the validating proxy in front of the same mock, the suite sent through it', () => {
    const failed = (run: CertificationRecord) =>
      run.requirements
        .filter((r) => r.verdict === 'failed')
        .map((r) => r.id)
        .sort();

    it('changes no verdict: the suite fails the same requirements through the proxy as straight to the mock', () => {
      expect(failed(throughProxy.record)).toEqual(failed(record));
      expect(throughProxy.result.code).toBe(1);
    });

    it('writes a MUST line of the service for each answer the suite failed on its shape or its credentials', () => {
      const serviceMust = new Set(
        violations
          .lines<ViolationRecord>()
          .filter((line) => line.party === 'service' && line.level === 'MUST')
          .map((line) => line.rule),
      );
      for (const id of [...SHAPES, 'AUTH-401-NO-CREDENTIALS']) expect(serviceMust.has(id), id).toBe(true);
    });
  });
});
