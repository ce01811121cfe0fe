// `las-conformance serve` run as a person or a script would: spawned, read, asked, signalled; its
// usage errors, but one, in this process.
import { describe, expect, it } from 'vitest';
import { firstLine, runCli, runCliInProcess, spawnCli, type CliProcess } from '../cli/test-support.ts';
import type { Operation } from '../contract/index.ts';
import { contract, itWith, jsonApi, list, listQuery } from '../contract/test-support.ts';
import { CHOICES, DEFAULT_CREDENTIALS, FAULT_NAMES, FAULTS, startReferenceServer } from './index.ts';
import { completeDocumentOf } from './test-support.ts';

const BASE_URL = /^http:\/\/127\.0\.0\.1:\d+\/v3$/;
const itWithList = itWith(list, 'list');
/** The path of a request to a list: its smallest query. */
const listPath = (operation: Operation) => `${operation.pathTemplate}?${listQuery(operation)}`;

/** A request the reference server serves: the operation's smallest query, or its complete document. */
function servedRequest(operation: Operation): { path: string; method: string; body?: string } {
  const query = listQuery(operation);
  return {
    path: query === '' ? operation.pathTemplate : `${operation.pathTemplate}?${query}`,
    method: operation.method,
    ...(operation.requestBody ? { body: JSON.stringify(completeDocumentOf(operation.operationId)) } : {}),
  };
}

/** `las-conformance serve ARGS`, with no fault or choice switched on from this process's environment. */
function run(args: string[], env: Record<string, string> = {}): CliProcess {
  return spawnCli(['serve', ...args], { ...process.env, LAS_FAULTS: '', LAS_CHOICES: '', ...env });
}

async function get(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; json: { meta?: Record<string, unknown> } }> {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  return { status: response.status, json: (await response.json()) as { meta?: Record<string, unknown> } };
}

/** The status of a served request sent with `headers`. */
async function statusOf(baseUrl: string, request: ReturnType<typeof servedRequest>, headers: Record<string, string>) {
  const { path, ...init } = request;
  return (await fetch(`${baseUrl}${path}`, { ...init, headers: { ...headers, ...(init.body ? jsonApi : {}) } })).status;
}

/** The meta of a list page as a reference server with no fault or choice answers it. */
async function plainMeta(path: string): Promise<Record<string, unknown> | undefined> {
  const server = await startReferenceServer();
  try {
    return (await get(server.baseUrl, path, session)).json.meta;
  } finally {
    await server.close();
  }
}

/** Starts the command, hands its base URL to `use`, then stops it with `signal` and returns the exit code. */
async function serving(
  args: string[],
  env: Record<string, string>,
  use: (baseUrl: string, started: CliProcess) => Promise<void>,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  const started = run(args, env);
  try {
    const baseUrl = await firstLine(started);
    expect(baseUrl, started.stderr()).toMatch(BASE_URL);
    await use(baseUrl, started);
  } finally {
    started.child.kill(signal);
  }
  return started.exit;
}

const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };

