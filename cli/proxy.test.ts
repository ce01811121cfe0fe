// The `proxy` and `report` subcommands, run as an operator would: spawned, read, signalled; their
// usage errors, but one of each, in this process.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contract, itWith, list, listTarget, unallowedFilter } from '../contract/test-support.ts';
import { eventually, send, startUpstream, type TestServer } from '../proxy/test-support.ts';
import { firstLine, runCli, runCliInProcess, runCliWithin, spawnCli } from './test-support.ts';

const ROOT_README = fileURLToPath(new URL('../README.md', import.meta.url));
const banner =
  /^las-conformance proxy: serving (http:\/\/\S+\/v3) \(upstream \S+\), admin (http:\/\/\S+), mode (report|enforce)$/;

let upstream: TestServer;
let directory: string;
let slowArrived: () => void = () => undefined;
let forwardedFor: string | string[] | undefined;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    req.resume();
    forwardedFor = req.headers['x-forwarded-for'];
    const slow = req.url?.includes('slow') === true;
    if (slow) slowArrived();
    const delay = slow ? 300 : 0;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
      res.end('{"data":[]}');
    }, delay);
  });
  directory = mkdtempSync(join(tmpdir(), 'las-proxy-cli-'));
});

afterAll(async () => {
  await upstream?.close();
  rmSync(directory, { recursive: true, force: true });
});

const LIST = 'list';
const session = { authorization: 'Bearer r:cli-token' };

