// The deployment recipes of docs/operating-the-proxy.md, run as written: the systemd unit's
// ExecStart in its WorkingDirectory with its Environment (the kit's install directory being this
// repository), its ExecReload after a logrotate-style move, its stop signal; and the Dockerfile's
// CMD in its WORKDIR with its ENV. Only what a machine running the recipe would differ in is
// replaced: where things live (a temporary directory), the upstream, and loopback with port 0
// in place of every interface and fixed ports.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MEDIA_TYPE } from '../../contract/index.ts';
import { contract, servedRequest } from '../../contract/test-support.ts';
import { eventually, send, startUpstream, type TestServer } from '../../proxy/test-support.ts';
import { shell } from '../../test-support/shell.ts';

/** A request the contract serves, to its first operation: the upstream's answer to it breaks the contract. */
async function sendServed(baseUrl: string, token: string): Promise<void> {
  const { method, target, headers, body } = servedRequest(contract.operations[0]);
  await send(`${baseUrl}${target}`, { method, headers: { ...headers, authorization: `Bearer r:${token}` }, body });
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const UNIT = readFileSync(new URL('las-proxy.service', import.meta.url), 'utf8');
const DOCKERFILE = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const GUIDE = readFileSync(new URL('../../docs/operating-the-proxy.md', import.meta.url), 'utf8');
/** What the recipes name that differs on the machine running them. */
const LOOPBACK = {
  LAS_PROXY_HOST: '127.0.0.1',
  LAS_PROXY_ADMIN_HOST: '127.0.0.1',
  LAS_PROXY_PORT: '0',
  LAS_PROXY_ADMIN_PORT: '0',
};

let upstream: TestServer;
let directory: string;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': MEDIA_TYPE });
    res.end('{"data":[{"id":7}]}');
  });
  directory = mkdtempSync(join(tmpdir(), 'las-deploy-'));
});

