// --capture DIR: exchanges that draw a MUST finding become HAR entries with their finding ids,
// credentials masked by the kit's one policy, bodies bounded by --max-body, files rotated and the
// directory held under its bound, oldest first, counted on /metrics.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MEDIA_TYPE } from '../contract/index.ts';
import {
  contract,
  create,
  describeWith,
  documentExample,
  itemExample,
  itWith,
  listTarget,
  list as listOfContract,
} from '../contract/test-support.ts';
import type { Operation } from '../contract/index.ts';
import type { HarEntry } from './har.ts';
import { recordedExchange } from './har.ts';
import { startValidatingProxy, type StartedProxy } from './proxy.ts';
import { CHUNKS_KEPT_MAX } from './body.ts';
import { answering, send, startRawUpstream, startUpstream, type TestServer } from './test-support.ts';

const SESSION = 'capture-session-secret-5c1e';
const PAT = 'capture-pat-secret-77d0';
const QUERY_TOKEN = 'capture-query-secret-a9f2';
const COOKIE = 'capture-cookie-secret-31bb';
const PASSWORD = 'capture-password-secret-e4d4';
const SECRETS = [SESSION, PAT, QUERY_TOKEN, COOKIE, PASSWORD];

/** A list's item whose id is a number, not a string: RES-ID-STRING, a MUST, on every list answer. */
const brokenItem = (list: Operation) => ({ ...itemExample(list), id: 7 });

let dir: string;
let upstream: TestServer;
let proxy: StartedProxy | undefined;
/** A page of one broken item of the list the tests send to. */
let brokenList: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-capture-'));
  brokenList = listOfContract === undefined ? '{"data":[]}' : JSON.stringify({ data: [brokenItem(listOfContract)] });
  upstream = await startUpstream(answering(200, brokenList));
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

function captured(): { files: string[]; entries: HarEntry[]; text: string } {
  const files = readdirSync(dir).sort();
  const text = files.map((file) => readFileSync(join(dir, file), 'utf8')).join('');
  return {
    files,
    entries: text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as HarEntry),
    text,
  };
}

async function metric(name: string): Promise<string> {
  return (await (await fetch(`${proxy!.adminUrl}/metrics`)).text())
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');
}

/** The complete example of a create's document with a password among its attributes. */
function documentWithPassword(create: Operation): string {
  const document = documentExample(create) as { data: { attributes?: Record<string, unknown> } };
  document.data.attributes = { ...document.data.attributes, password: PASSWORD };
  return JSON.stringify(document);
}

