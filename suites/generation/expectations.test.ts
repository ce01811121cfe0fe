// One reading for fixed and generated inputs: every request a fixed case sends as a generated input
// could be sent (the session credential, the kit's encoding) is read by the generator's
// expectations too, and every status the fixed case accepts must be one the generator accepts. A
// generated expectation stricter than a fixed case's fails a correct implementation under
// generation that the fixed cases pass. Run in process against the reference server, whose
// answers only steer the cases that read them (page walks); the comparison is of expectations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyMembers, includeNames, loadContract, MEDIA_TYPE, route } from '../../contract/index.ts';
import { creates, describeWith, documentExample, listQuery, lists } from '../../contract/test-support.ts';
import { startReferenceServer, type StartedReferenceServer } from '../../server/index.ts';
import { CaseSkipped, directClient, referenceTarget } from '../../server/test-support.ts';
import { ConformanceCase, NO_ANSWER, type Answer } from '../case.ts';
import type { OutgoingRequest, TargetClient } from '../client.ts';
import { caseTitle, SUITE_CASES } from '../cases/index.ts';
import { curlLine } from '../curl.ts';
import { expectationOf, holdsUnshownValue } from './expectations.ts';
import { minimalDocument } from '../documents.ts';

const contract = loadContract();
const unscrubbed = (text: string) => text;

/** A fixed case's expectation of one answer: the request sent and the statuses it accepts. */
interface FixedExpectation {
  title: string;
  request: OutgoingRequest;
  allowed: number[];
}

/** A ConformanceCase noting every status expectation its case states, with the request answered. */
class NotingCase extends ConformanceCase {
  constructor(
    context: ConstructorParameters<typeof ConformanceCase>[0],
    private readonly sent: Map<string, OutgoingRequest>,
    private readonly noted: FixedExpectation[],
    private readonly title: string,
  ) {
    super(context);
  }

  override expectStatus(answer: Answer, allowed: number[], requirement?: string, what?: string): boolean {
    const request = this.sent.get(answer.captured.curl);
    if (answer.status !== NO_ANSWER && request) this.noted.push({ title: this.title, request, allowed });
    return super.expectStatus(answer, allowed, requirement, what);
  }
}

/** The fixed cases' expectations, each case run against `baseUrl`. */
async function fixedExpectations(baseUrl: string): Promise<FixedExpectation[]> {
  const target = referenceTarget(baseUrl);
  const direct = directClient(baseUrl);
  const sent = new Map<string, OutgoingRequest>();
  const client: TargetClient = {
    ...direct,
    transmit: (request) => (sent.set(curlLine(request, unscrubbed), request), direct.transmit(request)),
  };
  const noted: FixedExpectation[] = [];
  for (const suiteCase of SUITE_CASES) {
    const context = {
      contract,
      client,
      target,
      failLevel: 'should' as const,
      scrub: unscrubbed,
      requirements: suiteCase.requirements,
      outcomeInWorker: true,
      skip: (reason: string): never => {
        throw new CaseSkipped(reason);
      },
    };
    try {
      await suiteCase.run(new NotingCase(context, sent, noted, caseTitle(suiteCase)));
    } catch (error) {
      if (!(error instanceof CaseSkipped)) throw error;
    }
  }
  return noted;
}

/** Whether the generator could send this request: the session credential in the kit's headers, and nothing else. */
function generatorCouldSend(request: OutgoingRequest, session: Record<string, string>): boolean {
  const expected = { ...session, ...(request.bodyText === undefined ? {} : { 'content-type': MEDIA_TYPE }) };
  return JSON.stringify(Object.entries(request.headers).sort()) === JSON.stringify(Object.entries(expected).sort());
}

describe('generated expectations against the fixed cases', () => {
  let server: StartedReferenceServer;
  let noted: FixedExpectation[];
  beforeAll(async () => {
    server = await startReferenceServer();
    noted = await fixedExpectations(server.baseUrl);
  }, 120_000);
  afterAll(() => server.close());

  it('no status a fixed case accepts is one a generated input of the same request may not be answered', () => {
    const session = new ConformanceCase({
      contract,
      client: directClient(server.baseUrl),
      target: referenceTarget(server.baseUrl),
      failLevel: 'must',
      scrub: unscrubbed,
      requirements: ['ERR-NO-5XX'],
      outcomeInWorker: true,
      skip: () => {
        throw new CaseSkipped('');
      },
    }).credentials.session;
    const comparable = noted.filter((n) => generatorCouldSend(n.request, session));
    // Each operation's requests of every kind (valid, refused, open) are compared, not a handful.
    for (const operation of contract.operations)
      expect(
        comparable.filter(
          (n) => route(contract, n.request.method, `${contract.basePath}${n.request.path}`) === operation,
        ).length,
        operation.operationId,
      ).toBeGreaterThan(3);
    const stricter = comparable.flatMap(({ title, request, allowed }) => {
      const operation = route(contract, request.method, `${contract.basePath}${request.path}`)!;
      const query = request.path.includes('?') ? request.path.slice(request.path.indexOf('?') + 1) : undefined;
      const expectation = expectationOf(contract, operation, query, request.bodyText);
      const refused = allowed.filter((status) =>
        expectation.open ? status >= 500 : !expectation.statuses.includes(status),
      );
      return refused.length === 0
        ? []
        : [
            `${title}: ${request.method} ${request.path} ${request.bodyText ?? ''} accepts ${refused.join(', ')}; generation expects ${expectation.open ? 'anything but a 5xx' : expectation.statuses.join(', ')}`,
          ];
    });
    expect(stricter).toEqual([]);
  });
});

