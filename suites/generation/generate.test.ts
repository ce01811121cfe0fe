// The generation engine's bounds and replay, against the reference server in process: the same
// seed sends the same requests and another seed others; an operation stops when its time budget
// runs out, and when its requests time out three times in a row (recording one no-answer finding,
// never shrinking it); --read-only leaves the create operations out; the inputs an earlier record
// failed on (--baseline) are sent before anything else and fail again while the fault stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type Operation } from '../../contract/index.ts';
import { startReferenceServer, type StartedReferenceServer } from '../../server/index.ts';
import { CaseSkipped, directClient, referenceTarget } from '../../server/test-support.ts';
import { ConformanceCase } from '../case.ts';
import { SILENCE_LIMIT, type OutgoingRequest, type TargetClient } from '../client.ts';
import { generateForOperation } from './generate.ts';
import { foundInputsOf, generatedRecord } from '../../reports/generated.ts';
import { operationBudgetMs } from './cases.ts';
import { creates, lists, noneLeft } from '../../contract/test-support.ts';

const contract = loadContract();
/** A list, and a create, of the contract: what the engine's bounds and replay are shown on. */
const list = lists[0] as Operation | undefined;
const create = creates[0] as Operation | undefined;

let server: StartedReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer();
});
afterAll(() => server.close());

