// A request that breaks one rule tens of thousands of times gets a 400 document of bounded size:
// each code listed a few times, then one error that says how many more there were.
import { afterAll, beforeAll, expect } from 'vitest';
import { bodyMembers, FINDING_LIMITS, SAMPLE_OF_TYPE, withValueAt, type Operation } from '../contract/index.ts';
import { creates, documentExample, itWith, jsonApi } from '../contract/test-support.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { send } from './test-support.ts';

const WRONG_ITEMS = 120_000;

/** An array member of a create's document whose items take one kind of value, and a value of another kind. */
function typedArrayMember(operation: Operation): { pointer: string; wrongItem: unknown } | undefined {
  const members = bodyMembers(operation);
  for (const member of members.filter((m) => m.types.length === 1 && m.types[0] === 'array')) {
    const item = members.find((m) => m.pointer === `${member.pointer}/0`);
    const wrongType = item?.types.length === 1 && item.types[0] !== 'number' ? 'number' : undefined;
    if (wrongType) return { pointer: member.pointer, wrongItem: SAMPLE_OF_TYPE[wrongType] };
  }
  return undefined;
}

const createWithTypedArray = creates.find((o) => typedArrayMember(o) !== undefined);

let server: StartedReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer();
});

afterAll(async () => {
  await server?.close();
});

itWith(createWithTypedArray, 'create whose document has an array of typed items')(
  `a create body with ${WRONG_ITEMS.toLocaleString('en')} wrong array items: a bounded 400 document`,
  async (operation) => {
    const { pointer, wrongItem } = typedArrayMember(operation)!;
    const document = withValueAt(documentExample(operation), pointer, new Array<unknown>(WRONG_ITEMS).fill(wrongItem));
    const answer = await send(server.baseUrl, {
      method: operation.method,
      path: operation.pathTemplate,
      headers: { authorization: `Bearer r:${DEFAULT_CREDENTIALS.sessionToken}`, ...jsonApi },
      body: JSON.stringify(document),
    });
    expect(answer.response.status).toBe(400);
    expect(Buffer.byteLength(answer.response.bodyText ?? '')).toBeLessThan(64 * 1024);
    const errors = (JSON.parse(answer.response.bodyText ?? '') as { errors: { code: string; detail: string }[] })
      .errors;
    expect(errors.length).toBeLessThanOrEqual(FINDING_LIMITS.total + 1);
    expect(errors.at(-1)!.detail).toMatch(/^and \d+ more /);
  },
);
