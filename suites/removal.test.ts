// The proof that removing an operation is data only: each operation of the shipped contract is
// removed in turn from a copy of schemas/ (its path item, the components only it used and the
// requirements only it had; test-support/contract-copy.ts), and with no other change the kit
// built on that copy loads, its suite holds no case for the operation and passes against the
// reference server with no requirement passed unjudged, the faults and choices written for it
// are refused in one line, and the proxy judges its traffic under no id of its own.
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Contract, SCHEMA_DIR } from '../contract/contract.ts';
import { contractCopy, specifiedPaths } from '../test-support/contract-copy.ts';

const shipped = new Contract(
  readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8'),
  readFileSync(join(SCHEMA_DIR, 'requirements.yaml'), 'utf8'),
);
const directories: string[] = [];

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** The kit's modules loaded afresh over a copy of schemas/ without `path`. */
async function kitWithout(path: string) {
  vi.resetModules();
  const directory = contractCopy({ removedPaths: [path] });
  directories.push(directory);
  (await import('../contract/contract.ts')).useSchemaDirectory(directory);
  const { loadContract } = await import('../contract/index.ts');
  const { SUITE_CASES } = await import('./cases/index.ts');
  const { recordAgainst } = await import('../test-support/in-process-run.ts');
  const server = await import('../server/index.ts');
  const { runSettings } = await import('../cli/run.ts');
  const { TargetError } = await import('../targets/target.ts');
  const { startValidatingProxy } = await import('../proxy/proxy.ts');
  const { Recorder } = await import('../proxy/test-support.ts');
  const { referenceTarget, send } = await import('../server/test-support.ts');
  const { preflight } = await import('./preflight.ts');
  return {
    preflight,
    referenceTarget,
    contract: loadContract(),
    SUITE_CASES,
    recordAgainst,
    server,
    runSettings,
    TargetError,
    startValidatingProxy,
    Recorder,
    send,
  };
}

/** The methods a read-only preflight sends a target that refuses every request. */
async function methodsAskedReadOnly(kit: Awaited<ReturnType<typeof kitWithout>>): Promise<string[]> {
  const methods: string[] = [];
  const refusing: Server = createServer((request, response) => {
    methods.push(request.method ?? '');
    response.writeHead(401, { 'content-type': 'application/vnd.api+json' }).end('{"errors":[{"status":"401"}]}');
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = refusing.address() as AddressInfo;
    await kit.preflight(kit.referenceTarget(`http://127.0.0.1:${port}/v3`), { readOnly: true }).catch(() => undefined);
    return methods;
  } finally {
    await new Promise((resolve) => refusing.close(resolve));
  }
}

for (const path of specifiedPaths()) {
  const removed = shipped.operations.filter((o) => o.pathTemplate === path);
  const removedIds = removed.map((o) => o.operationId);
  describe(`the contract without ${path} (${removedIds.join(', ')}), removed as data only`, () => {
    const claim =
      'leaves a suite with no case for it that passes against the reference server, every passed requirement judged; ' +
      'faults and choices for it refused in one line; the preflight asks what is left; its traffic logged under no id ' +
      'of its own';
    it(claim, async () => {
      const kit = await kitWithout(path);
      const kept = new Set(kit.contract.requirements.map((r) => r.id));
      const gone = shipped.requirements.map((r) => r.id).filter((id) => !kept.has(id));
      expect(kit.contract.operations.map((o) => o.operationId).filter((id) => removedIds.includes(id))).toEqual([]);
      const naming = kit.SUITE_CASES.filter(
        (c) =>
          removedIds.some((id) => c.title.startsWith(`${id}:`)) ||
          [...c.requirements, ...(c.covers ?? [])].some((id) => gone.includes(id)),
      );
      expect(naming.map((c) => c.title)).toEqual([]);

      const record = await kit.recordAgainst([], kit.SUITE_CASES);
      expect(record.cases).toMatchObject({ total: kit.SUITE_CASES.length, failed: 0 });
      expect(
        record.requirements.filter((r) => r.verdict === 'passed' && !((r.judged ?? 0) > 0)).map((r) => r.id),
      ).toEqual([]);
      expect(record.requirements.filter((r) => gone.includes(r.id)).map((r) => r.id)).toEqual([]);

      const flags = {
        requirement: [],
        level: 'must' as const,
        fault: [] as string[],
        choice: [] as string[],
        header: [],
      };
      const faultsBefore = kit.server.faultsBoundTo(shipped).faults.map((f) => f.name);
      const faultsGone = faultsBefore.filter((name) => !kit.server.FAULT_NAMES.includes(name));
      expect(faultsGone).toEqual(
        [...kit.server.INAPPLICABLE_FAULTS.keys()].filter((name) => faultsBefore.includes(name)),
      );
      for (const fault of faultsGone) {
        expect(() => kit.runSettings({ ...flags, fault: [fault] }, {})).toThrow(kit.TargetError);
        expect(() => kit.runSettings({ ...flags, fault: [fault] }, {})).toThrow(
          new RegExp(`^fault ${fault} does not apply to this contract: [^\\n]+$`),
        );
      }
      const choicesBefore = kit.server.choicesBoundTo(shipped).choices.map((c) => c.name);
      for (const choice of choicesBefore.filter((name) => !kit.server.CHOICE_NAMES.includes(name))) {
        expect(() => kit.runSettings({ ...flags, choice: [choice] }, {})).toThrow(
          new RegExp(`^choice ${choice} does not apply to this contract: [^\\n]+$`),
        );
      }

      const upstream = await kit.server.startReferenceServer();
      // The run command's preflight asks what the contract still holds.
      await expect(kit.preflight(kit.referenceTarget(upstream.baseUrl))).resolves.toBeUndefined();
      // A read-only run's preflight sends nothing that could create a record, whatever is left to ask.
      expect(await methodsAskedReadOnly(kit)).not.toContain('POST');
      const violations = new kit.Recorder();
      const proxy = await kit.startValidatingProxy({
        upstream: upstream.baseUrl,
        violations,
        repeatInterval: 0,
        contract: kit.contract,
        judgeThread: false,
      });
      try {
        for (const operation of removed) {
          const body =
            operation.requestBody === undefined
              ? {}
              : { body: JSON.stringify({ data: { type: operation.resourceType } }) };
          const headers = {
            authorization: `Bearer r:${kit.server.DEFAULT_CREDENTIALS.sessionToken}`,
            'content-type': 'application/vnd.api+json',
          };
          const answer = await kit.send(proxy.baseUrl, {
            method: operation.method,
            path: operation.pathTemplate,
            headers,
            ...body,
          });
          expect(answer.response.status).toBe(404);
        }
        await proxy.proxy.settled();
      } finally {
        await proxy.close();
        await upstream.close();
      }
      expect(violations.lines<{ rule: string }>().filter((l) => gone.includes(l.rule))).toEqual([]);
    });
  });
}