describe('las-conformance serve', () => {
  it('prints its base URL first, answers, logs JSON lines on stderr without tokens, and exits 0 on SIGTERM', async () => {
    const request = servedRequest(contract.operations[0]);
    let stderr = () => '';
    let served = 0;
    const code = await serving(['--port', '0'], {}, async (baseUrl, started) => {
      stderr = started.stderr;
      served = await statusOf(baseUrl, request, session);
      expect(served).toBeGreaterThanOrEqual(200);
      expect(served).toBeLessThan(300);
      expect(await statusOf(baseUrl, request, {})).toBe(401);
      expect(started.stdout()).toContain(`Authorization: Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`);
    });
    expect(code).toBe(0);
    const records = stderr()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((r) => r.msg === 'request').map((r) => r.status)).toEqual([served, 401]);
    expect(records.at(-1)?.msg).toBe('reference server closed');
  });

  it('exits 0 on SIGINT', async () => {
    expect(await serving(['--port', '0'], {}, async () => undefined, 'SIGINT')).toBe(0);
  });

  itWithList('switches faults on from --fault, repeatable', async (list) => {
    const path = `${listPath(list)}&page[limit]=5&page[offset]=5`;
    const { total } = (await plainMeta(path))!;
    await serving(
      ['--port', '0', '--fault', 'meta-total-not-integer', '--fault', 'meta-offset-not-echoed'],
      {},
      async (baseUrl, started) => {
        const { json } = await get(baseUrl, path, session);
        expect(json.meta).toMatchObject({ total: String(total), offset: 0 });
        expect(started.stdout()).toContain('faults: meta-total-not-integer, meta-offset-not-echoed');
      },
    );
  });

  itWithList(
    'reads LAS_FAULTS and the token variables, flags winning over them, and never prints a supplied token',
    async (list) => {
      const path = listPath(list);
      const { total } = (await plainMeta(path))!;
      const env = {
        LAS_FAULTS: 'no-such-fault',
        LAS_SESSION_TOKEN: 'session-from-env',
        LAS_PAT: 'pat-from-env',
        LAS_LEGACY_HEADER: 'X-Other-Session',
      };
      await serving(
        ['--port', '0', '--fault', 'meta-total-not-integer', '--session-token', 'session-from-flag'],
        env,
        async (baseUrl, started) => {
          expect((await get(baseUrl, path, { authorization: 'Bearer r:session-from-flag' })).json.meta?.total).toBe(
            String(total),
          );
          expect((await get(baseUrl, path, { authorization: 'Bearer r:session-from-env' })).status).toBe(401);
          expect((await get(baseUrl, path, { authorization: 'Bearer p:pat-from-env' })).status).toBe(200);
          expect((await get(baseUrl, path, { 'x-other-session': 'session-from-flag' })).status).toBe(200);
          for (const token of ['session-from-flag', 'session-from-env', 'pat-from-env'])
            expect(started.stdout() + started.stderr()).not.toContain(token);
          expect(started.stdout()).toContain('<session token supplied, not shown>');
        },
      );
    },
  );

  itWithList('switches choices on from --choice, repeatable, the flags winning over LAS_CHOICES', async (list) => {
    const path = listPath(list);
    await serving(
      ['--port', '0', '--choice', 'list-meta-omitted', '--choice', 'www-authenticate-omitted'],
      { LAS_CHOICES: 'no-such-choice' },
      async (baseUrl, started) => {
        expect((await get(baseUrl, path, session)).json.meta).toBeUndefined();
        const refused = await fetch(`${baseUrl}${path}`);
        expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, null]);
        expect(started.stdout()).toContain('choices: list-meta-omitted, www-authenticate-omitted');
      },
    );
  });

  itWithList('reads LAS_CHOICES, comma-separated', async (list) => {
    const path = listPath(list);
    await serving(
      ['--port', '0'],
      { LAS_CHOICES: 'default-page-size-5, page-numbering-from-zero' },
      async (baseUrl) => {
        expect((await get(baseUrl, path, session)).json.meta).toMatchObject({ limit: 5, page: 0 });
      },
    );
  });

  it('lists the choices and exits 0', async () => {
    const listed = run(['--list-choices']);
    expect(await listed.exit).toBe(0);
    expect(
      listed
        .stdout()
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(CHOICES.map((c) => c.name));
  });

  it('lists the faults and exits 0', async () => {
    const listed = run(['--list-faults']);
    expect(await listed.exit).toBe(0);
    const lines = listed.stdout().trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(FAULTS.map((f) => f.name));
  });

  const usageErrors: Array<{
    title: string;
    args: string[];
    env: Record<string, string>;
    message: RegExp;
    asProcess?: true;
  }> = [
    {
      title: 'an unknown --fault',
      args: ['--fault', 'no-such-fault'],
      env: {},
      message: new RegExp(`^las-conformance: unknown fault "no-such-fault"; valid faults: ${FAULT_NAMES.join(', ')}$`),
      asProcess: true,
    },
    {
      title: 'an unknown fault in LAS_FAULTS',
      args: [],
      env: { LAS_FAULTS: `${FAULT_NAMES[0]}, nope` },
      message: /^las-conformance: unknown fault "nope"; valid faults: /,
    },
    {
      title: 'an unknown --choice',
      args: ['--choice', 'no-such-choice'],
      env: {},
      message: new RegExp(`^las-conformance: unknown choice "no-such-choice"; valid choices: ${CHOICES[0].name}, `),
    },
    {
      title: 'an empty token',
      args: ['--pat', ''],
      env: {},
      message: /^las-conformance: pat must be a non-empty token/,
    },
    {
      title: 'a port that is not a number',
      args: ['--port', 'abc'],
      env: {},
      message: /expected a whole number from 0 to 65535/,
    },
  ];
  for (const c of usageErrors) {
    it(`exits 2 with one clear line for ${c.title}${c.asProcess ? ' (a real process)' : ''}`, async () => {
      // Neither runner passes on this process's LAS_FAULTS or LAS_CHOICES.
      const failed = await (c.asProcess ? runCli : runCliInProcess)(['serve', '--port', '0', ...c.args], c.env);
      expect(failed.code).toBe(2);
      expect(failed.stdout).toBe('');
      expect(failed.stderr.split('\n')[0]).toMatch(c.message);
      expect(failed.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('exits 2 when the port is taken', async () => {
    const occupant = await startReferenceServer();
    try {
      const failed = run(['--port', String(occupant.port)]);
      expect(await failed.exit).toBe(2);
      expect(failed.stderr()).toMatch(/^las-conformance: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);
    } finally {
      await occupant.close();
    }
  });
});
