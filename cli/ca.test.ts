// `run --ca FILE`: a target served over https under an internal authority. Without --ca the
// preflight cannot reach it (exit 2, one line naming the certificate problem); with it the
// preflight and the suite both trust the authority and the run goes ahead.
import { createServer as createHttpsServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { runCli, runCliInProcess } from './test-support.ts';

const TLS = fileURLToPath(new URL('../suites/tls/', import.meta.url));
const CA = join(TLS, 'ca.pem');
const TOKENS = { LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken, LAS_PAT: DEFAULT_CREDENTIALS.pat };

let reference: StartedReferenceServer;
let https: Server;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-ca-'));
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  const upstream = new URL(reference.baseUrl);
  https = createHttpsServer(
    { key: readFileSync(join(TLS, 'server-key.pem')), cert: readFileSync(join(TLS, 'server.pem')) },
    (incoming, outgoing) => {
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forwarded);
    },
  );
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  baseUrl = `https://127.0.0.1:${(https.address() as AddressInfo).port}/v3`;
});

afterAll(async () => {
  https?.closeAllConnections();
  await new Promise((resolve) => https?.close(resolve));
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('run --ca', () => {
  it('without it, an internal authority stops the run in the preflight: exit 2, one line', async () => {
    const result = await runCliInProcess(
      ['run', '--base-url', baseUrl, '--report-dir', join(dir, 'untrusted')],
      TOKENS,
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(
      /^las-conformance: target https:\/\/127\.0\.0\.1:\d+\/v3 is unreachable: .*(certificate|UNABLE_TO_VERIFY|SELF_SIGNED)/i,
    );
  });

  it('with it, the preflight and the suite trust the authority, and the record says an authority was given', async () => {
    const result = await runCli(
      [
        'run',
        '--base-url',
        baseUrl,
        '--ca',
        CA,
        '--grep',
        'AUTH-SESSION-ACCEPTED',
        '--allow-partial',
        '--workers',
        '1',
        '--report-dir',
        join(dir, 'trusted'),
      ],
      TOKENS,
    );
    const record = JSON.parse(readFileSync(join(dir, 'trusted', 'conformance.json'), 'utf8')) as CertificationRecord;
    expect(record.requirements.find((r) => r.id === 'AUTH-SESSION-ACCEPTED')?.verdict).toBe('passed');
    expect(record.inputs.ca).toBe(true);
    expect(result.code).toBe(0);
  }, 120_000);
});
