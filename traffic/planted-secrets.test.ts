// Credentials never leave: a corpus of planted secrets, one in every place a request or an answer
// can carry one, goes through every sink the kit writes (the proxy's capture files in report and
// enforce mode, its violations log, its own log, the dashboard's summary; judge and report output; replay's console,
// the requests it sends and the regression cases it saves), and none of them holds one. Replay
// sends only this run's credentials, and no method override without --allow-writes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliInProcess, type CliResult } from '../cli/test-support.ts';
import { MEDIA_TYPE } from '../contract/index.ts';
import { contract, create, describeWith, itemExample, list, listQuery } from '../contract/test-support.ts';
import { createProxyLogger } from '../proxy/logger.ts';
import { startValidatingProxy } from '../proxy/proxy.ts';
import { Recorder, send, startUpstream, type TestServer } from '../proxy/test-support.ts';
import { readRegressionCases } from '../targets/regression-cases.ts';

const planted = (name: string) => `planted-${name}-5e1c9a7b`;
const JWT = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(`{"sub":"${planted('jwt-claim')}"}`).toString('base64url')}.${planted('jwt-signature')}`;
const BASIC = Buffer.from(`alice:${planted('basic-password')}`).toString('base64');
const DIGEST_RESPONSE = planted('digest-response');
const SESSION = planted('session');
const FORM = 'application/x-www-form-urlencoded';

/** The run's own tokens: the only ones a replay may send. */
const RUN = { sessionToken: 'run-own-session-token-0a1b', pat: 'run-own-pat-token-2c3d' };
/** The corpus reads a page of the first list and writes to the first create: both, or it is skipped. */
const listAndCreate = create && list;
const LIST = list === undefined ? '' : `${list.pathTemplate}?${listQuery(list, { limit: 5, offset: 0 })}`;
const WRITE = create?.pathTemplate ?? '';
const TYPE = create?.resourceType ?? '';

type ReplayExpectation = 'sent' | 'not sent: credential' | 'not sent: body' | 'not sent: override' | 'not sent: write';

interface PlantedRequest {
  name: string;
  method: string;
  /** Under the base path. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What replay without --allow-writes does with it. */
  replay: ReplayExpectation;
}

const session = { authorization: `Bearer r:${SESSION}` };
const jsonBody = { 'content-type': MEDIA_TYPE };

/** Every place a request carries a credential, each with its own planted value. */
const CORPUS: PlantedRequest[] = [
  {
    name: 'session bearer, cookie, key header, client headers, the token again under a harmless query name',
    method: 'GET',
    path: `${LIST}&t=${SESSION}`,
    headers: {
      ...session,
      cookie: `sid=${planted('cookie')}; theme=${planted('cookie-theme')}`,
      'x-api-key': planted('x-api-key'),
      'user-agent': 'Planted-Agent/1.0 (client-identifying)',
      accept: MEDIA_TYPE,
    },
    replay: 'sent',
  },
  {
    name: 'the legacy header, a *-token and a *secret* header',
    method: 'GET',
    path: LIST,
    headers: {
      [contract.legacyHeader]: planted('legacy'),
      'x-refresh-token': planted('x-refresh-token'),
      'x-client-secret': planted('x-client-secret'),
    },
    replay: 'sent',
  },
  {
    name: 'PAT bearer',
    method: 'GET',
    path: LIST,
    headers: { authorization: `Bearer p:${planted('pat')}` },
    replay: 'sent',
  },
  {
    name: "the run's own token under a harmless query name",
    method: 'GET',
    path: `${LIST}&q=${RUN.sessionToken}`,
    headers: session,
    replay: 'sent',
  },
  {
    name: 'a JWT bearer',
    method: 'GET',
    path: LIST,
    headers: { authorization: `Bearer ${JWT}` },
    replay: 'not sent: credential',
  },
  {
    name: 'Basic',
    method: 'GET',
    path: LIST,
    headers: { authorization: `Basic ${BASIC}` },
    replay: 'not sent: credential',
  },
  {
    name: 'Digest',
    method: 'GET',
    path: LIST,
    headers: {
      authorization: `Digest username="alice", realm="api", nonce="n", uri="/v3", response="${DIGEST_RESPONSE}"`,
    },
    replay: 'not sent: credential',
  },
  {
    name: 'credentials in the query by name',
    method: 'GET',
    path: `${LIST}&access_token=${planted('access-token')}&api_key=${planted('api-key')}&token=${planted('query-token')}`,
    headers: {},
    replay: 'not sent: credential',
  },
  {
    name: 'X-HTTP-Method-Override',
    method: 'GET',
    path: LIST,
    headers: { ...session, 'x-http-method-override': 'DELETE' },
    replay: 'not sent: override',
  },
  {
    name: '_method in the query',
    method: 'GET',
    path: `${LIST}&_method=DELETE`,
    headers: session,
    replay: 'not sent: override',
  },
  {
    name: 'X-Original-URL',
    method: 'GET',
    path: LIST,
    headers: { ...session, 'x-original-url': `${contract.basePath}${WRITE}` },
    replay: 'not sent: override',
  },
  {
    name: 'JSON members by name at any depth, of every value type',
    method: 'POST',
    path: WRITE,
    headers: { ...session, ...jsonBody },
    body: JSON.stringify({
      data: {
        type: TYPE,
        attributes: {
          label: 'x',
          password: planted('json-password'),
          credentials: { inner: planted('json-object') },
          apiKeys: [planted('json-array')],
          pin: 73914582,
        },
      },
    }),
    replay: 'not sent: write',
  },
  {
    name: 'a form body',
    method: 'POST',
    path: WRITE,
    headers: { ...session, 'content-type': FORM },
    body: `label=x&password=${planted('form-password')}&_method=PUT`,
    replay: 'not sent: write',
  },
  {
    name: 'a trailing comma',
    method: 'POST',
    path: WRITE,
    headers: { ...session, ...jsonBody },
    body: `{"data": {"type": "${TYPE}", "attributes": {"password": "${planted('trailing-comma')}",}}}`,
    replay: 'not sent: write',
  },
  {
    name: 'a document that is a list, which a message with --log-values shows',
    method: 'POST',
    path: WRITE,
    headers: { ...session, ...jsonBody },
    body: JSON.stringify([{ password: planted('listed-password') }]),
    replay: 'not sent: write',
  },
  {
    name: 'an object under a credential name in a body that does not parse',
    method: 'POST',
    path: WRITE,
    headers: { ...session, ...jsonBody },
    body: `{"data": {"type": "${TYPE}", "attributes": {"secrets": {"inner": "${planted('broken-object')}"}},`,
    replay: 'not sent: body',
  },
  {
    name: 'a byte order mark',
    method: 'POST',
    path: WRITE,
    headers: { ...session, ...jsonBody },
    body: `\ufeff{"data": {"type": "${TYPE}", "attributes": {"secret": "${planted('bom-secret')}"}}}`,
    replay: 'not sent: write',
  },
];

/** What the answers carry: a Set-Cookie, a credential member, and an answer cut short in a refresh token. */
const ANSWER_SECRETS = [planted('set-cookie'), planted('answer-token'), planted('cut-short')];
/** A page of the list whose one item has a number for its id and a credential among its attributes. */
function brokenList(): string {
  if (list === undefined) return '';
  const item = itemExample(list) as { attributes?: Record<string, unknown> };
  return JSON.stringify({
    data: [{ ...item, id: 7, attributes: { ...item.attributes, access_token: planted('answer-token') } }],
  });
}
const BROKEN_LIST = brokenList();
const CUT_SHORT = `{"data":{"type":"${TYPE}","id":"1","attributes":{"refreshToken":"${planted('cut-short')}`;

/** Every planted secret, and the forms they could leak in (Basic's base64). */
const SECRETS = [
  ...new Set([
    ...CORPUS.flatMap((c) => JSON.stringify(c).match(/planted-[a-z-]+-5e1c9a7b/g) ?? []),
    ...ANSWER_SECRETS,
    planted('foreign-query'),
    planted('foreign-message'),
    BASIC,
    JWT.split('.')[1],
  ]),
];

function answerOf(method: string): { headers: Record<string, string>; body: string } {
  return method === 'GET'
    ? {
        headers: { 'content-type': MEDIA_TYPE, 'set-cookie': `session=${planted('set-cookie')}; HttpOnly` },
        body: BROKEN_LIST,
      }
    : { headers: { 'content-type': MEDIA_TYPE }, body: CUT_SHORT };
}

interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let dir: string;
let upstream: TestServer;
const received: Received[] = [];

/** The planted secrets each sink holds: none, for every sink. */
function leaks(written: Map<string, string>): Record<string, string[]> {
  return Object.fromEntries(
    [...written]
      .map(([sink, text]): [string, string[]] => [sink, SECRETS.filter((secret) => text.includes(secret))])
      .filter(([, found]) => found.length > 0),
  );
}

function harOfCorpus(): string {
  const entries = CORPUS.map((c) => {
    const answer = answerOf(c.method);
    return {
      startedDateTime: '2026-11-26T10:00:00.000Z',
      time: 1,
      request: {
        method: c.method,
        url: `http://api.example.test/v3${c.path}`,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(c.headers).map(([name, value]) => ({ name, value })),
        queryString: [],
        ...(c.body === undefined ? {} : { postData: { mimeType: c.headers['content-type'], text: c.body } }),
        headersSize: -1,
        bodySize: -1,
      },
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(answer.headers).map(([name, value]) => ({ name, value })),
        content: { size: answer.body.length, mimeType: MEDIA_TYPE, text: answer.body },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    };
  });
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'browser', version: '1' }, entries } });
}

function keep(written: Map<string, string>, sink: string, result: CliResult): CliResult {
  written.set(`${sink} (stdout)`, result.stdout);
  written.set(`${sink} (stderr)`, result.stderr);
  return result;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-planted-'));
  upstream = await startUpstream((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answerOf(req.method ?? 'GET');
      res.writeHead(200, answer.headers);
      res.end(answer.body);
    });
  });
  writeFileSync(join(dir, 'browser.har'), harOfCorpus());
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describeWith(listAndCreate, 'list and create')('the planted corpus through the proxy', () => {
  for (const mode of ['report', 'enforce'] as const) {
    it(`${mode} mode: the capture files, the violations log, the proxy's log and the dashboard's summary hold no planted secret`, async () => {
      const written = new Map<string, string>();
      const captureDir = join(dir, `capture-${mode}`);
      const violations = new Recorder();
      const log = new Recorder();
      const proxy = await startValidatingProxy({
        upstream: `${upstream.url}/v3`,
        mode,
        capture: { dir: captureDir },
        violations,
        logger: createProxyLogger(log, 'debug'),
        judgeThread: false,
        logValues: true,
      });
      try {
        for (const c of CORPUS)
          await send(`${proxy.baseUrl}${c.path}`, {
            method: c.method,
            headers: c.headers,
            ...(c.body === undefined ? {} : { body: c.body }),
          });
        await proxy.proxy.settled();
        for (const path of ['/summary.json', '/metrics'])
          written.set(`admin ${path} (${mode})`, (await send(`${proxy.adminUrl}${path}`)).body.toString());
      } finally {
        await proxy.close();
      }
      const capture = readdirSync(captureDir)
        .map((name) => readFileSync(join(captureDir, name), 'utf8'))
        .join('');
      // The scan means something only if the exchanges were written, masked.
      expect(capture.trim().split('\n').length).toBeGreaterThanOrEqual(mode === 'report' ? CORPUS.length : 4);
      expect(capture).toContain('***');
      // A message quoting a body (--log-values) with a credential in it: masked there too.
      expect(violations.text()).toContain('got [{\\"password\\":\\"***\\"}]');
      expect(written.get(`admin /summary.json (${mode})`)).toContain('access_token=***');
      written.set(`capture (${mode})`, capture);
      written.set(`violations log (${mode})`, violations.text());
      written.set(`proxy log (${mode})`, log.text());
      expect(leaks(written)).toEqual({});
    }, 60_000);
  }
});