/**
 * A list taking `page` and `include` whose include names are not shown, and a create whose relationships of names not
 * shown are open: each kind's inputs are judged open while the contract holds it.
 */
const pagedList = lists.find(
  (o) => ['page', 'include'].every((name) => o.parameters.some((p) => p.name === name)) && includeNames(o).length === 0,
);
const PAGED_LIST = 'list taking page and include whose include names are not shown';
const relating = creates.find((o) =>
  bodyMembers(o).some((m) => m.pointer === '/data/relationships' && m.namesNotShown === true),
);
const RELATING = 'create whose relationships of names not shown are open';

describeWith(pagedList, PAGED_LIST)(
  'list inputs whose encoding or meaning the specification does not show are open: anything but a 5xx',
  (list) => {
    const filter = listQuery(list);
    const open = [
      { input: 'a bare page', query: `${filter}&page=` },
      { input: 'a scalar page', query: `${filter}&page=3` },
      { input: 'an include name', query: `${filter}&include=owner` },
      { input: 'an empty include', query: `${filter}&include=` },
      { input: 'a fractional page member', query: `${filter}&page[limit]=2.5&page[offset]=0` },
      { input: 'a page member in exponent form', query: `${filter}&page[limit]=1&page[offset]=1e1` },
    ];
    for (const c of open) {
      it(c.input, () => {
        expect(expectationOf(contract, list, c.query, undefined)).toMatchObject({ valid: true, open: true });
      });
    }

    it('an include name relaxes no check; a fraction, what reads the page', () => {
      expect(
        expectationOf(contract, list, `${filter}&include=owner&page[limit]=5&page[offset]=10`, undefined).relaxed,
      ).toEqual([]);
      const fractional = expectationOf(contract, list, `${filter}&page[limit]=2.5&page[offset]=0`, undefined);
      expect(fractional.relaxed).toContain(list.roles.pageLength);
      expect(fractional.relaxed).not.toContain(list.roles.metaTotal);
    });

    it('a query whose every place the specification shows is not open', () => {
      expect(expectationOf(contract, list, `${filter}&page[limit]=5&page[offset]=0`, undefined)).toMatchObject({
        valid: true,
        open: false,
      });
    });
  },
);

describeWith(relating, RELATING)(
  'create inputs whose meaning the specification does not show are open: anything but a 5xx',
  (create) => {
    /** The relationships of the create's complete example, each its identifier only. */
    const example = documentExample(create) as { data: { relationships?: Record<string, { data: unknown }> } };
    const related = Object.fromEntries(
      Object.entries(example.data.relationships ?? {}).map(([name, relationship]) => [
        name,
        { data: relationship.data },
      ]),
    );
    /** The smallest document the create takes, with `relationships` of its own. */
    const withRelationships = (relationships: unknown) => {
      const minimal = minimalDocument(create, {}, 'a') as { data: Record<string, unknown> };
      return { data: { ...minimal.data, relationships } };
    };

    it('a relationship the specification does not name', () => {
      const body = withRelationships({ ...related, ' ': { data: null } });
      expect(expectationOf(contract, create, undefined, JSON.stringify(body))).toMatchObject({
        valid: true,
        open: true,
      });
    });

    it('a relationship of another name relaxes no check', () => {
      const other = withRelationships({ ...related, tag: { data: null } });
      expect(expectationOf(contract, create, undefined, JSON.stringify(other)).relaxed).toEqual([]);
    });

    it('a document whose every place the specification shows is not open', () => {
      expect(expectationOf(contract, create, undefined, JSON.stringify(withRelationships(related)))).toMatchObject({
        valid: true,
        open: false,
      });
      expect(holdsUnshownValue(create.requestBody!, withRelationships(related))).toBe(false);
    });
  },
);
