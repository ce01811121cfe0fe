// The suite's transport against tiny misbehaving servers: every misbehaviour becomes one
// readable sentence within the request timeout, and the body cap holds.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as playwrightRequest } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../targets/target.ts';
import { openTargetClient, SILENCE_LIMIT, type TargetClient } from './client.ts';
import { credentialSecrets, scrubber } from '../run-protocol/secrets.ts';

const SESSION = 'transport-test-session-token-5d1e';
const MIB = 1024 * 1024;
/**
 * Long enough for an answer on a loaded machine; the tests of a server that never answers wait it
 * out, SILENCE_LIMIT + 1 times in all.
 */
const REQUEST_TIMEOUT_MS = 3000;

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

const behaviours: Record<string, Behaviour> = {
  '/v3/ok': (request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
      response.end(JSON.stringify({ meta: { echo: body, authorization: request.headers.authorization } }));
    });
  },
  '/v3/latin1': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
    response.end(Buffer.concat([Buffer.from('{"meta":{"label":"caf'), Buffer.from([0xe9]), Buffer.from('"}}')]));
  },
  '/v3/hang': () => undefined,
  '/v3/silent': () => undefined,
  '/v3/reset': (request) => request.socket.destroy(),
  '/v3/html': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body>Service Unavailable</body></html>');
  },
  '/v3/huge': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const pump = () => {
      while (response.write(chunk)) if (response.destroyed) return;
    };
    response.on('drain', pump);
    response.on('close', () => response.off('drain', pump));
    pump();
  },
  '/v3/redirect': (_request, response) => {
    response.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
    response.end();
  },
};

let server: Server;
let client: TargetClient;
let unreachableClient: TargetClient;

function targetAt(baseUrl: string): Target {
  return {
    baseUrl,
    legacyHeader: 'X-Svc-Session-Token',
    credentials: { sessionToken: SESSION, pat: 'transport-test-pat-77c2' },
    fixtures: {},
    limits: { requestTimeoutMs: REQUEST_TIMEOUT_MS, maxBodyBytes: 1 * MIB },
  };
}

beforeAll(async () => {
  server = createServer((request, response) =>
    (behaviours[(request.url ?? '').split('?')[0]] ?? behaviours['/v3/ok'])(request, response),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target = targetAt(`http://127.0.0.1:${port}/v3`);
  const scrub = scrubber(credentialSecrets(target.credentials));
  client = await openTargetClient(playwrightRequest, target, scrub);
  // Port 9 (discard) is closed on a test machine: connecting is refused.
  unreachableClient = await openTargetClient(playwrightRequest, targetAt('http://127.0.0.1:9/v3'), scrub);
});

afterAll(async () => {
  await client?.close();
  await unreachableClient?.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('transmit', () => {
  it('delivers status, lower-case headers and the body of a normal answer, request body and query intact', async () => {
    const sent = await client.transmit({
      method: 'POST',
      path: '/ok?filter[type]=portal',
      headers: { authorization: `Bearer r:${SESSION}`, 'content-type': 'application/vnd.api+json' },
      bodyText: '{"data":{}}',
    });
    expect(sent.ok).toBe(true);
    if (!sent.ok) return;
    expect(sent.response.status).toBe(200);
    expect(sent.response.headers['content-type']).toBe('application/vnd.api+json');
    expect(JSON.parse(sent.response.bodyText)).toEqual({
      meta: { echo: '{"data":{}}', authorization: `Bearer r:${SESSION}` },
    });
  });

  it("delivers a non-JSON answer as it came: judging it is the contract checks' business", async () => {
    const sent = await client.transmit({ method: 'GET', path: '/html', headers: {} });
    expect(sent).toEqual({
      ok: true,
      response: expect.objectContaining({ status: 200, bodyText: '<html><body>Service Unavailable</body></html>' }),
    });
  });

  it('reads the body as bytes first: whether they were UTF-8 survives their decoding', async () => {
    const [latin1, utf8] = await Promise.all(
      ['/latin1', '/ok'].map((path) => client.transmit({ method: 'GET', path, headers: {} })),
    );
    expect(latin1).toEqual({
      ok: true,
      response: expect.objectContaining({ bodyText: '{"meta":{"label":"caf\uFFFD"}}', utf8: { invalidAt: 21 } }),
    });
    expect(utf8).toEqual({ ok: true, response: expect.objectContaining({ utf8: 'valid' }) });
  });

  const failures: { path: string; message: RegExp }[] = [
    {
      path: '/hang',
      message: /^no complete answer within 3000 ms \(the request timeout; raise it with --request-timeout\)$/,
    },
    { path: '/reset', message: /^the connection was closed before a complete answer arrived/ },
    {
      path: '/huge',
      message: /^the answer is larger than 1 MiB, the most the kit reads \(raise it with --max-body-mib\)$/,
    },
  ];
  for (const c of failures) {
    it(`turns ${c.path.slice(1)} into one sentence without the token or the call log`, async () => {
      const sent = await client.transmit({
        method: 'GET',
        path: c.path,
        headers: { authorization: `Bearer r:${SESSION}` },
      });
      expect(sent.ok).toBe(false);
      if (sent.ok) return;
      expect(sent.failure).toMatch(c.message);
      expect(sent.failure).not.toContain(SESSION);
      expect(sent.failure).not.toContain('\n');
    });
  }

  it('hands a redirect over as the answer instead of following it, so credentials never travel elsewhere', async () => {
    const sent = await client.transmit({
      method: 'GET',
      path: '/redirect',
      headers: { authorization: `Bearer r:${SESSION}` },
    });
    expect(sent).toEqual({ ok: true, response: expect.objectContaining({ status: 302 }) });
  });

  it('names the address when the target refuses connections', async () => {
    const sent = await unreachableClient.transmit({
      method: 'GET',
      path: '/ok',
      headers: { authorization: `Bearer r:${SESSION}` },
    });
    expect(sent).toEqual({ ok: false, failure: 'cannot connect to 127.0.0.1:9 (ECONNREFUSED)' });
  });

  it(`stops waiting on an operation after ${SILENCE_LIMIT} requests in a row got no answer, and only on that one`, async () => {
    const silent = () => client.transmit({ method: 'GET', path: '/silent?n=1', headers: {} });
    for (let i = 0; i < SILENCE_LIMIT; i++)
      expect(await silent()).toEqual({
        ok: false,
        failure: expect.stringMatching(/^no complete answer within 3000 ms/),
        timedOut: true,
      });
    expect(await silent()).toEqual({
      ok: false,
      silenced: true,
      failure: `not sent: the last ${SILENCE_LIMIT} requests to GET /silent got no answer within 3000 ms`,
    });
    expect((await client.transmit({ method: 'GET', path: '/ok', headers: {} })).ok).toBe(true);
  });

  it('still answers normally after a cut tunnel', async () => {
    await client.transmit({ method: 'GET', path: '/huge', headers: {} });
    const sent = await client.transmit({ method: 'GET', path: '/ok', headers: {} });
    expect(sent.ok && sent.response.status).toBe(200);
  });
});