describeWith(listAndCreate, 'list and create')(
  'the planted corpus recorded by a browser (a HAR holding every secret as sent)',
  () => {
    it('judge and report print and write none of them', async () => {
      const written = new Map<string, string>();
      const violations = join(dir, 'judged.ndjson');
      const judged = keep(
        written,
        'judge',
        await runCliInProcess(['judge', join(dir, 'browser.har'), '--violations', violations, '--log-values']),
      );
      // The scan means something only if a message quoted a body with a credential in it.
      expect(readFileSync(violations, 'utf8')).toContain('got [{\\"password\\":\\"***\\"}]');
      expect(judged.stdout).toContain('RES-ID-STRING');
      written.set('judge --violations', readFileSync(violations, 'utf8'));
      const html = join(dir, 'judged.html');
      keep(written, 'judge --html', await runCliInProcess(['judge', join(dir, 'browser.har'), '--html', html]));
      written.set('judge --html file', readFileSync(html, 'utf8'));
      // A log written elsewhere, holding what the kit would have masked.
      const foreign = join(dir, 'foreign.ndjson');
      writeFileSync(
        foreign,
        `${JSON.stringify({ time: '2026-11-26T10:00:00.000Z', requestId: 'r1', method: 'GET', path: `/v3${LIST}&access_token=${planted('foreign-query')}`, operationId: 'foreignOperation', direction: 'response', status: 200, rule: 'RES-ID-STRING', level: 'MUST', pointer: '/data/0/id', message: `got {"password": "${planted('foreign-message')}"}` })}\n`,
      );
      const reported = keep(written, 'report', await runCliInProcess(['report', violations, foreign]));
      expect(reported.stdout).toContain('RES-ID-STRING');
      expect(reported.stdout).toContain('foreignOperation');
      expect(leaks(written)).toEqual({});
    }, 60_000);

    it("replay without --allow-writes sends only the run's credentials and no method override, and says why each other entry is not sent", async () => {
      const written = new Map<string, string>();
      received.length = 0;
      const result = keep(
        written,
        'replay',
        await runCliInProcess([
          'replay',
          join(dir, 'browser.har'),
          '--base-url',
          `${upstream.url}/v3`,
          '--session-token',
          RUN.sessionToken,
          '--pat',
          RUN.pat,
        ]),
      );
      const lines = result.stdout.trim().split('\n');
      const outcomeOf = (c: PlantedRequest) => lines[CORPUS.indexOf(c)];
      for (const c of CORPUS) {
        const line = outcomeOf(c);
        if (c.replay === 'sent') expect(line, c.name).toMatch(/^still reproduces: /);
        if (c.replay === 'not sent: credential')
          expect(line, c.name).toMatch(/^not sent: the recording authenticates with .+, which this run cannot supply/);
        if (c.replay === 'not sent: override')
          expect(line, c.name).toMatch(
            /^not sent: .+ could make the target read this GET as another method or path; --allow-writes sends it/,
          );
        if (c.replay === 'not sent: body')
          expect(line, c.name).toMatch(
            /^not sent: its body cannot be sent without its credentials: it does not parse as JSON and holds a member named like a credential/,
          );
        if (c.replay === 'not sent: write')
          expect(line, c.name).toMatch(/^not sent: POST could write to the target; --allow-writes sends it/);
      }
      expect(received).toHaveLength(CORPUS.filter((c) => c.replay === 'sent').length);
      expect(
        received.map((r) => [r.headers.authorization ?? null, r.headers[contract.legacyHeader.toLowerCase()] ?? null]),
      ).toEqual([
        [`Bearer r:${RUN.sessionToken}`, null],
        [null, RUN.sessionToken],
        [`Bearer p:${RUN.pat}`, null],
        [`Bearer r:${RUN.sessionToken}`, null],
      ]);
      // The run's own token is sent where its scheme asks, and nowhere else.
      expect(received.map((r) => `${r.url} ${r.body}`).join('\n')).not.toContain(RUN.sessionToken);
      expect(result.stdout + result.stderr).not.toContain(RUN.sessionToken);
      for (const request of received) {
        expect(
          Object.keys(request.headers).filter((name) => /override|x-http-method|original-url|rewrite-url/.test(name)),
        ).toEqual([]);
        expect(request.url).not.toMatch(/_method/i);
        expect(request.headers).not.toHaveProperty('cookie');
        expect(request.headers).not.toHaveProperty('x-api-key');
      }
      written.set('requests replay sent', JSON.stringify(received));
      expect(leaks(written)).toEqual({});
    }, 60_000);

    it('replay --allow-writes --save-cases: the writes go out with their credentials masked, the saved cases keep only what they need', async () => {
      const written = new Map<string, string>();
      received.length = 0;
      const targetFile = join(dir, 'target.yaml');
      keep(
        written,
        'replay --allow-writes --save-cases',
        await runCliInProcess([
          'replay',
          join(dir, 'browser.har'),
          '--base-url',
          `${upstream.url}/v3`,
          '--session-token',
          RUN.sessionToken,
          '--pat',
          RUN.pat,
          '--allow-writes',
          '--save-cases',
          targetFile,
        ]),
      );
      // Every entry the run can authenticate is sent, the overrides with it (writes are allowed).
      expect(received).toHaveLength(
        CORPUS.filter((c) => c.replay !== 'not sent: credential' && c.replay !== 'not sent: body').length,
      );
      expect(received.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
        expect.stringContaining('"password":"***","credentials":"***","apiKeys":"***","pin":"***"'),
        'label=x&password=***&_method=PUT',
        expect.stringContaining('"password": "***",}'),
        '[{"password":"***"}]',
        expect.stringContaining('"secret":"***"'),
      ]);
      written.set('requests replay --allow-writes sent', JSON.stringify(received));
      const saved = readFileSync(targetFile, 'utf8');
      written.set('saved regression cases', saved);
      const cases = readRegressionCases(
        targetFile,
        contract.requirements.map((r) => r.id),
      );
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases)
        expect(
          Object.keys(c.request.headers ?? {}).filter(
            (name) => !['content-type', 'accept', 'x-http-method-override', 'x-original-url'].includes(name),
          ),
          c.name,
        ).toEqual([]);
      expect(saved).not.toMatch(/user-agent/i);
      for (const token of Object.values(RUN)) expect(saved).not.toContain(token);
      expect(leaks(written)).toEqual({});
    }, 60_000);
  },
);
