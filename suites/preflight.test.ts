// The preflight: before the suite, the operation a run asks first (a list, or with none a create
// sent an empty document) asked with each token. A misconfigured run (a refused token, a base URL
// without /v3, a redirect, something that is not the API) stops with one line saying what to
// check; a target that answers as the API does, even wrongly, is left to the suite.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, recordKindLabel, recordKinds, type Operation } from '../contract/index.ts';
import { askedFirst, contract, creates, createWithRecord, describeWith, itWith } from '../contract/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { resolveTarget, settingSource, type Target, type TargetSettings } from '../targets/target.ts';
import { requiredFixturesMissing } from './documents.ts';
import { preflight, PreflightError, preflightProblem, UnreachableTargetError } from './preflight.ts';

const SESSION = 'preflight-session-5c1d';
const PAT = 'preflight-pat-77e0';
const JSON_API = { 'content-type': 'application/vnd.api+json' };
const LIST = '{"data":[],"meta":{"total":0,"pages":0,"page":1,"offset":0,"limit":1}}';
/** Where a redirecting target sends the preflight's request. */
const elsewhere = () => `https://elsewhere.example${contract.basePath}${askedFirst?.pathTemplate ?? ''}`;
/** `text` matched as it is in a regular expression. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** An answer, given the path after the target's own prefix. */
type Answer = (request: IncomingMessage, response: ServerResponse, path: string) => void;

const answers: Record<string, Answer> = {
  served: (_q, r) => r.writeHead(200, JSON_API).end(LIST),
  'served with 400': (_q, r) => r.writeHead(400, JSON_API).end('{"errors":[{"status":"400"}]}'),
  'session token refused': (q, r) =>
    q.headers.authorization === `Bearer r:${SESSION}`
      ? r.writeHead(401, JSON_API).end('{"errors":[{"status":"401"}]}')
      : r.writeHead(200, JSON_API).end(LIST),
  'personal access token refused': (q, r) =>
    q.headers.authorization === `Bearer p:${PAT}`
      ? r.writeHead(401, JSON_API).end('{"errors":[{"status":"401"}]}')
      : r.writeHead(200, JSON_API).end(LIST),
  'not permitted': (_q, r) => r.writeHead(403, JSON_API).end('{"errors":[{"status":"403"}]}'),
  'no /v3': (_q, r, path) =>
    path.startsWith('/v3/')
      ? r.writeHead(200, JSON_API).end(LIST)
      : r.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'),
  redirect: (_q, r) => r.writeHead(301, { location: elsewhere() }).end(),
  'a web page': (_q, r) =>
    r.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Portal</title>'),
  'rate limited': (_q, r) =>
    r.writeHead(429, { ...JSON_API, 'retry-after': '30' }).end('{"errors":[{"status":"429"}]}'),
};

let server: Server;
let origin: string;