afterAll(async () => {
  await upstream?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The `[Service]` settings of a unit: each key's values in order. */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let inService = false;
  for (const line of unit.split('\n')) {
    const section = /^\[(.+)\]$/.exec(line.trim());
    if (section) inService = section[1] === 'Service';
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (inService && setting) settings.set(setting[1], [...(settings.get(setting[1]) ?? []), setting[2]]);
  }
  return settings;
}

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(argv: string[], cwd: string, env: Record<string, string>): Running {
  const child = spawn(argv[0], argv.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** The addresses the first line names. */
async function addressesOf(output: () => string): Promise<{ baseUrl: string; adminUrl: string }> {
  const line = await eventually(
    "the proxy's first line",
    () => /serving (\S+) .*admin (\S+),/.exec(output()) ?? undefined,
    30_000,
  );
  return { baseUrl: line[1], adminUrl: line[2] };
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** A uid no account holds, in the range systemd gives dynamic users. */
const SERVICE_USER = 61_999;
/** Running a command as another user needs root and setpriv (util-linux). */
const SERVICE_USER_POSSIBLE = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
if (!SERVICE_USER_POSSIBLE)
  console.log(
    'the systemd install steps test is skipped: running the proxy as a user of its own needs root and setpriv (util-linux)',
  );

/** The text of the guide from a heading to the next of its level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  const end = text.indexOf('\n## ', start + heading.length + 2);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a text, in order. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1].trim());
}

/** The host paths the steps and the unit name, under `root`. */
function relocateHost(text: string, root: string): string {
  return text.replace(
    /\/(opt\/las-conformance|etc\/las-proxy|etc\/systemd\/system|var\/log\/las-proxy|run\/credentials)/g,
    (_match, path: string) => `${root}/${path}`,
  );
}

/** Runs a command as the service user, as DynamicUser=yes does: a uid and gid of its own, no other groups. */
function runAsServiceUser(argv: string[], cwd: string, env: Record<string, string>): Running {
  return run(
    ['/usr/bin/setpriv', `--reuid=${SERVICE_USER}`, `--regid=${SERVICE_USER}`, '--clear-groups', '--', ...argv],
    cwd,
    env,
  );
}

/**
 * Starts an installed unit as systemd would: its logs directory and credentials directory made
 * and given to the service user (LoadCredential copies each file there, readable by that user
 * alone, and %d names the directory), its Environment with %d expanded, ExecStart run as the
 * service user in its WorkingDirectory. Loopback and any free port in place of the unit's ports.
 */
function startUnit(unit: Map<string, string[]>, root: string): Running & { env: Record<string, string> } {
  const logs = `${root}/var/log/${unit.get('LogsDirectory')![0]}`;
  mkdirSync(logs, { recursive: true });
  chownSync(logs, SERVICE_USER, SERVICE_USER);
  const credentials = `${root}/run/credentials/las-proxy.service`;
  mkdirSync(credentials, { recursive: true });
  for (const credential of unit.get('LoadCredential') ?? []) {
    const [name, source] = credential.split(/:(.*)/s, 2);
    copyFileSync(relocateHost(source, root), join(credentials, name));
    chownSync(join(credentials, name), SERVICE_USER, SERVICE_USER);
    chmodSync(join(credentials, name), 0o400);
  }
  chownSync(credentials, SERVICE_USER, SERVICE_USER);
  chmodSync(credentials, 0o500);
  const expand = (value: string) => relocateHost(value, root).replaceAll('%d', credentials);
  const environment = Object.fromEntries(
    unit.get('Environment')!.map((pair) => pair.split(/=(.*)/s, 2).map(expand) as [string, string]),
  );
  const env = {
    ...environment,
    ...LOOPBACK,
    LAS_PROXY_UPSTREAM: `${upstream.url}/v3`,
    CREDENTIALS_DIRECTORY: credentials,
  };
  const [program, ...args] = expand(unit.get('ExecStart')![0]).split(/\s+/);
  return {
    ...runAsServiceUser(
      [existsSync(program) ? program : process.execPath, ...args],
      expand(unit.get('WorkingDirectory')![0]),
      env,
    ),
    env,
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the systemd unit', () => {
  const settings = serviceSettings(UNIT);
  const install = settings.get('WorkingDirectory')![0];

  test("runs node on the installed kit directly, in the kit's directory (no npx, no registry)", () => {
    const [program, script] = settings.get('ExecStart')![0].split(/\s+/);
    expect(program).toMatch(/\/node$/);
    expect(script.startsWith(`${install}/`)).toBe(true);
    expect(UNIT).not.toMatch(/npx|npm exec/);
  });

  test('the guide shows the unit as it is in examples/proxy/las-proxy.service', () => {
    expect(GUIDE).toContain(UNIT.slice(UNIT.indexOf('[Unit]')).trim());
  });

  test('the install steps, run as written, then the unit started as systemd would: the proxy runs as a user of its own, which reads the token only through LoadCredential, and ExecReload reopens the moved log', async (context) => {
    if (!SERVICE_USER_POSSIBLE) {
      context.skip();
      return;
    }
    const root = mkdtempSync(join(tmpdir(), 'las-host-'));
    chmodSync(root, 0o755);
    const host = (path: string) => relocateHost(path, root);
    try {
      const steps = shellBlocks(section(GUIDE, '## A systemd unit')).find((block) =>
        block.includes('systemctl enable'),
      )!;
      const calls = join(root, 'systemctl-calls');
      // No systemd here: sudo runs the command as this (root) process; systemctl notes what it was asked.
      // What a fresh host has before the steps run.
      for (const path of ['opt', 'etc/systemd/system', 'var/log', 'run'])
        mkdirSync(join(root, path), { recursive: true });
      const installed = await shell(
        `set -e\nsudo() { "$@"; }\nsystemctl() { echo "$*" >> ${calls}; }\n${host(steps)}`,
        ROOT,
        { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? root },
      );
      expect({ code: installed.code, stderr: installed.stderr }).toMatchObject({ code: 0 });
      expect(readFileSync(calls, 'utf8').trim()).toBe('enable --now las-proxy');
      const tokenFile = host('/etc/las-proxy/admin-token');
      const token = readFileSync(tokenFile, 'utf8').trim();
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

      const unit = serviceSettings(readFileSync(host('/etc/systemd/system/las-proxy.service'), 'utf8'));
      expect(unit.get('DynamicUser')).toEqual(['yes']);
      expect(
        await runAsServiceUser(
          [process.execPath, '-e', `require('fs').readFileSync(${JSON.stringify(tokenFile)})`],
          root,
          {},
        ).exit,
      ).not.toBe(0);
      const service = startUnit(unit, root);
      try {
        const started = await Promise.race([
          addressesOf(service.stdout).catch((error: Error) => error.message),
          service.exit.then((code) => `exited with ${code}`),
        ]);
        if (typeof started === 'string') throw new Error(`the unit's ExecStart ${started}: ${service.stderr()}`);
        const { baseUrl, adminUrl } = started;
        expect((await send(`${adminUrl}/metrics`)).status).toBe(401);
        expect((await send(`${adminUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
        const violations = service.env.LAS_PROXY_VIOLATIONS;
        expect(violations.startsWith(host('/var/log/las-proxy'))).toBe(true);
        await sendServed(baseUrl, 'deploy');
        await eventually('a line in the log', () => (lines(violations).length > 0 ? true : undefined));
        expect(statSync(violations).uid).toBe(SERVICE_USER);
        renameSync(violations, `${violations}.1`);
        const reload = unit.get('ExecReload')![0].replace('$MAINPID', String(service.child.pid));
        expect(await run(['sh', '-c', reload], root, {}).exit).toBe(0);
        await eventually('the log reopened', () =>
          service.stderr().includes('violations log reopened') ? true : undefined,
        );
        await send(`${baseUrl}/unspecified`, { headers: { authorization: 'Bearer r:deploy' } });
        await eventually('a line in the new log', () => (lines(violations).length > 0 ? true : undefined));
        expect(unit.get('KillSignal')).toEqual(['SIGTERM']);
        service.child.kill('SIGTERM');
        expect(await service.exit).toBe(0);
        expect(lines(`${violations}.1`).length).toBeGreaterThan(0);
      } finally {
        service.child.kill('SIGKILL');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('the command the log rotation section documents', () => {
  test('keeps the process id of the proxy itself: SIGHUP to it reopens the moved log, and the proxy lives on', async () => {
    const root = mkdtempSync(join(tmpdir(), 'las-rotate-'));
    const relocate = (text: string) =>
      text
        .replaceAll('/opt/las-conformance', ROOT)
        .replaceAll('/var/log/las-proxy', root)
        .replaceAll('/run/', `${root}/`);
    const [start, reload] = shellBlocks(section(GUIDE, '## Logs')).map(relocate);
    expect(start).not.toMatch(/npx|npm exec/);
    const started = run(['sh', '-c', start], directory, { ...LOOPBACK, UPSTREAM: `${upstream.url}/v3` });
    let pid = 0;
    try {
      expect(await started.exit).toBe(0);
      pid = Number(readFileSync(join(root, 'las-proxy.pid'), 'utf8'));
      const { baseUrl } = await addressesOf(started.stdout);
      const violations = join(root, 'violations.ndjson');
      await sendServed(baseUrl, 'rotate');
      await eventually('a line in the log', () => (lines(violations).length > 0 ? true : undefined));
      renameSync(violations, `${violations}.1`);
      expect(await run(['sh', '-c', reload], directory, {}).exit).toBe(0);
      await eventually('the log reopened', () =>
        started.stderr().includes('violations log reopened') ? true : undefined,
      );
      await send(`${baseUrl}/unspecified`, { headers: { authorization: 'Bearer r:rotate' } });
      await eventually('a line in the new log', () => (lines(violations).length > 0 ? true : undefined));
      expect(processAlive(pid)).toBe(true);
    } finally {
      if (pid > 0 && processAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        await eventually(
          'the proxy closed',
          () => (started.stderr().includes('validating proxy closed') ? true : undefined),
          20_000,
        );
      }
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

interface DockerInstruction {
  keyword: string;
  value: string;
}

function dockerInstructions(text: string): DockerInstruction[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), value: rest.join(' ') };
    });
}

describe('the Dockerfile', () => {
  const instructions = dockerInstructions(DOCKERFILE);

  test('its build context leaves out what a run or the checkout leaves behind: every entry of .gitignore', () => {
    const entries = (file: string) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line) => line.trim().replace(/\/$/, ''))
        .filter((line) => line !== '' && !line.startsWith('#'));
    const ignored = entries('.dockerignore');
    expect(entries('.gitignore').filter((entry) => !ignored.includes(entry))).toEqual([]);
    // The kit's own reporters live in reports/ beside the runs' folders: only the latter are left out.
    expect(ignored).not.toContain('reports');
  });
  const one = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.value);

  test('builds on an official Node image of a line users run (22 or 24)', () => {
    expect(one('FROM')).toHaveLength(1);
    expect(one('FROM')[0]).toMatch(/^node:(22|24)([.-][a-z0-9.-]+)?$/);
  });

  test('its CMD, run in its WORKDIR with its ENV, serves and writes violations to stdout; SIGTERM stops it cleanly', async () => {
    const workdir = one('WORKDIR')[0];
    const env: Record<string, string> = {};
    for (const value of one('ENV'))
      for (const [, name, setting] of value.matchAll(/([A-Z_]+)=(\S+)/g)) env[name] = setting;
    expect(env.LAS_PROXY_HOST).toBe('0.0.0.0');
    const command = JSON.parse(one('CMD')[0]) as string[];
    expect(command[0]).toBe('node');
    // The image's WORKDIR holds the build context, this repository.
    const container = run(
      [process.execPath, ...command.slice(1)],
      workdir === '/opt/las-conformance' ? ROOT : workdir,
      { ...env, ...LOOPBACK, LAS_PROXY_UPSTREAM: `${upstream.url}/v3` },
    );
    try {
      const { baseUrl, adminUrl } = await addressesOf(container.stderr);
      expect((await send(`${adminUrl}/healthz`)).status).toBe(200);
      await sendServed(baseUrl, 'container');
      await eventually('a violation on stdout', () => (container.stdout().includes('"rule"') ? true : undefined));
      expect(one('STOPSIGNAL')).toEqual(['SIGTERM']);
      container.child.kill('SIGTERM');
      expect(await container.exit).toBe(0);
    } finally {
      container.child.kill('SIGKILL');
    }
  });
});
