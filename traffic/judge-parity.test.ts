// One judging path: the exchanges the proxy captured, judged again offline by `judge`, give the
// same violations log lines as the proxy wrote for them (rule, direction, party, level, pointer,
// message, operation, status, path), request id for request id.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../cli/test-support.ts';
import { MEDIA_TYPE } from '../contract/index.ts';
import { startValidatingProxy } from '../proxy/proxy.ts';
import { Recorder, send } from '../proxy/test-support.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';

const FAULTS = ['meta-pages-rounded-down', 'in-use-missing', 'error-status-number', 'item-boolean-as-string'];
const session = { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}` };

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
    const requests: [string, Parameters<typeof send>[1]][] = [
      [
        '/notification-groups?filter[type]=portal&page[limit]=10&page[offset]=0',
        { headers: { ...session, 'x-request-id': 'parity-list' } },
      ],
      ['/notification-groups?filter[type]=nobody', { headers: { ...session, 'x-request-id': 'parity-400' } }],
      [
        '/notification-groups?filter[type]=user&page[limit]=0&page[offset]=0',
        { headers: { ...session, 'x-request-id': 'parity-limit' } },
      ],
      [
        '/attribute-configs',
        {
          method: 'POST',
          headers: {
            authorization: `Bearer p:${DEFAULT_CREDENTIALS.pat}`,
            'content-type': MEDIA_TYPE,
            'x-request-id': 'parity-create',
          },
          body: JSON.stringify({
            data: { type: 'AttributeConfig', attributes: { target: 'User', type: 'boolean', label: 'Parity' } },
          }),
        },
      ],
    ];
    for (const [path, options] of requests) await send(`${proxy.baseUrl}${path}`, options);
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
  // Every exchange with a MUST finding was captured: the 400 with a numeric status, the list, the bad limit, the
  // create.
  expect([...ids].sort()).toEqual(['parity-400', 'parity-create', 'parity-limit', 'parity-list']);
  const logged = proxyLog.lines().filter((line) => ids.has(line.requestId as string));
  expect(byRequest(judged)).toEqual(byRequest(logged));
});
