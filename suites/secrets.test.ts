// Tokens never appear in any output. A run against a reference server with distinctive tokens and
// faults that fail cases sending those tokens in odd places (so failures, curl lines and error
// messages are all about them) leaves none in any report file, archive member, log or console
// line. The same run's blob report merges into the same verdict, also without tokens. So does a
// suite started without the run command, from the LAS_* variables: the tokens reach its workers
// only in the run's message (LAS_RUN), and from there no file or line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv, loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { REFERENCE_FIXTURES, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { recordSetting } from '../targets/settings.ts';
import { resolveTarget } from '../targets/target.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { CONFIG_FILE, ROOT } from './runner.ts';
import { hermeticEnvironment, runCli, type CliResult } from '../cli/test-support.ts';
import { leaksOf, reportFiles } from './test-support.ts';

const TOKENS = {
  sessionToken: 'distinct-session-6b1f0e2a',
  pat: 'distinct-pat-93c7d451',
  forbiddenToken: 'distinct-forbidden-1e8a4c77',
};
const FAULTS = ['malformed-authorization-accepted', 'error-status-number'];
// The specification's X-Svc-Session-Token stands for the service's own name: the target may use another.
const LEGACY_HEADER = 'X-Acme-Session-Token';

let server: StartedReferenceServer;
let root: string;
let result: CliResult;
let record: CertificationRecord;

const recordIn = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as CertificationRecord;
const failedIds = (r: CertificationRecord) => r.requirements.filter((q) => q.verdict === 'failed').map((q) => q.id);

beforeAll(async () => {
  server = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    faults: FAULTS,
    legacyHeader: LEGACY_HEADER,
    ...TOKENS,
  });
  root = mkdtempSync(join(tmpdir(), 'las-secrets-'));
  result = await runCli(
    [
      'run',
      '--base-url',
      server.baseUrl,
      '--session-token',
      TOKENS.sessionToken,
      '--pat',
      TOKENS.pat,
      ...Object.entries(REFERENCE_FIXTURES).flatMap(([kind, id]) => [recordSetting(kind).flag, id]),
      '--legacy-header',
      LEGACY_HEADER,
      '--generate',
      '0',
      '--workers',
      '1',
      '--report-dir',
      join(root, 'run'),
    ],
    { LAS_FORBIDDEN_TOKEN: TOKENS.forbiddenToken, LAS_BLOB_REPORT: '1' },
  );
  record = recordIn(join(root, 'run'));
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a run with distinctive tokens', () => {
  it('fails for the faults it was given, so failures, messages and curl lines were written', () => {
    expect(result.code).toBe(1);
    expect(failedIds(record)).toEqual(expect.arrayContaining(['AUTH-401-MALFORMED', 'ERR-STATUS-STRING']));
    const curls = record.requirements.flatMap((r) => r.evidence.map((e) => e.curl ?? ''));
    expect(curls).toContainEqual(expect.stringContaining('-H "authorization: $LAS_SESSION_TOKEN"'));
  });

  it('writes a conformance.json that matches reports/conformance.schema.json', () => {
    const validate = createAjv().compile(
      JSON.parse(readFileSync(join(ROOT, 'reports', 'conformance.schema.json'), 'utf8')) as object,
    );
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
  });

  it('writes the per-case JUnit with one test case per case, the requirement id in its name and properties, failures as <failure>', () => {
    const junit = readFileSync(join(root, 'run', 'junit-cases.xml'), 'utf8');
    const testcases = [...junit.matchAll(/<testcase name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)];
    expect(testcases).toHaveLength(record.cases.total);
    for (const [, name, body] of testcases) {
      const id = /^([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)[ ·]/.exec(name)?.[1];
      expect(id, name).toBeDefined();
      expect(body).toContain(`<property name="requirement" value="${id}">`);
    }
    const failed = testcases.filter(([, , body]) => body.includes('<failure')).length;
    expect(failed).toBe(record.cases.failed);
    expect(junit).not.toContain('<error');
  });

  it("sends the legacy session header under the target's name and judges it as the legacy scheme", () => {
    const verdicts = Object.fromEntries(record.requirements.map((r) => [r.id, r.verdict]));
    expect(verdicts).toMatchObject({
      'AUTH-LEGACY-ACCEPTED': 'passed',
      'AUTH-401-NO-CREDENTIALS': 'passed',
      'AUTH-401-UNKNOWN-TOKEN': 'passed',
    });
  });

  it('leaves no token in any file under the report directory, in any archive, in the log or on the console', () => {
    const files = reportFiles(join(root, 'run'));
    const names = files.map((f) => f.path.slice(join(root, 'run').length + 1));
    expect(names).toEqual(
      expect.arrayContaining([
        'conformance.json',
        'summary.md',
        'junit.xml',
        'junit-cases.xml',
        'certification.html',
        'run.log',
        join('html', 'index.html'),
      ]),
    );
    expect(names.some((name) => name.startsWith(join('blob', 'report')) && name.endsWith('.zip'))).toBe(true);
    // The archives were opened: a scan of their outsides alone would miss every member.
    expect(names.some((name) => name.startsWith(`${join('html', 'index.html')}!`))).toBe(true);
    expect(names.some((name) => name.startsWith(join('blob', 'report')) && name.includes('.zip!'))).toBe(true);
    expect(leaksOf(Object.values(TOKENS), files, result.stdout + result.stderr)).toEqual([]);
  });

  it('merges its blob report into the same verdict, again without tokens (npx playwright merge-reports)', () => {
    const merged = join(root, 'merged');
    const merge = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'),
        'merge-reports',
        '--config',
        CONFIG_FILE,
        join(root, 'run', 'blob'),
      ],
      {
        cwd: ROOT,
        env: hermeticEnvironment({ LAS_REPORT_DIR: merged }),
        encoding: 'utf8',
      },
    );
    // merge-reports exits 0 whatever the tests did (Playwright's behaviour); the verdict is in conformance.json.
    expect(merge.status, merge.stderr).toBe(0);
    const mergedRecord = recordIn(merged);
    expect(mergedRecord).toMatchObject({ verdict: 'failed', target: record.target, cases: record.cases });
    expect(failedIds(mergedRecord)).toEqual(failedIds(record));
    expect(leaksOf(Object.values(TOKENS), reportFiles(merged), merge.stdout + merge.stderr)).toEqual([]);
  });
});

