// What a case counts: per requirement, the exchanges a judge judged it on and broke it on, one
// each however many judges agree; and a case judges itself only what the catalogue binds to it.
import { describe, expect, it } from 'vitest';
import { MEDIA_TYPE, type Operation, type OperationRole } from '../contract/index.ts';
import { contract, createWithRecord, describeWith, itemExample, list, listQuery } from '../contract/test-support.ts';
import { referenceTarget } from '../server/test-support.ts';
import type { TestInfo } from '@playwright/test';
import { FORGIVEN_ANNOTATION } from '../run-protocol/index.ts';
import { ConformanceCase } from './case.ts';
import type { ReceivedResponse, TargetClient } from './client.ts';
import { rejectionBase } from './documents.ts';
import { expectRefused, rejectionStatuses } from './operations.ts';

/** The requirement playing `role` for `operation`. */
const inRole = (operation: Operation, role: OperationRole) => contract.requirementOf(operation, role)!.id;

/** A target that answers each request with the next of `answers`. */
function scripted(answers: ReceivedResponse[]): TargetClient {
  let next = 0;
  return { transmit: async () => ({ ok: true, response: answers[next++] }), close: async () => undefined };
}

const listAnswer = (body: unknown): ReceivedResponse => ({
  status: 200,
  headers: { 'content-type': MEDIA_TYPE },
  bodyText: JSON.stringify(body),
});

function caseAgainst(
  client: TargetClient,
  requirements: string[],
  fixtures = referenceTarget('http://127.0.0.1:9/v3').fixtures,
): ConformanceCase {
  const skip = (reason: string): never => {
    throw new Error(reason);
  };
  const target = { ...referenceTarget('http://127.0.0.1:9/v3'), fixtures };
  return new ConformanceCase({
    contract,
    client,
    target,
    failLevel: 'must',
    scrub: (text) => text,
    requirements,
    outcomeInWorker: true,
    skip,
  });
}

describeWith(list, 'list')('a conformance case on a list', (list) => {
  /** The list's success requirement, which the cases below judge. */
  const success = contract.successRequirement(list.operationId).id;
  const item = (id: string) => ({ ...itemExample(list), id });

  it('counts each exchange once per requirement, and the ones that broke it', async () => {
    const conformance = caseAgainst(
      scripted([listAnswer({ data: [item('6553f100c0ffee0000000101')] }), listAnswer({ data: [item('string')] })]),
      [success],
    );
    for (let i = 0; i < 2; i++)
      conformance.expectStatus(
        await conformance.send({
          operation: list,
          credentials: conformance.credentials.session,
          query: listQuery(list),
        }),
        [200],
      );
    const exercised = Object.fromEntries(
      conformance.outcomeData().exercised.map((e) => [e.requirement, { judged: e.judged, broken: e.broken }]),
    );
    expect(exercised[success]).toEqual({ judged: 2, broken: 0 });
    expect(exercised['RES-ID-OBJECTID']).toEqual({ judged: 2, broken: 1 });
    expect(exercised[inRole(list, 'itemShape')]).toEqual({ judged: 2, broken: 0 });
    expect(exercised[inRole(list, 'metaPages')]).toBeUndefined();
  });

  it('says why a judge could not judge a requirement no exchange of the case judged', async () => {
    const conformance = caseAgainst(
      scripted([
        listAnswer({
          data: [item('6553f100c0ffee0000000101')],
          meta: { total: 1, pages: 1, page: 1, offset: 0, limit: 0 },
        }),
      ]),
      [success],
    );
    await conformance.send({
      operation: list,
      credentials: conformance.credentials.session,
      query: listQuery(list),
    });
    expect(conformance.outcomeData().unexercised).toEqual([
      { requirement: inRole(list, 'pageLength'), reason: 'meta.limit was 0 and the request gave no page[limit]' },
      { requirement: inRole(list, 'metaPageNumber'), reason: 'meta.limit was 0 and the request gave no page[limit]' },
    ]);
  });

  it('judges nothing from a generic status it did not expect (a rate limit): no finding, the requirement unjudged with why', async () => {
    const status = 429;
    expect(contract.genericStatuses.has(status)).toBe(true);
    const conformance = caseAgainst(
      scripted([
        {
          status,
          headers: { 'content-type': MEDIA_TYPE },
          bodyText: JSON.stringify({ errors: [{ status: String(status), title: 'Too Many Requests' }] }),
        },
      ]),
      [success],
    );
    const answer = await conformance.send({
      operation: list,
      credentials: conformance.credentials.session,
      query: listQuery(list),
    });
    expect(conformance.expectStatus(answer, [200])).toBe(false);
    expect(conformance.blocking()).toEqual([]);
    expect(conformance.outcomeData().exercised.find((e) => e.requirement === success)).toBeUndefined();
    expect(conformance.outcomeData().unexercised).toContainEqual({
      requirement: success,
      reason: expect.stringMatching(
        new RegExp(
          `^the request was answered ${status} where 200 was expected: a status any operation may answer for a condition the specification leaves open`,
        ),
      ),
    });
  });

  it('fails a status it did not expect that is not generic', async () => {
    const conformance = caseAgainst(
      scripted([
        {
          status: 403,
          headers: { 'content-type': MEDIA_TYPE },
          bodyText: JSON.stringify({ errors: [{ status: '403', title: 'Forbidden' }] }),
        },
      ]),
      [success],
    );
    expect(
      conformance.expectStatus(
        await conformance.send({
          operation: list,
          credentials: conformance.credentials.session,
          query: listQuery(list),
        }),
        [200],
      ),
    ).toBe(false);
    expect(conformance.blocking().map((f) => f.requirement)).toContain(success);
  });

  describe("finished in its worker (the case-outcome reporter replaced), by the reporter's rule", () => {
    const forbidden: ReceivedResponse = {
      status: 403,
      headers: { 'content-type': MEDIA_TYPE },
      bodyText: JSON.stringify({ errors: [{ status: '403', title: 'Forbidden' }] }),
    };
    const testInfo = () =>
      ({
        attachments: [],
        annotations: [] as { type: string; description?: string }[],
        status: 'passed',
        expectedStatus: 'passed',
      }) as unknown as TestInfo;

    async function finished(accepted?: ReadonlyMap<string, string>): Promise<{ info: TestInfo; error: unknown }> {
      const conformance = new ConformanceCase({
        contract,
        client: scripted([forbidden]),
        target: referenceTarget('http://127.0.0.1:9/v3'),
        failLevel: 'must',
        scrub: (text) => text,
        requirements: [success],
        outcomeInWorker: true,
        accepted,
        skip: (reason) => {
          throw new Error(reason);
        },
      });
      conformance.expectStatus(
        await conformance.send({
          operation: list,
          credentials: conformance.credentials.session,
          query: listQuery(list),
        }),
        [200],
      );
      const info = testInfo();
      try {
        conformance.finish(info);
        return { info, error: undefined };
      } catch (error) {
        return { info, error };
      }
    }

    it('fails the case for its own blocking finding', async () => {
      expect(String((await finished()).error)).toMatch(new RegExp(`^Error: ${success} \\(MUST\\)`));
    });

    it('leaves a failure the gate accepts passed, with the note the reporter writes', async () => {
      const { info, error } = await finished(new Map([[success, 'waived until 2999-12-31: a known gap']]));
      expect(error).toBeUndefined();
      expect(info.annotations.filter((a) => a.type === FORGIVEN_ANNOTATION).map((a) => a.description)).toEqual([
        expect.stringMatching(new RegExp(`^${success} \\(waived until 2999-12-31: a known gap\\): `)),
      ]);
    });
  });
});

