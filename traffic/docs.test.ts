// The commands the guides show, run as written (`npx las-conformance` being this kit), in order:
// the operating guide's "From a violation to a regression case" against a reference server with a
// fault switched on (the proxy captures, judge and replay find the violation, --save-cases keeps
// it, run fails under its requirement) and then without it (replay says fixed, run passes); and
// the CI guide's "Regression cases in the gate", whose gate fails under the case's requirement.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell, type ShellResult } from '../test-support/shell.ts';
import { hermeticEnvironment } from '../cli/test-support.ts';
import { escapeRegExp, type Operation } from '../contract/index.ts';
import { contract, describeWith, list, listQuery } from '../contract/test-support.ts';
import { send } from '../proxy/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  INAPPLICABLE_FAULTS,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';

const BIN = fileURLToPath(new URL('../bin/las-conformance.js', import.meta.url));
const FAULTED_TOKENS = { sessionToken: 'docs-session-secret-0c4f', pat: 'docs-pat-secret-9ab1' };
/** The fault the guides' violation comes from: a list's meta.pages rounded down. */
const FAULT = 'meta-pages-rounded-down';

/** Text as a regular expression matching it literally. */
/** The requirement a list's meta.pages is judged by. */
const metaPagesOf = (operation: Operation) => contract.requirementOf(operation, 'metaPages')!.id;

/** The commands of the ```sh blocks under a heading of a guide, one per line. */
function sectionCommands(guide: string, heading: string): string[] {
  const text = readFileSync(new URL(`../docs/${guide}`, import.meta.url), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/${guide} has no section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1].split('\n').filter((line) => line.trim() !== ''),
  );
}

/** A command as this kit runs it: `npx las-conformance` is bin/las-conformance.js. */
function local(command: string): string {
  if (!command.startsWith('npx las-conformance ')) throw new Error(`not a command of the kit: ${command}`);
  return `exec "${process.execPath}" "${BIN}" ${command.slice('npx las-conformance '.length)}`;
}

/** Starts the proxy command, sends `traffic` through it once it serves, then stops it (SIGTERM). */
async function proxyWhile(
  command: string,
  cwd: string,
  env: Record<string, string>,
  traffic: (baseUrl: string) => Promise<void>,
): Promise<ShellResult> {
  const child = spawn('sh', ['-c', local(command)], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  for (let waited = 0; !/serving (\S+) /.test(stdout); waited += 50) {
    if (waited > 30_000 || child.exitCode !== null) throw new Error(`the proxy did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await traffic(/serving (\S+) /.exec(stdout)![1]);
  child.kill('SIGTERM');
  return { code: await closed, stdout, stderr };
}

let dir: string;
let faulted: StartedReferenceServer;
let fixed: StartedReferenceServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-traffic-docs-'));
  faulted = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    faults: [FAULT].filter((name) => !INAPPLICABLE_FAULTS.has(name)),
    ...FAULTED_TOKENS,
  });
  fixed = await startReferenceServer({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await faulted?.close();
  await fixed?.close();
  rmSync(dir, { recursive: true, force: true });
});

const againstFaulted = () =>
  hermeticEnvironment({
    UPSTREAM: faulted.baseUrl,
    LAS_PROXY_PORT: '0',
    LAS_PROXY_ADMIN_PORT: '0',
    LAS_BASE_URL: faulted.baseUrl,
    LAS_SESSION_TOKEN: FAULTED_TOKENS.sessionToken,
    LAS_PAT: FAULTED_TOKENS.pat,
  });
const againstFixed = () =>
  hermeticEnvironment({
    LAS_BASE_URL: fixed.baseUrl,
    LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken,
    LAS_PAT: DEFAULT_CREDENTIALS.pat,
  });

describe('the operating guide: from a violation to a regression case', () => {
  const commands = sectionCommands('operating-the-proxy.md', 'From a violation to a regression case');

  it('shows proxy --capture, judge, replay, replay --save-cases and run, in that order', () => {
    expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx las-conformance proxy',
      'npx las-conformance judge',
      'npx las-conformance replay',
      'npx las-conformance replay',
      'npx las-conformance run',
    ]);
  });

  describeWith(list, 'list')('with a list whose meta.pages the server rounds down', (list) => {
    const metaPages = metaPagesOf(list);
    const path = escapeRegExp(list.pathTemplate);

    it('runs as written: the faulted server is caught at every step, the fixed one passes', async () => {
      const [proxy, judge, replay, save, run] = commands;
      const proxied = await proxyWhile(proxy, dir, againstFaulted(), async (baseUrl) => {
        await send(`${baseUrl}${list.pathTemplate}?${listQuery(list, { limit: 10, offset: 0 })}`, {
          headers: { authorization: `Bearer r:${FAULTED_TOKENS.sessionToken}` },
        });
      });
      expect(proxied.code).toBe(0);
      const captured = readFileSync(join(dir, 'violations.ndjson'), 'utf8');
      expect(captured).toContain(metaPages);

      const judged = await shell(local(judge), dir, againstFaulted());
      expect(judged.code).toBe(1);
      expect(readFileSync(join(dir, 'judged.ndjson'), 'utf8')).toContain(`"rule":"${metaPages}"`);

      const reproduced = await shell(local(replay), dir, againstFaulted());
      expect(reproduced.stdout).toMatch(new RegExp(`^still reproduces: ${metaPages} · GET ${path}`, 'm'));
      expect(reproduced.code).toBe(1);
      const repaired = await shell(local(replay), dir, againstFixed());
      expect(repaired.stdout).toMatch(new RegExp(`^fixed: ${metaPages} · GET ${path}\\S* answered 200 `, 'm'));
      expect(repaired.code).toBe(0);

      const saved = await shell(local(save), dir, againstFaulted());
      expect(saved.stdout).toContain(`staging.yaml: 1 regression case added (${metaPages})`);
      expect(readFileSync(join(dir, 'staging.yaml'), 'utf8')).not.toContain(FAULTED_TOKENS.sessionToken);

      const failing = await shell(local(run), dir, againstFaulted());
      expect(failing.code).toBe(1);
      const passing = await shell(local(run), dir, againstFixed());
      expect(passing.code).toBe(3);
      const record = JSON.parse(readFileSync(join(dir, 'reports/regression/conformance.json'), 'utf8')) as {
        requirements: { id: string; verdict: string }[];
      };
      expect(record.requirements.find((r) => r.id === metaPages)?.verdict).toBe('passed');
    }, 240_000);
  });
});

describeWith(list, 'list')('the CI guide: regression cases in the gate', (list) => {
  const commands = sectionCommands('ci.md', 'Regression cases in the gate');
  const metaPages = metaPagesOf(list);

  it('keeps the captured violation, and the gate fails under its requirement against the faulted server', async () => {
    expect(commands).toHaveLength(2);
    const [save, gate] = commands;
    expect(existsSync(join(dir, 'captures'))).toBe(true);
    const saved = await shell(local(save), dir, againstFaulted());
    expect(saved.code).toBe(1);
    const result = await shell(local(gate), dir, againstFaulted());
    expect(result.code).toBe(1);
    const junit = readFileSync(join(dir, 'reports/conformance/junit.xml'), 'utf8');
    const testcase = new RegExp(`<testcase name="${metaPages}[^"]*"[\\s\\S]*?</testcase>`).exec(junit)?.[0] ?? '';
    expect(testcase).toContain('<failure');
    expect(testcase).toContain(`regression: GET ${list.pathTemplate} ${metaPages}`);
  }, 300_000);
});