describe('las-conformance proxy', () => {
  itWith(list, LIST)(
    'takes every flag from LAS_PROXY_* as well, and the admin token from LAS_ADMIN_TOKEN',
    async (list) => {
      const environment = {
        ...process.env,
        LAS_PROXY_UPSTREAM: `${upstream.url}/v3`,
        LAS_PROXY_PORT: '0',
        LAS_PROXY_ADMIN_PORT: '0',
        LAS_PROXY_MODE: 'enforce',
        LAS_PROXY_VIOLATIONS: join(directory, 'from-env.ndjson'),
        LAS_ADMIN_TOKEN: 'env-admin-token',
      };
      const proxy = spawnCli(['proxy', '--log-level', 'warn'], environment);
      const match = banner.exec(await firstLine(proxy));
      expect(match).not.toBeNull();
      const [, baseUrl, adminUrl, mode] = match!;
      expect(mode).toBe('enforce');
      expect((await send(`${baseUrl}${unallowedFilter(list)!.target}`, { headers: session })).status).toBe(400);
      expect((await send(`${adminUrl}/metrics`)).status).toBe(401);
      expect((await send(`${adminUrl}/metrics`, { headers: { authorization: 'Bearer env-admin-token' } })).status).toBe(
        200,
      );
      proxy.child.kill('SIGTERM');
      expect(await proxy.exit).toBe(0);
    },
  );

  itWith(list, LIST)(
    'SIGHUP reopens the violations file: after a rotation, findings go to a fresh file of the same name',
    async (list) => {
      const violations = join(directory, 'rotated.ndjson');
      const proxy = spawnCli([
        'proxy',
        '--upstream',
        `${upstream.url}/v3`,
        '--port',
        '0',
        '--admin-port',
        '0',
        '--violations',
        violations,
        '--log-level',
        'warn',
      ]);
      const [, baseUrl] = banner.exec(await firstLine(proxy))!;
      const headers = session;
      await send(`${baseUrl}${unallowedFilter(list)!.target}`, {
        headers: { ...headers, 'x-request-id': 'before-rotation' },
      });
      await eventually('the first finding written', () =>
        readFileSync(violations, 'utf8').includes('before-rotation') ? true : undefined,
      );
      renameSync(violations, `${violations}.1`);
      proxy.child.kill('SIGHUP');
      await eventually('a fresh file', () => (existsSync(violations) ? true : undefined));
      await send(`${baseUrl}${listTarget(list, { limit: 0, offset: 0 })}`, {
        headers: { ...headers, 'x-request-id': 'after-rotation' },
      });
      await eventually('the next finding in the fresh file', () =>
        readFileSync(violations, 'utf8').includes('after-rotation') ? true : undefined,
      );
      expect(readFileSync(`${violations}.1`, 'utf8')).not.toContain('after-rotation');
      proxy.child.kill('SIGTERM');
      expect(await proxy.exit).toBe(0);
    },
  );

  itWith(list, LIST)(
    'prints the addresses first, logs violations to the file, drains and exits 0 on SIGTERM',
    async (list) => {
      const violations = join(directory, 'violations.ndjson');
      const proxy = spawnCli([
        'proxy',
        '--upstream',
        `${upstream.url}/v3`,
        '--port',
        '0',
        '--admin-port',
        '0',
        '--violations',
        violations,
        '--log-level',
        'warn',
        '--forwarded-headers',
      ]);
      const line = await firstLine(proxy);
      const match = banner.exec(line);
      expect(match, line).not.toBeNull();
      const [, baseUrl, adminUrl] = match!;
      expect((await send(`${adminUrl}/healthz`)).status).toBe(200);

      const invalid = await send(`${baseUrl}${unallowedFilter(list)!.target}`, { headers: session });
      expect(invalid.status).toBe(200);
      expect(forwardedFor).toBe('127.0.0.1');
      // SIGTERM while an exchange is in flight (the upstream holds it 300 ms): it still completes.
      const arrived = new Promise<void>((resolve) => (slowArrived = resolve));
      const inFlight = send(`${baseUrl}${listTarget(list)}&slow`, { headers: session });
      await arrived;
      proxy.child.kill('SIGTERM');
      expect((await inFlight).status).toBe(200);
      expect(await proxy.exit).toBe(0);

      const rules = readFileSync(violations, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { rule: string; direction: string });
      const rule = list.roles.filterRequired;
      expect(rules.map((r) => `${r.direction} ${r.rule}`)).toEqual([`request ${rule}`, `exchange ${rule}`]);
      expect(proxy.stderr()).not.toContain('cli-token');
    },
  );

  itWith(list, LIST)('with violations on stdout, names the addresses on stderr instead', async (list) => {
    const proxy = spawnCli([
      'proxy',
      '--upstream',
      `${upstream.url}/v3`,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--log-level',
      'silent',
    ]);
    const line = await firstLine(proxy, 'stderr');
    const [, baseUrl] = banner.exec(line) ?? [];
    expect(baseUrl, line).toBeDefined();
    // No filter at all: the member it is served by is missing.
    await send(`${baseUrl}${list.pathTemplate}`, { headers: session });
    const lineOut = await firstLine(proxy);
    expect(JSON.parse(lineOut)).toEqual(
      expect.objectContaining({
        rule: list.roles.filterRequired,
        direction: 'request',
        pointer: unallowedFilter(list)!.parameter,
      }),
    );
    proxy.child.kill('SIGINT');
    expect(await proxy.exit).toBe(0);
  });

  const usageErrors: { name: string; args: string[]; says: RegExp; asProcess?: true }[] = [
    { name: 'no --upstream', args: ['proxy'], says: /required option '--upstream <url>'/, asProcess: true },
    { name: 'an upstream that is not a URL', args: ['proxy', '--upstream', 'staging'], says: /expected a URL/ },
    {
      name: 'a sample rate above 1',
      args: ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--sample', '2'],
      says: /expected a number from 0 to 1/,
    },
    {
      name: 'an unknown mode',
      args: ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--mode', 'audit'],
      says: /Allowed choices are report, enforce/,
    },
    {
      name: 'an --upstream-ca file that does not exist',
      args: ['proxy', '--upstream', 'https://127.0.0.1:1/v3', '--upstream-ca', 'missing-ca.pem'],
      says: /^las-conformance: --upstream-ca missing-ca\.pem cannot be read \(ENOENT\)/m,
    },
    {
      name: 'an --upstream-ca file with no certificate',
      args: ['proxy', '--upstream', 'https://127.0.0.1:1/v3', '--upstream-ca', 'package.json'],
      says: /^las-conformance: --upstream-ca package\.json holds no PEM certificate$/m,
    },
    {
      name: 'an --upstream-ca for a plain http upstream',
      args: ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--upstream-ca', 'proxy/fixtures/test-upstream.cert.pem'],
      says: /^las-conformance: --upstream-ca applies to an https upstream/m,
    },
    {
      name: '--tls-cert without --tls-key',
      args: ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--tls-cert', 'proxy/fixtures/test-upstream.cert.pem'],
      says: /^las-conformance: --tls-cert and --tls-key go together/m,
    },
    {
      name: 'a --tls-key file with no private key',
      args: [
        'proxy',
        '--upstream',
        'http://127.0.0.1:1/v3',
        '--tls-cert',
        'proxy/fixtures/test-upstream.cert.pem',
        '--tls-key',
        'package.json',
      ],
      says: /^las-conformance: --tls-key package\.json holds no PEM private key$/m,
    },
    {
      name: 'a violations file in a missing directory',
      args: ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--violations', '/nonexistent-dir/v.ndjson'],
      says: /^las-conformance: cannot open the violations file .*: ENOENT$/m,
    },
  ];
  for (const c of usageErrors) {
    test(`exits 2 on ${c.name}, with a one-line reason and no stack trace${c.asProcess ? ' (a real process)' : ''}`, async () => {
      const result = await (c.asProcess ? runCli : runCliInProcess)(c.args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(c.says);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }
});

test('exits 2 when its port is taken', async () => {
  const proxy = spawnCli([
    'proxy',
    '--upstream',
    `${upstream.url}/v3`,
    '--port',
    String(upstream.port),
    '--admin-port',
    '0',
  ]);
  expect(await proxy.exit).toBe(2);
  expect(proxy.stderr()).toMatch(/^las-conformance: cannot listen on 127\.0\.0\.1: .*EADDRINUSE/m);
});

describe('las-conformance report', () => {
  const operation = contract.operations[0];
  // A MUST of section 5 every operation holds: a request without credentials.
  const rule = 'AUTH-CREDENTIALS-PRESENT';
  const record = {
    time: '2026-01-01T10:00:00.000Z',
    requestId: 'r1',
    method: operation.method,
    path: `${contract.basePath}${operation.pathTemplate}`,
    operationId: operation.operationId,
    direction: 'request',
    status: 401,
    pointer: '',
    message: 'no credentials',
  };

  test('prints Markdown and exits 1 when the service broke the contract at MUST', async () => {
    const file = join(directory, 'must.ndjson');
    writeFileSync(file, `${JSON.stringify({ ...record, direction: 'exchange', rule, level: 'MUST' })}\nnot json\n`);
    const report = spawnCli(['report', file]);
    expect(await report.exit).toBe(1);
    expect(report.stdout()).toContain(`| MUST | ${rule} | ${contract.requirement(rule).section} | 1 |`);
    expect(report.stdout()).toContain('1 malformed line skipped (line 2).');
  });

  test("merges several logs; a client's MUST findings fail the report only with --include-client", async () => {
    const first = join(directory, 'replica-1.ndjson');
    const second = join(directory, 'replica-2.ndjson');
    writeFileSync(first, `${JSON.stringify({ ...record, rule, level: 'MUST' })}\n`);
    writeFileSync(second, `${JSON.stringify({ ...record, requestId: 'r2', rule, level: 'MUST', repeated: 4 })}\n`);
    const report = spawnCli(['report', first, second]);
    expect(await report.exit).toBe(0);
    expect(report.stdout()).toContain('5 findings, first seen');
    expect(report.stdout()).toContain(': 1 written one by one, from 1 exchange, and 4 counted on summary lines.');
    expect(report.stdout()).toContain('Client: MUST 5 · SHOULD 0 · INFO 0.');
    expect(await spawnCli(['report', first, second, '--include-client']).exit).toBe(1);
  });

  test('exits 2 at once on a link to /dev/zero, whose first line never ends, and skips a later line past 1 MiB', async () => {
    const zero = join(directory, 'zero.ndjson');
    symlinkSync('/dev/zero', zero);
    const refused = await runCliWithin(['report', zero], 15);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a violations log: line 1 is longer than 1 MiB\n$/);
    const long = join(directory, 'long-line.ndjson');
    const finding = JSON.stringify({ ...record, direction: 'exchange', rule, level: 'MUST' });
    writeFileSync(long, `${finding}\n${'x'.repeat(1024 * 1024 + 1)}\n${finding}\n`);
    const report = spawnCli(['report', long]);
    expect(await report.exit).toBe(1);
    expect(report.stdout()).toContain('1 malformed line skipped (line 2).');
  });

  const notLogs = [
    {
      name: 'a file that is not a violations log',
      file: () => join(ROOT_README),
      says: /is not a violations log: line 1 is not a finding the proxy writes\n$/,
    },
    { name: 'a directory', file: () => directory, says: /is a directory, not a violations log\n$/ },
  ];
  for (const c of notLogs) {
    test(`exits 2 on ${c.name}, with one line naming it`, async () => {
      const report = await runCliInProcess(['report', c.file()]);
      expect(report.code).toBe(2);
      expect(report.stderr).toMatch(
        new RegExp(`^las-conformance: ${c.file().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${c.says.source}`),
      );
      expect(report.stderr.split('\n').length).toBe(2);
    });
  }

  test('writes HTML with --html and exits 0 without MUST findings', async () => {
    const file = join(directory, 'should.ndjson');
    const html = join(directory, 'report.html');
    writeFileSync(file, `${JSON.stringify({ ...record, rule: 'RES-ID-OBJECTID', level: 'SHOULD' })}\n`);
    const report = spawnCli(['report', file, '--html', html]);
    expect(await report.exit).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<td>RES-ID-OBJECTID</td>');
  });

  test('reads a log that begins with a line of exchanges shed, and lists them beside the findings', async () => {
    const file = join(directory, 'shed.ndjson');
    const shed = {
      time: '2026-01-01T10:00:10.000Z',
      shed: 3,
      bytes: 3_000_000,
      reason: 'client-share',
      client: '203.0.113.7',
      operationId: operation.operationId,
      message: '3 exchanges relayed unjudged',
    };
    writeFileSync(file, `${JSON.stringify(shed)}\n${JSON.stringify({ ...record, rule, level: 'MUST' })}\n`);
    const report = await runCliInProcess(['report', file]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('3 exchanges (3000000 body bytes) relayed unjudged (shed)');
    expect(report.stdout).toContain(
      `| 203.0.113.7 | ${operation.operationId} | client's share of the backlog full | 3 | 3000000 |`,
    );
  });

  test('exits 2 on a log it cannot read (a real process)', async () => {
    const report = spawnCli(['report', join(directory, 'missing.ndjson')]);
    expect(await report.exit).toBe(2);
    expect(report.stderr()).toMatch(/^las-conformance: cannot read .*missing\.ndjson: ENOENT\n$/);
  });
});
