// A request that breaks one rule tens of thousands of times gets a 400 document of bounded size:
// each code listed a few times, then one error that says how many more there were.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { FINDING_LIMITS, MEDIA_TYPE } from '../contract/index.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { send } from './test-support.ts';

let server: StartedReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer();
});

afterAll(async () => {
  await server?.close();
});

test('a 240 KB create body with 120,000 wrong options: a bounded 400 document', async () => {
  const body = JSON.stringify({
    data: { type: 'AttributeConfig', attributes: { label: 'x', options: new Array<number>(120_000).fill(1) } },
  });
  const answer = await send(server.baseUrl, {
    method: 'POST',
    path: '/attribute-configs',
    headers: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`, 'content-type': MEDIA_TYPE },
    body,
  });
  expect(answer.response.status).toBe(400);
  expect(Buffer.byteLength(answer.response.bodyText ?? '')).toBeLessThan(64 * 1024);
  const errors = (JSON.parse(answer.response.bodyText ?? '') as { errors: { code: string; detail: string }[] }).errors;
  expect(errors.length).toBeLessThanOrEqual(FINDING_LIMITS.total + 1);
  expect(errors.at(-1)!.detail).toMatch(/^and \d+ more /);
});
