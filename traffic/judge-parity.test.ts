// One judging path: the exchanges the proxy captured, judged again offline by `judge`, give the
// same violations log lines as the proxy wrote for them (rule, direction, party, level, pointer,
// message, operation, status, path), request id for request id.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../cli/test-support.ts';
import { MEDIA_TYPE } from '../contract/index.ts';
import { create, listQuery, list } from '../contract/test-support.ts';
import { startValidatingProxy } from '../proxy/proxy.ts';
import { Recorder, send } from '../proxy/test-support.ts';
import {
  DEFAULT_CREDENTIALS,
  INAPPLICABLE_FAULTS,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { completeDocument } from '../suites/documents.ts';

/** Faults that break a MUST in the exchanges below; those the contract gives nothing to break are left out. */
const FAULTS = [
  'meta-pages-rounded-down',
  'item-boolean-as-string',
  'in-use-missing',
  'created-id-not-a-string',
  'error-status-number',
].filter((name) => !INAPPLICABLE_FAULTS.has(name));
const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };
const pat = { authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}`, 'content-type': MEDIA_TYPE };

type Request = [path: string, options: Parameters<typeof send>[1]];

/**
 * Requests each of which the faulted server answers breaking a MUST, by request id: a page of the first list and one
 * with a limit of 0 (a 400), a valid create and one whose body is not JSON (a 400), as far as the contract holds them.
 */
const REQUESTS: Record<string, Request> = {
  ...(list && {
    'parity-list': [
      `${list.pathTemplate}?${listQuery(list, { limit: 10, offset: 0 })}`,
      { headers: { ...session, 'x-request-id': 'parity-list' } },
    ],
    'parity-limit': [
      `${list.pathTemplate}?${listQuery(list, { limit: 0, offset: 0 })}`,
      { headers: { ...session, 'x-request-id': 'parity-limit' } },
    ],
  }),
  ...(create && {
    'parity-create': [
      create.pathTemplate,
      {
        method: 'POST',
        headers: { ...pat, 'x-request-id': 'parity-create' },
        body: JSON.stringify(completeDocument(create, REFERENCE_FIXTURES, 'parity')),
      },
    ],
    'parity-400': [
      create.pathTemplate,
      { method: 'POST', headers: { ...pat, 'x-request-id': 'parity-400' }, body: '{"data": ' },
    ],
  }),
};

let dir: string;
let reference: StartedReferenceServer;
const proxyLog = new Recorder();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-judge-parity-'));
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0, faults: FAULTS });
  const proxy = await startValidatingProxy({
    upstream: reference.baseUrl,
    capture: { dir },
    violations: proxyLog,
    repeatInterval: 0,
  });
  try {
    for (const [path, options] of Object.values(REQUESTS)) await send(`${proxy.baseUrl}${path}`, options);
    await proxy.proxy.settled();
  } finally {
    await proxy.close();
  }
}, 60_000);

afterAll(async () => {
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;
const comparable = ({ time: _time, ...rest }: Line) => rest;
const byRequest = (lines: Line[]) =>
  lines.map(comparable).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

it('judge on the capture gives the lines the proxy logged for those exchanges', async () => {
  const captured = readdirSync(dir)
    .filter((name) => name.endsWith('.ndjson'))
    .map((name) => join(dir, name));
  const offline = join(tmpdir(), `las-judge-parity-${process.pid}.ndjson`);
  const result = await runCli(['judge', ...captured, '--violations', offline, '--include-client']);
  expect(result.code).toBe(1);
  const judged = readFileSync(offline, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
  rmSync(offline, { force: true });
  const ids = new Set(judged.map((line) => line.requestId));
  // Every exchange with a MUST finding was captured.
  expect([...ids].sort()).toEqual(Object.keys(REQUESTS).sort());
  const logged = proxyLog.lines().filter((line) => ids.has(line.requestId as string));
  expect(byRequest(judged)).toEqual(byRequest(logged));
});
