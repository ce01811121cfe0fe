// The verdict of a whole run does not depend on what the tokens look like. A target that serves
// nothing right (it answers 400 to every authenticated request, as a mock server started on the
// contract does to valid list requests) fails the run with one-letter tokens; the reference
// server, with tokens that are common words and one fault, fails only requirements the
// fault breaks and passes the rest. The runs select the cases of a list's success, or with no
// list a create's. reports/verdict-path.test.ts tries more tokens in-process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CertificationRecord } from '../reports/record.ts';
import { startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { runCli, type CliResult } from '../cli/test-support.ts';
import { contract, describeWith } from '../contract/test-support.ts';
import { caseTitle, SUITE_CASES } from './cases/index.ts';
import { faultedOperation } from './test-support.ts';

const JSON_API = { 'content-type': 'application/vnd.api+json' };

/** The operation whose success cases the runs select, a list if the contract holds one, and a fault they see. */
const subject = faultedOperation({ list: 'metaPages', create: 'success' });
const describeWithSubject = describeWith(subject?.operation, 'list or create whose success cases see a fault');

/** Authenticated or not, never served: 401 without credentials, 400 with any. */
function mockLikeTarget(): Server {
  return createServer((request, response) => {
    request.resume();
    const credentials =
      request.headers.authorization !== undefined || request.headers['x-svc-session-token'] !== undefined;
    if (!credentials)
      response
        .writeHead(401, { ...JSON_API, 'www-authenticate': 'Bearer' })
        .end('{"errors":[{"status":"401","title":"Unauthorized"}]}');
    else response.writeHead(400, JSON_API).end('{"errors":[{"status":"400","title":"Bad Request"}]}');
  });
}

interface Run {
  result: CliResult;
  record: CertificationRecord;
}

describeWithSubject('the verdict, whatever the tokens look like', (operation) => {
  const { fault } = subject!;
  /** The requirement of the operation's success statuses, whose cases the runs select. */
  const accepted = contract.successRequirement(operation.operationId).id;
  const GREP = `AUTH-SESSION-ACCEPTED|AUTH-401-UNKNOWN-TOKEN|${accepted}`;

  let root: string;
  let mock: Server;
  let reference: StartedReferenceServer;
  const runs = new Map<string, Run>();

  async function run(name: string, baseUrl: string, tokens: string[]): Promise<void> {
    const reportDir = join(root, name);
    const result = await runCli([
      'run',
      '--base-url',
      baseUrl,
      '--session-token',
      tokens[0],
      '--pat',
      tokens[1],
      ...(tokens[2] ? ['--forbidden-token', tokens[2]] : []),
      '--grep',
      GREP,
      '--generate',
      '0',
      '--workers',
      '1',
      '--report-dir',
      reportDir,
    ]);
    runs.set(name, {
      result,
      record: JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord,
    });
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'las-verdict-tokens-'));
    mock = mockLikeTarget();
    await new Promise<void>((resolve) => mock.listen(0, '127.0.0.1', resolve));
    const mockUrl = `http://127.0.0.1:${(mock.address() as AddressInfo).port}/v3`;
    reference = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      sessionToken: 'data',
      pat: 'type',
      forbiddenToken: 'f',
      faults: [fault.name],
    });
    await Promise.all([
      run('mock, one letter', mockUrl, ['s', 'p']),
      run('reference, common words, one fault', reference.baseUrl, ['data', 'type', 'f']),
    ]);
  }, 240_000);

  afterAll(async () => {
    mock?.closeAllConnections();
    await new Promise((resolve) => mock?.close(resolve));
    await reference?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const failed = (record: CertificationRecord) =>
    record.requirements.filter((r) => r.verdict === 'failed').map((r) => r.id);

  it('a target that serves nothing fails with one-letter tokens: exit 1, the acceptance requirements failed', () => {
    const { result, record } = runs.get('mock, one letter')!;
    expect(record.verdict).toBe('failed');
    expect(failed(record)).toEqual(expect.arrayContaining(['AUTH-SESSION-ACCEPTED', accepted]));
    // Only a case that a refusal satisfies passes (a create's minimal document may be refused 400): its title says so.
    const refusable = SUITE_CASES.map(caseTitle).filter(
      (title) => new RegExp(GREP).test(title) && title.endsWith(', or 400'),
    );
    expect(record.cases.passed).toBe(refusable.length);
    expect(result.code).toBe(1);
  });

  it('a run says before it starts which tokens are short enough to be masked inside other text, and only those', () => {
    const warnings = (name: string) =>
      runs
        .get(name)!
        .result.stderr.split('\n')
        .filter((line) => line.startsWith('warning: '));
    expect(warnings('mock, one letter')).toEqual([
      'warning: $LAS_SESSION_TOKEN is 1 character long; the reports replace every occurrence of it with $LAS_SESSION_TOKEN, so text that merely contains it is masked too',
      'warning: $LAS_PAT is 1 character long; the reports replace every occurrence of it with $LAS_PAT, so text that merely contains it is masked too',
    ]);
    expect(warnings('reference, common words, one fault').map((line) => line.split(' ')[1])).toEqual([
      '$LAS_SESSION_TOKEN',
      '$LAS_PAT',
      '$LAS_FORBIDDEN_TOKEN',
    ]);
  });

  it('the reference server with one fault and common-word tokens fails only requirements the fault breaks', () => {
    const { result, record } = runs.get('reference, common words, one fault')!;
    // The fault breaks a requirement of each operation it applies to; the selected cases see this one's at least.
    expect(failed(record)).toContain(fault.requirement);
    expect(failed(record).filter((id) => !fault.requirements.includes(id))).toEqual([]);
    expect(record.requirements.find((r) => r.id === 'AUTH-SESSION-ACCEPTED')).toMatchObject({ verdict: 'passed' });
    expect(result.code).toBe(1);
  });
});
