// From a live violation to a verdict on the fix: the proxy in front of the reference server with
// faults on captures the exchanges that break a MUST; replayed against the faulted server they
// still reproduce, against the server without the faults they are fixed; no credential is ever in
// a capture file; writes are sent only when allowed; reproduced exchanges become regression cases.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../cli/test-support.ts';
import { escapeRegExp, MEDIA_TYPE, type Operation } from '../contract/index.ts';
import { contract, creates, describeWith, itWith, list, listQuery } from '../contract/test-support.ts';
import { startValidatingProxy } from '../proxy/proxy.ts';
import { send } from '../proxy/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  FAULTS as FAULT_DEFINITIONS,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { minimalDocument } from '../suites/documents.ts';
import { readRegressionCases } from '../targets/regression-cases.ts';

const FAULTED_TOKENS = { sessionToken: 'faulted-session-secret-3e8a', pat: 'faulted-pat-secret-b71c' };
/** A create whose answer holds attributes only the server sets: the write the faulted server answers without them. */
const serverSetting: Operation | undefined = creates.find((o) => o.roles.serverAttributes !== undefined);
/** The list's meta.pages rounded down; with a create the server sets attributes of, those left out. */
const FAULTS = ['meta-pages-rounded-down', ...(serverSetting ? ['in-use-missing'] : [])];
/** The reads the proxy captures: two pages of the list, in the session and the legacy scheme. */
const READ_PAGES = [
  { limit: 10, offset: 0, credentials: 'session' },
  { limit: 4, offset: 0, credentials: 'legacy' },
] as const;

/** Text as a regular expression matching it literally. */

let dir: string;
let captureDir: string;
let faulted: StartedReferenceServer;
let fixed: StartedReferenceServer;

const faultedTarget = () => [
  '--base-url',
  faulted.baseUrl,
  '--session-token',
  FAULTED_TOKENS.sessionToken,
  '--pat',
  FAULTED_TOKENS.pat,
];
const fixedTarget = () => [
  '--base-url',
  fixed.baseUrl,
  '--session-token',
  DEFAULT_CREDENTIALS.sessionToken,
  '--pat',
  DEFAULT_CREDENTIALS.pat,
];
const captureFiles = () => readdirSync(captureDir).map((name) => join(captureDir, name));

/**
 * A recorded read whose answer breaks a rule every operation shares (an error's status as a number), for what replay
 * decides before it sends anything.
 */
function recordedRead(): string {
  const answer = '{"errors":[{"status":401}]}';
  const file = join(dir, 'recorded-read.ndjson');
  const entry = {
    startedDateTime: '2026-11-24T10:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: 'http://127.0.0.1:4010/v3/records',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Authorization', value: 'Bearer r:token' }],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 401,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Content-Type', value: MEDIA_TYPE }],
      content: { size: answer.length, mimeType: MEDIA_TYPE, text: answer },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
  writeFileSync(file, `${JSON.stringify(entry)}\n`);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-replay-'));
  captureDir = join(dir, 'capture');
  fixed = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  if (list === undefined) return;
  faulted = await startReferenceServer({ host: '127.0.0.1', port: 0, faults: FAULTS, ...FAULTED_TOKENS });
  const proxy = await startValidatingProxy({ upstream: faulted.baseUrl, capture: { dir: captureDir } });
  const schemes = {
    session: { authorization: `Bearer r:${FAULTED_TOKENS.sessionToken}` },
    legacy: { [contract.legacyHeader]: FAULTED_TOKENS.sessionToken },
  };
  try {
    for (const { credentials, ...page } of READ_PAGES)
      await send(`${proxy.baseUrl}${list.pathTemplate}?${listQuery(list, page)}`, { headers: schemes[credentials] });
    if (serverSetting)
      await send(`${proxy.baseUrl}${serverSetting.pathTemplate}`, {
        method: 'POST',
        headers: { authorization: `Bearer p:${FAULTED_TOKENS.pat}`, 'content-type': MEDIA_TYPE },
        body: JSON.stringify(minimalDocument(serverSetting, REFERENCE_FIXTURES, 'replayed')),
      });
    await proxy.proxy.settled();
  } finally {
    await proxy.close();
  }
}, 60_000);