describeWith(listOfContract, 'list')('proxy --capture', (listOperation) => {
  const listPath = listTarget(listOperation);
  itWith(create, 'create')(
    'writes an exchange with a MUST finding as a HAR entry with its finding ids, and no credential at all',
    async (create) => {
      proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, capture: { dir }, judgeThread: false });
      const list = `${proxy.baseUrl}${listPath}&access_token=${QUERY_TOKEN}`;
      await send(list, {
        headers: { authorization: `Bearer r:${SESSION}`, cookie: `sid=${COOKIE}`, 'x-request-id': 'capture-1' },
      });
      await send(list, { headers: { [contract.legacyHeader]: SESSION, 'x-request-id': 'capture-2' } });
      await send(`${proxy.baseUrl}${create.pathTemplate}`, {
        method: 'POST',
        headers: { authorization: `Bearer p:${PAT}`, 'content-type': MEDIA_TYPE, 'x-request-id': 'capture-3' },
        body: documentWithPassword(create),
      });
      // Outside the API: judged by nothing, captured never.
      await send(`${proxy.proxyUrl}/health`, { headers: { authorization: `Bearer r:${SESSION}` } });
      await proxy.proxy.settled();

      const { entries, text } = captured();
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      expect(entries.map((e) => e._las!.requestId)).toEqual(['capture-1', 'capture-2', 'capture-3']);
      expect(entries[0]._las!.findings.map((f) => f.rule)).toContain('RES-ID-STRING');
      expect(entries[0].request.headers).toEqual(
        expect.arrayContaining([
          { name: 'authorization', value: 'Bearer r:***' },
          { name: 'cookie', value: '***' },
        ]),
      );
      expect(entries[1].request.headers).toEqual(
        expect.arrayContaining([{ name: contract.legacyHeader.toLowerCase(), value: '***' }]),
      );
      expect(entries[2].request.headers).toEqual(
        expect.arrayContaining([{ name: 'authorization', value: 'Bearer p:***' }]),
      );
      expect(entries[0].request.url).toContain('access_token=***');
      expect(entries[0].request.queryString).toEqual(expect.arrayContaining([{ name: 'access_token', value: '***' }]));
      expect(entries[2].request.postData?.text).toContain('"password":"***"');
      // What was captured reads back as the exchange that was judged.
      const again = recordedExchange(entries[0]);
      expect(again.exchange.response?.status).toBe(200);
      expect(again.exchange.path).toBe(`${contract.basePath}${listPath}&access_token=***`);
      expect(await metric('las_proxy_capture_events_total{event="written"}')).toMatch(/ 3$/);
    },
  );

  itWith(create, 'create')('keeps no body larger than --max-body, and says so in the entry', async (create) => {
    proxy = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      capture: { dir },
      maxBody: 64,
      judgeThread: false,
    });
    await send(`${proxy.baseUrl}${create.pathTemplate}`, {
      method: 'POST',
      headers: { authorization: `Bearer p:${PAT}`, 'content-type': MEDIA_TYPE },
      body: documentWithPassword(create),
    });
    await proxy.proxy.settled();
    const [entry] = captured().entries;
    expect(entry.request.postData).toEqual({
      mimeType: MEDIA_TYPE,
      comment: 'body not kept: body larger than 64 bytes',
    });
    expect(entry.response.content.text).toBeUndefined();
    expect(entry.response.content.comment).toBe('body not kept: body larger than 64 bytes');
  });

  it(`keeps no answer sent in more than ${CHUNKS_KEPT_MAX} chunks, and says why in the entry`, async () => {
    const body = `{"data":[${'1,'.repeat(CHUNKS_KEPT_MAX)}1]}`;
    const chunked = Array.from(body, (character) => `1\r\n${character}\r\n`).join('');
    const oneByteChunks = await startRawUpstream((socket) =>
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: ${MEDIA_TYPE}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${chunked}0\r\n\r\n`,
      ),
    );
    try {
      proxy = await startValidatingProxy({ upstream: `${oneByteChunks.url}/v3`, capture: { dir }, judgeThread: false });
      // No credentials, answered 200: a MUST of the exchange, so it is captured.
      await send(`${proxy.baseUrl}${listPath}`);
      await proxy.proxy.settled();
      const [entry] = captured().entries;
      expect(entry.response.content.text).toBeUndefined();
      expect(entry.response.content.comment).toBe(`body not kept: body sent in more than ${CHUNKS_KEPT_MAX} chunks`);
    } finally {
      await proxy?.close();
      proxy = undefined;
      await oneByteChunks.close();
    }
  });

  it('rotates files and keeps the directory under its bound, dropping the oldest first, counted on /metrics', async () => {
    proxy = await startValidatingProxy({
      upstream: `${upstream.url}/v3`,
      capture: { dir, fileBytes: 4096, maxBytes: 12_000 },
      judgeThread: false,
    });
    for (let i = 0; i < 40; i += 1)
      await send(`${proxy.baseUrl}${listPath}`, {
        headers: { authorization: `Bearer r:${SESSION}`, 'x-request-id': `rotate-${i}` },
      });
    await proxy.proxy.settled();
    const { files, entries } = captured();
    const total = files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    expect(files.length).toBeGreaterThan(1);
    expect(total).toBeLessThanOrEqual(12_000);
    for (const file of files) expect(statSync(join(dir, file)).size).toBeLessThanOrEqual(4096);
    // The newest kept, the oldest dropped.
    expect(entries[entries.length - 1]._las!.requestId).toBe('rotate-39');
    expect(entries[0]._las!.requestId).not.toBe('rotate-0');
    expect(await metric('las_proxy_capture_events_total{event="file_dropped"}')).toMatch(/ [1-9]\d*$/);
  });

  it('captures the bodies of exchanges judged on the judging thread as well', async () => {
    await upstream.close();
    // Past 8 KiB of body the exchange is judged on the worker thread.
    const large = JSON.stringify({
      data: Array.from({ length: 80 }, () => brokenItem(listOperation)),
    });
    upstream = await startUpstream(answering(200, large));
    proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, capture: { dir } });
    await send(`${proxy.baseUrl}${listPath}`, {
      headers: { authorization: `Bearer r:${SESSION}` },
    });
    await proxy.proxy.settled();
    expect(await metric('las_proxy_exchanges_judged_total{thread="worker"}')).toMatch(/ 1$/);
    const [entry] = captured().entries;
    expect(entry.response.content.text).toBe(large);
  });

  it('is off by default: no capture file is written', async () => {
    proxy = await startValidatingProxy({ upstream: `${upstream.url}/v3`, judgeThread: false });
    await send(`${proxy.baseUrl}${listPath}`, {
      headers: { authorization: `Bearer r:${SESSION}` },
    });
    await proxy.proxy.settled();
    expect(readdirSync(dir)).toEqual([]);
    expect(await metric('las_proxy_capture_events_total{')).toBe('');
  });
});
