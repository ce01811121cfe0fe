// The deployment recipes of docs/operating-the-proxy.md, run as written: the systemd unit's
// ExecStart in its WorkingDirectory with its Environment (the kit's install directory being this
// repository), its ExecReload after a logrotate-style move, its stop signal; and the Dockerfile's
// CMD in its WORKDIR with its ENV. Only what a machine running the recipe would differ in is
// replaced: where things live (a temporary directory), the upstream, and loopback with port 0
// in place of every interface and fixed ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MEDIA_TYPE } from '../../contract/index.ts';
import { eventually, send, startUpstream, type TestServer } from '../../proxy/test-support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const UNIT = readFileSync(new URL('las-proxy.service', import.meta.url), 'utf8');
const DOCKERFILE = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const GUIDE = readFileSync(new URL('../../docs/operating-the-proxy.md', import.meta.url), 'utf8');
/** What the recipes name that differs on the machine running them. */
const LOOPBACK = { LAS_PROXY_HOST: '127.0.0.1', LAS_PROXY_ADMIN_HOST: '127.0.0.1', LAS_PROXY_PORT: '0', LAS_PROXY_ADMIN_PORT: '0' };

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
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** The addresses the first line names. */
async function addressesOf(output: () => string): Promise<{ baseUrl: string; adminUrl: string }> {
  const line = await eventually('the proxy\'s first line', () => /serving (\S+) .*admin (\S+),/.exec(output()) ?? undefined, 30_000);
  return { baseUrl: line[1], adminUrl: line[2] };
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

describe('the systemd unit', () => {
  const settings = serviceSettings(UNIT);
  const install = settings.get('WorkingDirectory')![0];

  test('runs node on the installed kit directly, in the kit\'s directory (no npx, no registry)', () => {
    const [program, script] = settings.get('ExecStart')![0].split(/\s+/);
    expect(program).toMatch(/\/node$/);
    expect(script.startsWith(`${install}/`)).toBe(true);
    expect(UNIT).not.toMatch(/npx|npm exec/);
  });

  test('the guide shows the unit as it is in examples/proxy/las-proxy.service', () => {
    expect(GUIDE).toContain(UNIT.slice(UNIT.indexOf('[Unit]')).trim());
  });

  test('ExecStart serves, ExecReload reopens the moved log in the process that holds it, KillSignal stops it cleanly', async () => {
    const tokenFile = join(directory, 'admin-token');
    writeFileSync(tokenFile, 'deploy-test-token\n');
    const relocate = (value: string) => value.replaceAll(install, ROOT).replace('/var/log/las-proxy', directory).replace('/etc/las-proxy/admin-token', tokenFile);
    const environment = Object.fromEntries(settings.get('Environment')!.map((pair) => pair.split(/=(.*)/s, 2).map(relocate)));
    const env = { ...environment, ...LOOPBACK, LAS_PROXY_UPSTREAM: `${upstream.url}/v3` };
    const [program, ...args] = relocate(settings.get('ExecStart')![0]).split(/\s+/);
    const service = run([program === '/usr/bin/node' ? process.execPath : program, ...args], relocate(install), env);
    try {
      // The first line goes to stdout when the violations go to a file.
      const { baseUrl, adminUrl } = await addressesOf(service.stdout);
      const violations = environment.LAS_PROXY_VIOLATIONS;
      await send(`${baseUrl}/notification-groups?filter[type]=portal`, { headers: { authorization: 'Bearer r:deploy' } });
      await eventually('a line in the log', () => (lines(violations).length > 0 ? true : undefined));
      renameSync(violations, `${violations}.1`);
      const reload = settings.get('ExecReload')![0].replace('$MAINPID', String(service.child.pid));
      expect((await run(['sh', '-c', reload], directory, {}).exit)).toBe(0);
      await eventually('the log reopened', () => (service.stderr().includes('violations log reopened') ? true : undefined));
      await send(`${baseUrl}/unspecified`, { headers: { authorization: 'Bearer r:deploy' } });
      await eventually('a line in the new log', () => (lines(violations).length > 0 ? true : undefined));
      expect((await send(`${adminUrl}/metrics`)).status).toBe(401);
      expect(settings.get('KillSignal')).toEqual(['SIGTERM']);
      service.child.kill('SIGTERM');
      expect(await service.exit).toBe(0);
      expect(lines(`${violations}.1`).length).toBeGreaterThan(0);
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});

interface DockerInstruction {
  keyword: string;
  value: string;
}

function dockerInstructions(text: string): DockerInstruction[] {
  return text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#')).map((line) => {
    const [keyword, ...rest] = line.trim().split(/\s+/);
    return { keyword: keyword.toUpperCase(), value: rest.join(' ') };
  });
}

describe('the Dockerfile', () => {
  const instructions = dockerInstructions(DOCKERFILE);
  const one = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.value);

  test('builds on an official Node image of a line users run (22 or 24)', () => {
    expect(one('FROM')).toHaveLength(1);
    expect(one('FROM')[0]).toMatch(/^node:(22|24)([.-][a-z0-9.-]+)?$/);
  });

  test('its CMD, run in its WORKDIR with its ENV, serves and writes violations to stdout; SIGTERM stops it cleanly', async () => {
    const workdir = one('WORKDIR')[0];
    const env: Record<string, string> = {};
    for (const value of one('ENV')) for (const [, name, setting] of value.matchAll(/([A-Z_]+)=(\S+)/g)) env[name] = setting;
    expect(env.LAS_PROXY_HOST).toBe('0.0.0.0');
    const command = JSON.parse(one('CMD')[0]) as string[];
    expect(command[0]).toBe('node');
    // The image's WORKDIR holds the build context, this repository.
    const container = run([process.execPath, ...command.slice(1)], workdir === '/opt/las-conformance' ? ROOT : workdir, { ...env, ...LOOPBACK, LAS_PROXY_UPSTREAM: `${upstream.url}/v3` });
    try {
      const { baseUrl, adminUrl } = await addressesOf(container.stderr);
      expect((await send(`${adminUrl}/healthz`)).status).toBe(200);
      await send(`${baseUrl}/notification-groups?filter[type]=portal`, { headers: { authorization: 'Bearer r:container' } });
      await eventually('a violation on stdout', () => (container.stdout().includes('"rule"') ? true : undefined));
      expect(one('STOPSIGNAL')).toEqual(['SIGTERM']);
      container.child.kill('SIGTERM');
      expect(await container.exit).toBe(0);
    } finally {
      container.child.kill('SIGKILL');
    }
  });
});