afterAll(async () => {
  await faulted?.close();
  await fixed?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The requirement a list's meta.pages is judged by. */
const metaPagesOf = (operation: Operation) => contract.requirementOf(operation, 'metaPages')!.id;
/** A fault breaking the list's item shape on every answer, for the same request to break another MUST. */
const itemShapeFault = (operation: Operation) =>
  FAULT_DEFINITIONS.find(
    (f) => f.role === 'itemShape' && f.detectableInOneExchange && f.requirements.includes(operation.roles.itemShape!),
  );

describeWith(list, 'list')('capture, then replay', (list) => {
  const metaPages = metaPagesOf(list);
  const path = escapeRegExp(list.pathTemplate);
  const writes = serverSetting ? 1 : 0;
  const withWrite = itWith(serverSetting, 'create whose answer holds attributes only the server sets');

  it('captured the exchanges that broke a MUST, and no credential', () => {
    const text = captureFiles()
      .map((file) => readFileSync(file, 'utf8'))
      .join('');
    expect(text.trim().split('\n')).toHaveLength(READ_PAGES.length + writes);
    for (const secret of Object.values(FAULTED_TOKENS)) expect(text).not.toContain(secret);
  });

  it('against the faulted server: the reads still reproduce, the write is not sent without --allow-writes: exit 1', async () => {
    const result = await runCli(['replay', ...captureFiles(), ...faultedTarget()]);
    const lines = result.stdout.trim().split('\n');
    expect(
      lines.filter((line) => line.startsWith(`still reproduces: ${metaPages} · GET ${list.pathTemplate}?`)),
    ).toHaveLength(READ_PAGES.length);
    if (serverSetting)
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^not sent: POST could write to the target; --allow-writes sends it · POST ${escapeRegExp(serverSetting.pathTemplate)} `,
          ),
        ),
      );
    expect(lines[lines.length - 1]).toMatch(
      new RegExp(
        `: ${READ_PAGES.length} still reproduces, 0 fixed, 0 changed, ${writes} not sent, 0 no answer, 0 nothing to check$`,
      ),
    );
    expect(result.code).toBe(1);
  });

  withWrite('against the faulted server with --allow-writes: the write reproduces too', async (create) => {
    const result = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--allow-writes']);
    const requirement = create.roles.serverAttributes!;
    expect(result.stdout).toMatch(
      new RegExp(`^still reproduces: ${requirement} · POST ${escapeRegExp(create.pathTemplate)} `, 'm'),
    );
    expect(result.code).toBe(1);
  });

  it('against the server without the faults, with its own credentials in the same schemes: every one is fixed, exit 0', async () => {
    const result = await runCli(['replay', ...captureFiles(), ...fixedTarget(), '--allow-writes']);
    const lines = result.stdout.trim().split('\n');
    expect(
      lines.slice(0, -1).map((line) => /^fixed: ([A-Z-]+) · (GET|POST) \S+ answered (\d+) /.exec(line)?.slice(1)),
    ).toEqual([
      ...READ_PAGES.map(() => [metaPages, 'GET', '200']),
      ...(serverSetting ? [[serverSetting.roles.serverAttributes, 'POST', '201']] : []),
    ]);
    expect(lines[lines.length - 1]).toMatch(
      new RegExp(`: 0 still reproduces, ${READ_PAGES.length + writes} fixed, 0 changed,`),
    );
    expect(result.code).toBe(0);
  });

  itWith(itemShapeFault(list) && list, 'list whose items a fault can break')(
    'against a server that breaks another MUST on the same request: changed, naming the new finding, exit 1',
    async () => {
      const other = await startReferenceServer({
        host: '127.0.0.1',
        port: 0,
        faults: [itemShapeFault(list)!.name],
        ...FAULTED_TOKENS,
      });
      try {
        const result = await runCli([
          'replay',
          ...captureFiles(),
          '--base-url',
          other.baseUrl,
          '--session-token',
          FAULTED_TOKENS.sessionToken,
          '--pat',
          FAULTED_TOKENS.pat,
        ]);
        expect(result.stdout).toMatch(
          new RegExp(
            `^changed: ${metaPages} no longer, now ${list.roles.itemShape} \\(.+\\) · GET ${path}\\S* answered 200 `,
            'm',
          ),
        );
        expect(result.stdout).not.toMatch(/^still reproduces/m);
        expect(result.code).toBe(1);
      } finally {
        await other.close();
      }
    },
  );

  it('--save-cases keeps what still reproduces as regression cases: the request and the requirement, never a token', async () => {
    const targetFile = join(dir, 'staging.yaml');
    const first = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--save-cases', targetFile]);
    expect(first.stdout).toContain(`${targetFile}: ${READ_PAGES.length} regression cases added (${metaPages})`);
    const cases = readRegressionCases(
      targetFile,
      contract.requirements.map((r) => r.id),
    );
    expect(cases.map((c) => [c.requirement, c.request.method, c.request.path, c.request.credentials])).toEqual(
      READ_PAGES.map(({ credentials, ...page }) => [
        metaPages,
        'GET',
        `${list.pathTemplate}?${listQuery(list, page)}`,
        credentials,
      ]),
    );
    expect(cases[0].why).toMatch(
      /^recorded \d{4}-\d\d-\d\dT[\d:.]+Z \(capture-\S+\.ndjson entry #1\), still reproduced against http:\/\/127\.0\.0\.1:\d+\/v3: \S/,
    );
    const text = readFileSync(targetFile, 'utf8');
    expect(text).not.toContain(dir);
    for (const secret of Object.values(FAULTED_TOKENS)) expect(text).not.toContain(secret);
    // Saving again adds nothing: the list holds those requests already.
    const again = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--save-cases', targetFile]);
    expect(again.stdout).toContain(`${targetFile}: 0 regression cases added`);
  });
});

/** A server on 127.0.0.1 that counts the connections made to it and answers none. */
async function countingListener(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v3`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('replay without --allow-writes: recorded methods that are not exactly GET or HEAD', () => {
  /** A recorded read, its method renamed. */
  function withMethods(methods: string[]): string {
    const read = readFileSync(recordedRead(), 'utf8').trim();
    const renamed = methods.map((method) => {
      const entry = JSON.parse(read) as { request: { method: string } };
      entry.request.method = method;
      return JSON.stringify(entry);
    });
    const file = join(dir, 'renamed-methods.ndjson');
    writeFileSync(file, `${renamed.join('\n')}\n`);
    return file;
  }

  it('a recorded Get, get or GET with escapes is not sent, its line says why, escapes as pictures', async () => {
    const listener = await countingListener();
    try {
      const file = withMethods(['Get', 'get', 'GET\u001b]0;PWNED\u0007']);
      const tokens = ['--session-token', 'replay-session-7f3e', '--pat', 'replay-pat-9c1d'];
      const result = await runCliInProcess(['replay', file, '--base-url', listener.url, ...tokens]);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^not sent: Get is not GET: a method's name is case-sensitive and a target may /);
      expect(lines[1]).toMatch(/^not sent: get is not GET: /);
      expect(lines[2]).toMatch(/^not sent: GET\u241b]0;PWNED\u2407 could write to the target; --allow-writes sends it/);
      expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(listener.connections()).toBe(0);
      expect(result.code).toBe(3);
    } finally {
      await listener.close();
    }
  });
});

describeWith(list, 'list')('a saved regression case in run', (list) => {
  const metaPages = metaPagesOf(list);
  /** What a regression case of the list is named: its request and requirement. */
  const caseName = `GET ${list.pathTemplate} ${metaPages}`;
  let targetFile: string;

  beforeAll(async () => {
    targetFile = join(dir, 'regression-target.yaml');
    const saved = await runCli(['replay', captureFiles()[0], ...faultedTarget(), '--save-cases', targetFile]);
    expect(saved.stdout).toContain(`${READ_PAGES.length} regression cases added`);
  }, 60_000);

  function record(reportDir: string): {
    verdict: string;
    requirements: {
      id: string;
      verdict: string;
      cases: number;
      regressionCases?: string[];
      evidence: { case: string; message: string }[];
    }[];
  } {
    return JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as ReturnType<typeof record>;
  }

  it('fails run against the faulted server under the requirement it names (record, JUnit, HTML)', async () => {
    const reportDir = join(dir, 'run-faulted');
    const result = await runCli([
      'run',
      '--reference-server',
      '--target',
      targetFile,
      '--grep',
      'regression: ',
      '--fault',
      'meta-pages-rounded-down',
      '--report-dir',
      reportDir,
      '--workers',
      '1',
    ]);
    expect(result.code).toBe(1);
    const pages = record(reportDir).requirements.find((r) => r.id === metaPages)!;
    expect(pages.verdict).toBe('failed');
    expect(pages.evidence.map((e) => e.case)).toEqual(
      READ_PAGES.map((): unknown => expect.stringMatching(new RegExp(`^${metaPages} · regression: `))),
    );
    expect(pages.evidence[0].case).toMatch(new RegExp(`^${metaPages} · regression: ${escapeRegExp(caseName)}`));
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain(
      `case: ${metaPages} · regression: ${caseName}`,
    );
    expect(readFileSync(join(reportDir, 'certification.html'), 'utf8')).toContain(`regression: ${caseName}`);
  }, 120_000);

  it("passes against the server without the fault: the list's meta.pages passed by the regression cases alone", async () => {
    const reportDir = join(dir, 'run-fixed');
    const result = await runCli([
      'run',
      '--reference-server',
      '--target',
      targetFile,
      '--grep',
      'regression: ',
      '--report-dir',
      reportDir,
      '--workers',
      '1',
    ]);
    // Only the regression cases ran: the verdict is incomplete, and nothing failed.
    expect(result.code).toBe(3);
    const pages = record(reportDir).requirements.find((r) => r.id === metaPages)!;
    expect(pages).toMatchObject({
      verdict: 'passed',
      cases: READ_PAGES.length,
      regressionCases: READ_PAGES.map((): unknown => expect.stringMatching(new RegExp(`^${escapeRegExp(caseName)}`))),
    });
    // Named under their requirement where a person and a CI system look, passing as failing.
    const junitCase = new RegExp(`<testcase name="${metaPages}[\\s\\S]*?</testcase>`).exec(
      readFileSync(join(reportDir, 'junit.xml'), 'utf8'),
    )![0];
    expect(junitCase.split(`<property name="regression-case" value="${caseName}`)).toHaveLength(READ_PAGES.length + 1);
    expect(readFileSync(join(reportDir, 'certification.html'), 'utf8')).toMatch(
      new RegExp(`data-requirement="${metaPages}"[^\\n]*regression: ${escapeRegExp(caseName)}`),
    );
  }, 120_000);
});

describe('las-conformance replay, usage errors', () => {
  const cases: { title: string; args: () => string[]; stderr: RegExp; asProcess?: true }[] = [
    {
      title: 'no target base URL',
      args: () => [recordedRead(), '--session-token', 'a', '--pat', 'b'],
      stderr: /^las-conformance: no target base URL: give --base-url, LAS_BASE_URL or baseUrl in the target file$/,
      asProcess: true,
    },
    {
      title: 'no personal access token',
      args: () => [recordedRead(), '--base-url', fixed.baseUrl, '--session-token', 'a'],
      stderr: /^las-conformance: no personal access token: give --pat, LAS_PAT/,
    },
    {
      title: 'a --save-cases file that is no target file',
      args: () => [recordedRead(), ...fixedTarget(), '--save-cases', join(dir, 'not-a-target.yaml')],
      stderr: /^las-conformance: target file .*not-a-target\.yaml: unknown key "wrong"$/,
    },
  ];
  beforeAll(() => writeFileSync(join(dir, 'not-a-target.yaml'), 'wrong: key\n'));
  for (const c of cases) {
    it(`refuses ${c.title}: exit 2, one line, nothing sent${c.asProcess ? ' (a real process)' : ''}`, async () => {
      const result = await (c.asProcess ? runCli : runCliInProcess)(['replay', ...c.args()]);
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(c.stderr)]);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(2);
    }, 30_000);
  }
});
