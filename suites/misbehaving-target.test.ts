// The whole run against a target that misbehaves in every way the suite must survive: it answers
// HTML, resets connections (on a list), hangs and streams an endless body (on the creates). The
// run ends, exit code 1, every misbehaviour a failed case with a sentence saying what happened,
// and no token anywhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAjv, recordKinds, type Operation } from '../contract/index.ts';
import {
  askedFirst,
  contract,
  createWithoutRecord,
  createWithRecord,
  describeWith,
  itWith,
  list,
  listQuery,
} from '../contract/test-support.ts';
import type { CertificationRecord, RequirementRecord } from '../reports/record.ts';
import { NO_FORBIDDEN_TOKEN } from './operations.ts';
import { preflightRequest } from './preflight.ts';
import { runCli, type CliResult } from '../cli/test-support.ts';
import { leaksOf, reportFiles } from './test-support.ts';
import { caseTitle, SUITE_CASES } from './cases/index.ts';
import { recordSetting } from '../targets/settings.ts';

// No forbidden credential: the 403 cases must be reported as not run, never as passed. The
// fixtures are given, so the cases of the create naming records that must be served are sent (and hang).
const TOKENS = { LAS_SESSION_TOKEN: 'misbehaving-session-7f3a9c', LAS_PAT: 'misbehaving-pat-52be1d' };
const FIXTURES = Object.fromEntries(
  recordKinds(createWithRecord ? [createWithRecord] : []).map((kind, i) => [
    recordSetting(kind).variable,
    `6553f100c0ffee000000000${i + 1}`,
  ]),
);

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

const html: Behaviour = (_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html' });
  response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
};
const reset: Behaviour = (request) => request.socket.destroy();
const hang: Behaviour = () => undefined;
const endless: Behaviour = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
  const chunk = Buffer.alloc(64 * 1024, ' ');
  const pump = () => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', pump);
  pump();
};
const unauthorized: Behaviour = (_request, response) => {
  response.writeHead(401, { 'content-type': 'application/vnd.api+json', 'www-authenticate': 'Bearer' });
  response.end('{"errors":[{"status":"401"}]}');
};

const served: Behaviour = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
  response.end('{"data":[]}');
};

/** Whether `request` is sent to `operation`. */
const sentTo = (request: IncomingMessage, operation: Operation | undefined) =>
  operation !== undefined &&
  request.method === operation.method &&
  (request.url ?? '').split('?')[0] === `${contract.basePath}${operation.pathTemplate}`;

/** Whether a request (its body read) is the preflight's, which asks a list, or with none sends a create `{}`. */
function isPreflight(request: IncomingMessage, body: string): boolean {
  const asked = preflightRequest();
  return request.method === asked.method && (request.url ?? '').endsWith(asked.path) && body === (asked.body ?? '');
}

/**
 * What the target does, by request: the preflight gets a proper answer, so the run starts; the list's
 * smallest filter is answered HTML, any other a reset; the create naming no record streams an
 * endless body, the one naming records hangs.
 */
function behaviourFor(request: IncomingMessage, body: string): Behaviour {
  const url = request.url ?? '';
  if (isPreflight(request, body)) return served;
  if (sentTo(request, createWithoutRecord)) return endless;
  if (sentTo(request, createWithRecord)) return hang;
  if (list && sentTo(request, list)) return url.includes(listQuery(list)) ? html : reset;
  return unauthorized;
}

/**
 * The cases the run selects: the session token and the forbidden one on the list and the creates the target
 * misbehaves on, and the list's own success cases.
 */
function selection(): RegExp {
  const operations = [list, createWithoutRecord, createWithRecord].flatMap((o) => (o ? [o.operationId] : []));
  const accepted = list ? [`${contract.successRequirement(list.operationId).id} · `] : [];
  return new RegExp([`(AUTH-SESSION-ACCEPTED|AUTH-403-FORBIDDEN) · (${operations.join('|')}):`, ...accepted].join('|'));
}

/** The one selected case the target serves: the session token on the list, answered HTML with 200. */
const servedCase = (title: string) =>
  list !== undefined && title.startsWith(`AUTH-SESSION-ACCEPTED · ${list.operationId}:`);

