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
import { loadContract, MEDIA_TYPE } from '../contract/index.ts';
import { startValidatingProxy } from '../proxy/proxy.ts';
import { send } from '../proxy/test-support.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { readRegressionCases } from '../targets/regression-cases.ts';

const FAULTED_TOKENS = { sessionToken: 'faulted-session-secret-3e8a', pat: 'faulted-pat-secret-b71c' };
const FAULTS = ['meta-pages-rounded-down', 'in-use-missing'];
const contract = loadContract();

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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-replay-'));
  captureDir = join(dir, 'capture');
  faulted = await startReferenceServer({ host: '127.0.0.1', port: 0, faults: FAULTS, ...FAULTED_TOKENS });
  fixed = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  const proxy = await startValidatingProxy({ upstream: faulted.baseUrl, capture: { dir: captureDir } });
  try {
    await send(`${proxy.baseUrl}/notification-groups?filter[type]=portal&page[limit]=10&page[offset]=0`, {
      headers: { authorization: `Bearer r:${FAULTED_TOKENS.sessionToken}` },
    });
    await send(`${proxy.baseUrl}/notification-groups?filter[type]=portal&page[limit]=4&page[offset]=0`, {
      headers: { [contract.legacyHeader]: FAULTED_TOKENS.sessionToken },
    });
    await send(`${proxy.baseUrl}/attribute-configs`, {
      method: 'POST',
      headers: { authorization: `Bearer p:${FAULTED_TOKENS.pat}`, 'content-type': MEDIA_TYPE },
      body: JSON.stringify({
        data: { type: 'AttributeConfig', attributes: { target: 'User', type: 'boolean', label: 'Replayed' } },
      }),
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

describe('capture, then replay', () => {
  it('captured the three exchanges that broke a MUST, and no credential', () => {
    const text = captureFiles()
      .map((file) => readFileSync(file, 'utf8'))
      .join('');
    expect(text.trim().split('\n')).toHaveLength(3);
    for (const secret of Object.values(FAULTED_TOKENS)) expect(text).not.toContain(secret);
  });

  it('against the faulted server: the reads still reproduce, the write is not sent without --allow-writes: exit 1', async () => {
    const result = await runCli(['replay', ...captureFiles(), ...faultedTarget()]);
    const lines = result.stdout.trim().split('\n');
    expect(
      lines.filter((line) => line.startsWith('still reproduces: NG-META-PAGES · GET /notification-groups?')),
    ).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^not sent: POST could write to the target; --allow-writes sends it · POST \/attribute-configs /,
      ),
    );
    expect(lines[lines.length - 1]).toMatch(
      /: 2 still reproduces, 0 fixed, 0 changed, 1 not sent, 0 no answer, 0 nothing to check$/,
    );
    expect(result.code).toBe(1);
  }, 60_000);

  it('against the faulted server with --allow-writes: the write reproduces too', async () => {
    const result = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--allow-writes']);
    expect(result.stdout).toMatch(/^still reproduces: AC-RESPONSE-INUSE · POST \/attribute-configs /m);
    expect(result.code).toBe(1);
  }, 60_000);

  it('against the server without the faults, with its own credentials in the same schemes: every one is fixed, exit 0', async () => {
    const result = await runCli(['replay', ...captureFiles(), ...fixedTarget(), '--allow-writes']);
    const lines = result.stdout.trim().split('\n');
    expect(
      lines.slice(0, -1).map((line) => /^fixed: ([A-Z-]+) · (GET|POST) \S+ answered (\d+) /.exec(line)?.slice(1)),
    ).toEqual([
      ['NG-META-PAGES', 'GET', '200'],
      ['NG-META-PAGES', 'GET', '200'],
      ['AC-RESPONSE-INUSE', 'POST', '201'],
    ]);
    expect(lines[lines.length - 1]).toMatch(/: 0 still reproduces, 3 fixed, 0 changed,/);
    expect(result.code).toBe(0);
  }, 60_000);

  it('against a server that breaks another MUST on the same request: changed, naming the new finding, exit 1', async () => {
    const other = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      faults: ['item-boolean-as-string'],
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
        /^changed: NG-META-PAGES no longer, now NG-ITEM-SHAPE \(.+\) · GET \/notification-groups\S* answered 200 /m,
      );
      expect(result.stdout).not.toMatch(/^still reproduces/m);
      expect(result.code).toBe(1);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('--save-cases keeps what still reproduces as regression cases: the request and the requirement, never a token', async () => {
    const targetFile = join(dir, 'staging.yaml');
    const first = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--save-cases', targetFile]);
    expect(first.stdout).toContain(`${targetFile}: 2 regression cases added (NG-META-PAGES)`);
    const cases = readRegressionCases(
      targetFile,
      contract.requirements.map((r) => r.id),
    );
    expect(cases.map((c) => [c.requirement, c.request.method, c.request.path, c.request.credentials])).toEqual([
      ['NG-META-PAGES', 'GET', '/notification-groups?filter[type]=portal&page[limit]=10&page[offset]=0', 'session'],
      ['NG-META-PAGES', 'GET', '/notification-groups?filter[type]=portal&page[limit]=4&page[offset]=0', 'legacy'],
    ]);
    expect(cases[0].why).toMatch(
      /^recorded \d{4}-\d\d-\d\dT[\d:.]+Z \(capture-\S+\.ndjson entry #1\), still reproduced against http:\/\/127\.0\.0\.1:\d+\/v3: \S/,
    );
    const text = readFileSync(targetFile, 'utf8');
    expect(text).not.toContain(dir);
    for (const secret of Object.values(FAULTED_TOKENS)) expect(text).not.toContain(secret);
    // Saving again adds nothing: the list holds those requests already.
    const again = await runCli(['replay', ...captureFiles(), ...faultedTarget(), '--save-cases', targetFile]);
    expect(again.stdout).toContain(`${targetFile}: 0 regression cases added`);
  }, 60_000);
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
  /** The captured reads, their method renamed. */
  function withMethods(methods: string[]): string {
    const lines = captureFiles().flatMap((file) => readFileSync(file, 'utf8').trim().split('\n'));
    const read = lines.find((line) => (JSON.parse(line) as { request: { method: string } }).request.method === 'GET')!;
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

describe('a saved regression case in run', () => {
  let targetFile: string;

  beforeAll(async () => {
    targetFile = join(dir, 'regression-target.yaml');
    const saved = await runCli(['replay', captureFiles()[0], ...faultedTarget(), '--save-cases', targetFile]);
    expect(saved.stdout).toContain('2 regression cases added');
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
    const pages = record(reportDir).requirements.find((r) => r.id === 'NG-META-PAGES')!;
    expect(pages.verdict).toBe('failed');
    expect(pages.evidence.map((e) => e.case)).toEqual([
      expect.stringMatching(/^NG-META-PAGES · regression: GET \/notification-groups NG-META-PAGES/),
      expect.stringMatching(/^NG-META-PAGES · regression: /),
    ]);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toMatch(
      /case: NG-META-PAGES · regression: GET \/notification-groups NG-META-PAGES/,
    );
    expect(readFileSync(join(reportDir, 'certification.html'), 'utf8')).toContain(
      'regression: GET /notification-groups NG-META-PAGES',
    );
  }, 120_000);

  it('passes against the server without the fault: NG-META-PAGES passed by the regression cases alone', async () => {
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
    const pages = record(reportDir).requirements.find((r) => r.id === 'NG-META-PAGES')!;
    expect(pages).toMatchObject({
      verdict: 'passed',
      cases: 2,
      regressionCases: [
        expect.stringMatching(/^GET \/notification-groups NG-META-PAGES/),
        expect.stringMatching(/^GET \/notification-groups NG-META-PAGES/),
      ],
    });
    // Named under their requirement where a person and a CI system look, passing as failing.
    const junitCase = /<testcase name="NG-META-PAGES[\s\S]*?<\/testcase>/.exec(
      readFileSync(join(reportDir, 'junit.xml'), 'utf8'),
    )![0];
    expect(
      junitCase.match(/<property name="regression-case" value="GET \/notification-groups NG-META-PAGES/g),
    ).toHaveLength(2);
    expect(readFileSync(join(reportDir, 'certification.html'), 'utf8')).toMatch(
      /data-requirement="NG-META-PAGES"[^\n]*regression: GET \/notification-groups NG-META-PAGES/,
    );
  }, 120_000);
});

describe('las-conformance replay, usage errors', () => {
  const cases: { title: string; args: () => string[]; stderr: RegExp; asProcess?: true }[] = [
    {
      title: 'no target base URL',
      args: () => [captureFiles()[0], '--session-token', 'a', '--pat', 'b'],
      stderr: /^las-conformance: no target base URL: give --base-url, LAS_BASE_URL or baseUrl in the target file$/,
      asProcess: true,
    },
    {
      title: 'no personal access token',
      args: () => [captureFiles()[0], '--base-url', fixed.baseUrl, '--session-token', 'a'],
      stderr: /^las-conformance: no personal access token: give --pat, LAS_PAT/,
    },
    {
      title: 'a --save-cases file that is no target file',
      args: () => [captureFiles()[0], ...fixedTarget(), '--save-cases', join(dir, 'not-a-target.yaml')],
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