// A rejection answered 404 needs a document naming records.
describeWith(createWithRecord, 'create naming a record')(
  'a rejection answered 404 (a record not found, whose conditions are not shown)',
  (create) => {
    /** What a document whose `data` is not an object breaks. */
    const dataRequired = contract.requirementFor({
      operation: create.operationId,
      location: 'request',
      keyword: 'type',
      pointer: '/data',
    }).id;
    const notFound: ReceivedResponse = {
      status: 404,
      headers: { 'content-type': MEDIA_TYPE },
      bodyText: JSON.stringify({ errors: [{ status: '404', title: 'Not Found' }] }),
    };
    const refusedWith404 = async (fixtures: Record<string, string>) => {
      const conformance = caseAgainst(scripted([notFound]), [dataRequired], fixtures);
      const document = { ...rejectionBase(create, fixtures, 'tag'), data: 'not an object' };
      const answer = await conformance.send({
        operation: create,
        credentials: conformance.credentials.session,
        document,
      });
      expectRefused(conformance, create, answer, rejectionStatuses([dataRequired]));
      return conformance;
    };

    it('judges nothing when the document names stand-in records (no fixture ids given), and says which ids would let it', async () => {
      const conformance = await refusedWith404({});
      expect(conformance.blocking()).toEqual([]);
      expect(conformance.outcomeData().unexercised).toContainEqual({
        requirement: dataRequired,
        reason: expect.stringMatching(
          /^the request was answered 404: the run was given no .*fixture, so the document names a stand-in record/,
        ),
      });
    });

    it("fails when the records it names are the target's own", async () => {
      const conformance = await refusedWith404(referenceTarget('http://127.0.0.1:9/v3').fixtures);
      expect(conformance.blocking().map((f) => f.requirement)).toEqual([dataRequired]);
    });
  },
);

describe('a conformance case', () => {
  it('judges itself only requirements the catalogue binds to suiteCase', () => {
    const conformance = caseAgainst(scripted([]), ['AUTH-SESSION-ACCEPTED']);
    expect(() => conformance.held('RES-ID-OBJECTID')).toThrow(
      'a suite case judged RES-ID-OBJECTID, which the catalogue does not bind to suiteCase (judgedBy)',
    );
    expect(() => conformance.held('AUTH-SESSION-ACCEPTED')).not.toThrow();
  });
});