// A run against a target starts with the preflight, which asks a list, or with none a create.
describeWith(askedFirst, 'list or create')('a run against a misbehaving target', () => {
  let server: Server;
  let reportDir: string;
  let result: CliResult;
  let record: CertificationRecord;

  const requirement = (id: string): RequirementRecord => record.requirements.find((r) => r.id === id)!;
  const messages = (id: string) => requirement(id).evidence.map((e) => e.message);

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.once('end', () => behaviourFor(request, Buffer.concat(chunks).toString('utf8'))(request, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    reportDir = mkdtempSync(join(tmpdir(), 'las-misbehaving-'));
    result = await runCli(
      [
        'run',
        '--base-url',
        `http://127.0.0.1:${port}/v3`,
        '--grep',
        selection().source,
        '--request-timeout',
        '5000',
        '--max-body-mib',
        '1',
        '--generate',
        '0',
        '--workers',
        '2',
        '--report-dir',
        reportDir,
      ],
      { ...TOKENS, ...FIXTURES },
    );
    record = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord;
  }, 180_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(reportDir, { recursive: true, force: true });
  });

  it('ends with exit code 1 and a verdict, every selected case having run', () => {
    expect(result.code).toBe(1);
    expect(record.runStatus).toBe('failed');
    // The session token on the list is served (200, though as HTML): that case passes; the HTML
    // answer fails the media type and document requirements, recorded on them. Each 403 case is not run.
    const selected = SUITE_CASES.map(caseTitle).filter((title) => selection().test(title));
    const notRun = selected.filter((title) => title.startsWith('AUTH-403-FORBIDDEN ')).length;
    const passed = selected.filter(servedCase).length;
    expect(record.cases).toEqual({ total: selected.length, passed, failed: selected.length - notRun - passed, notRun });
    expect(result.stdout).toMatch(/^Verdict: FAILED: /m);
  });

  it('reports the 403 cases as not run, with the reason, when no forbidden credential is configured', () => {
    expect(requirement('AUTH-403-FORBIDDEN')).toMatchObject({
      verdict: 'not-run',
      reason: NO_FORBIDDEN_TOKEN,
      cases: 0,
    });
  });

  itWith(list, 'list')(
    'reports an HTML answer as a media type and document failure, not as the credential case that got it',
    (list) => {
      expect(messages('MEDIA-TYPE-RESPONSE')).toContain(
        'response Content-Type must be application/vnd.api+json, got text/html',
      );
      expect(requirement(contract.requirementOf(list, 'responseShape')!.id).verdict).toBe('failed');
      const listCase = requirement('MEDIA-TYPE-RESPONSE').evidence.find((e) =>
        e.case.startsWith(`AUTH-SESSION-ACCEPTED · ${list.operationId}:`),
      )!;
      expect(listCase.case).toMatch(/→ served$/);
      expect(requirement('AUTH-SESSION-ACCEPTED').evidence.map((e) => e.path)).not.toContain(listCase.path);
    },
  );

  itWith(list, 'list')('reports a reset connection in one sentence', (list) => {
    expect(messages(contract.successRequirement(list.operationId).id)).toContainEqual(
      expect.stringMatching(/^no answer: the connection was closed before a complete answer arrived/),
    );
  });

  itWith(createWithRecord, 'create naming a record')('reports a hang in one sentence', () => {
    expect(messages('AUTH-SESSION-ACCEPTED')).toContain(
      'no answer: no complete answer within 5000 ms (the request timeout; raise it with --request-timeout)',
    );
  });

  itWith(createWithoutRecord, 'create naming no record')('reports an endless body in one sentence', () => {
    expect(messages('AUTH-SESSION-ACCEPTED')).toContain(
      'no answer: the answer is larger than 1 MiB, the most the kit reads (raise it with --max-body-mib)',
    );
  });

  itWith(createWithRecord, 'create naming a record')(
    'gives each failure its exchange and a curl line with the tokens as variables',
    (create) => {
      const hung = requirement('AUTH-SESSION-ACCEPTED').evidence.find((e) => e.path === create.pathTemplate)!;
      expect(hung).toMatchObject({
        method: create.method,
        curl: expect.stringContaining('-H "authorization: Bearer r:$LAS_SESSION_TOKEN"'),
      });
      expect(hung).not.toHaveProperty('status');
    },
  );

  it('writes a conformance.json that matches reports/conformance.schema.json, evidence without a status included', () => {
    const validate = createAjv().compile(
      JSON.parse(readFileSync(new URL('../reports/conformance.schema.json', import.meta.url), 'utf8')) as object,
    );
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
  });

  it('leaks no token into any report file, archive member or the console', () => {
    const files = reportFiles(reportDir);
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining([join(reportDir, 'junit.xml'), join(reportDir, 'html', 'index.html')]),
    );
    // The HTML report's embedded archive was opened, so its members were scanned too.
    expect(files.some((f) => f.path.startsWith(`${join(reportDir, 'html', 'index.html')}!`))).toBe(true);
    expect(leaksOf(Object.values(TOKENS), files, result.stdout + result.stderr)).toEqual([]);
  });
});