beforeAll(async () => {
  // Each behaviour is a target of its own: http://127.0.0.1:PORT/<behaviour>/v3.
  server = createServer((request, response) => {
    request.resume();
    const [, prefix, ...rest] = (request.url ?? '').split('/');
    answers[decodeURIComponent(prefix)](request, response, `/${rest.join('/')}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** What the specification calls an operation, without its section. */
const summaryOf = (operation: Operation) => (operation.summary ?? '').replace(/\s*\(.*\)\s*$/, '');

function targetAt(path: string) {
  return resolveTarget({ baseUrl: `${origin}${path}`, sessionToken: SESSION, pat: PAT }, loadContract().legacyHeader);
}

/** Why the preflight stops a run against `target`, or undefined when it lets the run start. */
async function stopReason(target: Target): Promise<string | undefined> {
  try {
    await preflight(target);
    return undefined;
  } catch (error) {
    if (!(error instanceof PreflightError)) throw error;
    return error.message;
  }
}

const problemAt = (name: string, suffix = '/v3') => stopReason(targetAt(`/${encodeURIComponent(name)}${suffix}`));

describe('preflightProblem', () => {
  it('preflightProblem leaves 5xx error documents to the suite', () => {
    const probe = {
      credential: 'the session token (Authorization: Bearer r:…)',
      setting: '--session-token',
      url: 'http://x/v3/records',
    };
    expect(
      preflightProblem({ status: 500, headers: JSON_API, bodyText: '{"errors":[{"status":"500"}]}' }, probe),
    ).toBeUndefined();
    expect(
      preflightProblem({ status: 503, headers: { 'content-type': 'text/html' }, bodyText: '<h1>down</h1>' }, probe),
    ).toMatch(/answered 503 with text\/html, not a JSON:API document/);
  });
});

describeWith(askedFirst, 'list or create')('preflight', (asked) => {
  it('lets a target that answers as the API does start the suite, a 400 included (the suite judges that)', async () => {
    expect(await problemAt('served')).toBeUndefined();
    expect(await problemAt('served with 400')).toBeUndefined();
  });

  const stops: [string, RegExp][] = [
    [
      'session token refused',
      /was answered 401: the target refused the session token; check --session-token or LAS_SESSION_TOKEN \(a target that refuses valid tokens is reported this way too/,
    ],
    [
      'personal access token refused',
      /Bearer p:…\) was answered 401: the target refused the personal access token; check --pat or LAS_PAT/,
    ],
    [
      'not permitted',
      // The operation in words: what the specification calls it, without its section.
      new RegExp(`was answered 403: the session token is not permitted to ${literally(summaryOf(asked))};`, 'i'),
    ],
    [
      'redirect',
      new RegExp(`was answered 301, a redirect to ${literally(elsewhere())}; the kit does not follow redirects`),
    ],
    [
      'a web page',
      /was answered 200 with text\/html, not a JSON:API document: check that the base URL points at the API/,
    ],
    [
      'rate limited',
      /was answered 429, a status for a condition the specification leaves open \(a rate or size limit, .*\), from which no case could judge anything: check the target's limits for this client \(it asked to retry after 30\) and run again$/,
    ],
  ];
  for (const [name, message] of stops) {
    it(`stops a run whose target answers: ${name}, in one line that never holds a token`, async () => {
      const problem = await problemAt(name);
      expect(problem).toMatch(message);
      expect(problem).not.toContain('\n');
      expect(problem).not.toContain(SESSION);
      expect(problem).not.toContain(PAT);
    });
  }

  it('stops a base URL without the version root with a 404 that says so', async () => {
    expect(await problemAt('no /v3', '')).toMatch(
      /was answered 404: the base URL must include the version root, e\.g\. https:\/\/staging\.example\.com\/v3/,
    );
  });

  it('an address that does not answer is unreachable', async () => {
    const target = resolveTarget(
      { baseUrl: 'http://127.0.0.1:9/v3', sessionToken: SESSION, pat: PAT },
      loadContract().legacyHeader,
    );
    await expect(preflight(target)).rejects.toBeInstanceOf(UnreachableTargetError);
  });
});

describeWith(askedFirst, 'list or create')('preflight of the optional inputs, against the reference server', () => {
  let reference: StartedReferenceServer;
  beforeAll(async () => {
    reference = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await reference?.close();
  });

  const referenceTarget = (settings: Partial<TargetSettings>) =>
    resolveTarget({ baseUrl: reference.baseUrl, ...DEFAULT_CREDENTIALS, ...settings }, loadContract().legacyHeader);

  it('passes the inputs the target takes: its legacy header, its forbidden token, records that exist', async () => {
    await expect(preflight(referenceTarget({ fixtures: { ...REFERENCE_FIXTURES } }))).resolves.toBeUndefined();
  });

  itWith(createWithRecord, 'create naming a record')(
    'with --read-only sends nothing that could create a record, so unknown ids are left to the (skipped) creation cases',
    async (create) => {
      const kinds = recordKinds([create]);
      const fixtures = Object.fromEntries(kinds.map((kind) => [kind, '64aa00000000000000000001']));
      await expect(preflight(referenceTarget({ fixtures }), { readOnly: true })).resolves.toBeUndefined();
      await expect(preflight(referenceTarget({ fixtures }))).rejects.toThrow(
        `answered 404 Record Not Found: the target does not know the ${kinds.map(recordKindLabel).join(' or the ')} the run`,
      );
    },
  );

  itWith(createWithRecord, 'create naming a record')(
    'given records that exist of some kinds only, starts the run, or names the kind a create needs that it was not given',
    async () => {
      const kinds = recordKinds(creates);
      for (const left of kinds) {
        const fixtures = Object.fromEntries(
          kinds.filter((kind) => kind !== left).map((kind) => [kind, REFERENCE_FIXTURES[kind]]),
        );
        // The preflight asks each create it was given a record for; one that needs the kind left out cannot succeed.
        const needing = creates.filter(
          (create) =>
            recordKinds([create]).some((kind) => fixtures[kind] !== undefined) &&
            requiredFixturesMissing(create, fixtures).includes(left),
        );
        const problem = await stopReason(referenceTarget({ fixtures }));
        if (needing.length === 0) {
          expect(problem, `without ${left}`).toBeUndefined();
          continue;
        }
        expect(problem, `without ${left}`).toContain(`the run was not given the ${recordKindLabel(left)} `);
        expect(problem, `without ${left}`).toContain(settingSource(left));
        expect(problem, `without ${left}`).not.toContain('does not know');
      }
    },
  );
});