/** `npx playwright test ARGS` in a child, as a person runs it, with the LAS_* variables of `env`. */
function playwrightTest(args: string[], env: Record<string, string>): Promise<CliResult> {
  const cli = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'test', '--config', CONFIG_FILE, ...args], {
    cwd: ROOT,
    env: hermeticEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npx playwright test with the tokens in LAS_* variables', () => {
  let direct: CliResult;
  let directRecord: CertificationRecord;

  beforeAll(async () => {
    const target = resolveTarget(
      { baseUrl: server.baseUrl, ...TOKENS, fixtures: { ...REFERENCE_FIXTURES }, legacyHeader: LEGACY_HEADER },
      loadContract().legacyHeader,
    );
    direct = await playwrightTest(['--grep', 'AUTH-', '--workers', '1'], {
      ...targetEnvironment(target),
      LAS_REPORT_DIR: join(root, 'direct'),
    });
    directRecord = recordIn(join(root, 'direct'));
  }, 180_000);

  it('hands the tokens to the workers in the run message: the cases that send them are served', () => {
    expect(direct.code).toBe(1);
    const verdicts = Object.fromEntries(directRecord.requirements.map((r) => [r.id, r.verdict]));
    expect(verdicts).toMatchObject({
      'AUTH-SESSION-ACCEPTED': 'passed',
      'AUTH-PAT-ACCEPTED': 'passed',
      'AUTH-LEGACY-ACCEPTED': 'passed',
      'AUTH-401-MALFORMED': 'failed',
    });
  });

  it('leaves no token in any file under the report directory or on the console', () => {
    const files = reportFiles(join(root, 'direct'));
    expect(files.map((f) => f.path)).toContainEqual(join(root, 'direct', 'conformance.json'));
    expect(leaksOf(Object.values(TOKENS), files, direct.stdout + direct.stderr)).toEqual([]);
  });
});