function caseWith(client: TargetClient, operation: Operation, readOnly = false): ConformanceCase {
  return new ConformanceCase({
    contract,
    client,
    target: referenceTarget(server.baseUrl),
    failLevel: 'must',
    scrub: (text) => text,
    requirements: [contract.successRequirement(operation.operationId).id],
    outcomeInWorker: true,
    readOnly,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
}

/** The reference server's client, noting each request sent. */
function recordingClient(sent: string[]): TargetClient {
  const client = directClient(server.baseUrl);
  return {
    ...client,
    transmit: (request: OutgoingRequest) => (
      sent.push(`${request.method} ${request.path} ${request.bodyText ?? ''}`),
      client.transmit(request)
    ),
  };
}

/** A target that never answers in time: the client's own rule stops sending after SILENCE_LIMIT timeouts in a row. */
function silentClient(sent: OutgoingRequest[]): TargetClient {
  return {
    async transmit(request) {
      if (sent.length >= SILENCE_LIMIT)
        return { ok: false, silenced: true, failure: `not sent: the last ${SILENCE_LIMIT} requests got no answer` };
      sent.push(request);
      return {
        ok: false,
        timedOut: true,
        failure: 'no complete answer within 100 ms (the request timeout; raise it with --request-timeout)',
      };
    },
    close: async () => undefined,
  };
}

const job = (
  operation: Operation,
  seed: number,
  fields: { inputs?: number; budgetMs?: number; boundary?: boolean } = {},
) => ({
  operation,
  fixtures: referenceTarget(server.baseUrl).fixtures,
  inputs: fields.inputs ?? 40,
  boundary: fields.boundary ?? false,
  seed,
  budgetMs: fields.budgetMs ?? 60_000,
  blocking: ['MUST' as const],
});

const missing = list === undefined ? 'list' : create === undefined ? 'create operation' : undefined;
(missing === undefined ? describe : describe.skip)(
  `generation${missing === undefined ? '' : ` (${noneLeft(missing)})`}`,
  () => {
    const list = lists[0];
    const create = creates[0];

    it('the same seed sends the same requests; another seed sends others', async () => {
      const runs: string[][] = [[], [], []];
      for (const [index, seed] of [3, 3, 4].entries())
        await generateForOperation(caseWith(recordingClient(runs[index]), list), job(list, seed));
      expect(runs[0]).toHaveLength(40);
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).not.toEqual(runs[0]);
    });

    it('stops an operation when its time budget runs out, and says so', async () => {
      const outcome = await generateForOperation(
        caseWith(directClient(server.baseUrl), create),
        job(create, 1, { inputs: 100_000, budgetMs: 300 }),
      );
      expect(outcome.stopped).toBe('its time budget of 300 ms ran out');
      expect(outcome.inputs.sent).toBeGreaterThan(0);
      expect(outcome.inputs.sent).toBeLessThan(100_000);
    });

    it('stops an operation after three requests in a row get no answer, with one no-answer finding, not shrunk', async () => {
      const sent: OutgoingRequest[] = [];
      const conformance = caseWith(silentClient(sent), list);
      const outcome = await generateForOperation(conformance, job(list, 1));
      expect(sent).toHaveLength(SILENCE_LIMIT);
      expect(outcome.stopped).toBe('three requests in a row got no answer within the request timeout');
      expect(conformance.blocking().map((f) => `${f.requirement}: ${f.message}`)).toEqual([
        `${contract.successRequirement(list.operationId).id}: no answer: no complete answer within 100 ms (the request timeout; raise it with --request-timeout)`,
      ]);
    });

    it('--baseline: the inputs an earlier record failed on go first and fail again, whatever the seed', async () => {
      const faulted = await startReferenceServer({ faults: ['largest-limit-500'] });
      try {
        // The earlier run: the boundary phase finds the 500 and records its input.
        const earlier = await generateForOperation(
          caseWith(directClient(faulted.baseUrl), list),
          job(list, 1, { inputs: 0, boundary: true }),
        );
        const found = foundInputsOf(
          generatedRecord({ inputs: 0, seed: 1, operationBudgetMs: 1, totalBudgetMs: 1 }, [earlier]),
        );
        expect(found.map((f) => f.requirement)).toContain('ERR-NO-5XX');
        const foundBefore = found.filter((f) => f.operation === list.operationId).map(({ query }) => ({ query }));
        for (const seed of [2, 3]) {
          const sent: string[] = [];
          const direct = directClient(faulted.baseUrl);
          const client = {
            ...direct,
            transmit: (request: OutgoingRequest) => (sent.push(request.path), direct.transmit(request)),
          };
          const again = await generateForOperation(caseWith(client, list), {
            ...job(list, seed, { inputs: 5 }),
            foundBefore,
          });
          expect(sent[0]).toBe(`${list.pathTemplate}?${foundBefore[0].query}`);
          expect(again.requirements.find((r) => r.id === 'ERR-NO-5XX')?.verdict, `seed ${seed}`).toBe('failed');
        }
        const withoutThem = await generateForOperation(
          caseWith(directClient(faulted.baseUrl), list),
          job(list, 2, { inputs: 5 }),
        );
        expect(withoutThem.requirements.find((r) => r.id === 'ERR-NO-5XX')?.verdict).toBe('passed');
      } finally {
        await faulted.close();
      }
    });

    it('--read-only: a create operation sends nothing', async () => {
      const sent: string[] = [];
      await expect(generateForOperation(caseWith(recordingClient(sent), create, true), job(create, 1))).rejects.toThrow(
        CaseSkipped,
      );
      expect(sent).toEqual([]);
    });

    it('what generation judged is judged in the case too: every requirement its summary lists, held or broken, counts in the record', async () => {
      for (const operation of [list, create]) {
        const conformance = caseWith(directClient(server.baseUrl), operation);
        const outcome = await generateForOperation(conformance, job(operation, 5));
        const exercised = new Map(conformance.exercised().map((e) => [e.requirement, e]));
        expect(outcome.requirements.length, operation.operationId).toBeGreaterThan(3);
        for (const requirement of outcome.requirements) {
          expect(exercised.get(requirement.id)?.judged, `${operation.operationId} ${requirement.id}`).toBeGreaterThan(
            0,
          );
          expect(exercised.get(requirement.id)?.broken ?? 0, `${operation.operationId} ${requirement.id}`).toBe(
            requirement.verdict === 'failed' ? 1 : 0,
          );
        }
      }
    });

    it("shares the total budget out evenly, never past an operation's own", () => {
      const settings = { inputs: 10, seed: 1, operationBudgetMs: 60_000, totalBudgetMs: 90_000 };
      expect(operationBudgetMs(settings, 3)).toBe(30_000);
      expect(operationBudgetMs(settings, 1)).toBe(60_000);
    });
  },
);
