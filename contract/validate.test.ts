// Routing of schema violations to requirements: exact routes for traffic the schema cases do not
// cover (queries, malformed and empty bodies, generic traffic), and a check that every
// schemaFindings route of the catalogue is reached and every violation has one.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import {
  Contract,
  filterMembers,
  filterRequired,
  forgetLargeParses,
  parsedBody,
  listOperations,
  routeSpecificity,
  SCHEMA_DIR,
  servedFilterMember,
  smallestQuery,
  type Operation,
  type OperationRole,
  validateGenericRequest,
  validateGenericResponse,
  validateRequest,
  validateResponse,
  type CompiledRoute,
  type Finding,
  type SchemaViolation,
} from './index.ts';
import { contract, create, creates, credentials, itWith, jsonApi, noneLeft } from './test-support.ts';
import { allCases, documentUses, readCaseFiles } from './schema-cases.ts';

interface TrafficCase {
  description: string;
  validate: () => Finding[];
  expected: { requirement: string; pointer: string }[];
}

/** A query part of a list request, the requirement role it breaks and the parameter it names. */
interface ListQueryRow {
  description: string;
  /** Appended to the list's filter (none for `without filter`). */
  query: string;
  role: OperationRole;
  pointer: (filter: string) => string;
  withoutFilter?: boolean;
}

const listQueryRows: ListQueryRow[] = [
  {
    description: 'without filter',
    query: 'page[limit]=1&page[offset]=0',
    role: 'filterRequired',
    pointer: (filter) => filter,
    withoutFilter: true,
  },
  { description: 'with half a page', query: 'page[limit]=1', role: 'pageBothMembers', pointer: () => 'page[offset]' },
  {
    description: 'with page[limit]=0',
    query: 'page[limit]=0&page[offset]=0',
    role: 'pageLimitMin',
    pointer: () => 'page[limit]',
  },
  {
    description: 'with page[offset]=-1',
    query: 'page[limit]=1&page[offset]=-1',
    role: 'pageOffsetMin',
    pointer: () => 'page[offset]',
  },
  {
    description: 'with page[offset]=abc',
    query: 'page[limit]=1&page[offset]=abc',
    role: 'pageNotANumber',
    pointer: () => 'page[offset]',
  },
  { description: 'with include as an object', query: 'include[a]=b', role: 'includeShape', pointer: () => 'include' },
  { description: 'with a bare page', query: 'page=2', role: 'pageShape', pointer: () => 'page' },
];

/**
 * The query routes of every list, derived from the contract: each row whose role the list names,
 * sent after the list's smallest query (its filter's first value), routed to the list's own
 * requirement for the role.
 */
const listTraffic: TrafficCase[] = listOperations(contract).flatMap((operation) => {
  const filter = smallestQuery(operation.parameters);
  const served = servedFilterMember(operation);
  return listQueryRows.flatMap((row): TrafficCase[] => {
    const requirement = operation.roles[row.role];
    if (requirement === undefined || (row.withoutFilter && !filterRequired(operation))) return [];
    const query = row.withoutFilter ? row.query : [filter, row.query].filter((part) => part !== '').join('&');
    return [
      {
        description: `${operation.operationId}: a list request ${row.description}`,
        validate: () =>
          validateRequest(contract, operation, {
            method: 'GET',
            path: `${contract.basePath}${operation.pathTemplate}?${query}`,
            headers: credentials,
          }),
        expected: [
          {
            requirement,
            pointer: row.pointer(`filter[${(served ?? filterMembers(operation).find((m) => m.required))?.name ?? ''}]`),
          },
        ],
      },
    ];
  });
});

/** The requirement the catalogue routes a request violation of `operation` at `pointer` to, from its own routes. */
function ownRequestRoute(operation: Operation, pointer: string): string {
  const routes = contract.schemaFindingRoutes.filter(
    (r) => r.operation === operation.operationId && r.location === 'request' && r.pointerPattern?.test(pointer),
  );
  if (routes.length !== 1) throw new Error(`${operation.operationId}: ${routes.length} request routes at "${pointer}"`);
  return routes[0].requirement.id;
}

/** The body traffic of every create, derived from the contract: each routed to the operation's own requirement. */
const createTraffic: TrafficCase[] = creates.flatMap((operation): TrafficCase[] => {
  const path = `${contract.basePath}${operation.pathTemplate}`;
  const answer = (response: { status: number; headers: Record<string, string>; bodyText: string }) =>
    validateResponse(contract, operation, response);
  return [
    {
      description: `${operation.operationId}: a create request whose body is not JSON`,
      validate: () =>
        validateRequest(contract, operation, {
          method: 'POST',
          path,
          headers: { ...credentials, ...jsonApi },
          bodyText: '{"data": {',
        }),
      expected: [{ requirement: 'REQ-MALFORMED-JSON', pointer: '' }],
    },
    {
      description: `${operation.operationId}: a create request without a body`,
      validate: () => validateRequest(contract, operation, { method: 'POST', path, headers: credentials }),
      expected: [{ requirement: ownRequestRoute(operation, ''), pointer: '' }],
    },
    {
      description: `${operation.operationId}: a 201 without a body`,
      validate: () => answer({ status: 201, headers: jsonApi, bodyText: '' }),
      expected: [{ requirement: contract.requirementOf(operation, 'responseShape')!.id, pointer: '' }],
    },
    {
      description: `${operation.operationId}: a 401 whose body is not JSON`,
      validate: () => answer({ status: 401, headers: jsonApi, bodyText: 'Unauthorized' }),
      expected: [{ requirement: 'ERR-ENVELOPE', pointer: '' }],
    },
    {
      description: `${operation.operationId}: a 409 without errors`,
      validate: () => answer({ status: 409, headers: jsonApi, bodyText: '{"meta":{}}' }),
      expected: [{ requirement: 'ERR-ENVELOPE-404-409', pointer: '/errors' }],
    },
    {
      description: `${operation.operationId}: a create request whose body was not kept: its media type only`,
      validate: () =>
        validateRequest(contract, operation, { method: 'POST', path, headers: credentials }, { bodyOmitted: true }),
      expected: [{ requirement: 'MEDIA-TYPE-REQUEST', pointer: '' }],
    },
    ...mediaTypeOf415(`${operation.operationId}: a 415 of a create operation`, answer),
  ];
});

/** A 415 sent as application/json with a numeric status, and one sent as text/html. */
function mediaTypeOf415(
  description: string,
  validate: (response: { status: number; headers: Record<string, string>; bodyText: string }) => Finding[],
): TrafficCase[] {
  return [
    {
      description: `${description} sent as application/json with a numeric status: the media type and the status`,
      validate: () =>
        validate({
          status: 415,
          headers: { 'content-type': 'application/json' },
          bodyText: '{"errors":[{"status":415}]}',
        }),
      expected: [
        { requirement: 'MEDIA-TYPE-RESPONSE', pointer: '' },
        { requirement: 'ERR-STATUS-STRING', pointer: '/errors/0/status' },
      ],
    },
    {
      description: `${description} sent as text/html, not JSON: its media type only`,
      validate: () => validate({ status: 415, headers: { 'content-type': 'text/html' }, bodyText: '<html>415</html>' }),
      expected: [{ requirement: 'MEDIA-TYPE-RESPONSE', pointer: '' }],
    },
  ];
}

/** The bodies of every list, derived from the contract. */
const listBodyTraffic: TrafficCase[] = listOperations(contract).flatMap((operation): TrafficCase[] => [
  {
    description: `${operation.operationId}: a list response whose body is not JSON`,
    validate: () => validateResponse(contract, operation, { status: 200, headers: jsonApi, bodyText: '<html></html>' }),
    expected: [{ requirement: contract.requirementOf(operation, 'responseShape')!.id, pointer: '' }],
  },
  {
    description: `${operation.operationId}: a list response whose body was not kept: its media type only`,
    validate: () =>
      validateResponse(contract, operation, { status: 200, headers: jsonApi, bodyText: '' }, { bodyOmitted: true }),
    expected: [],
  },
]);

const traffic: TrafficCase[] = [
  ...listTraffic,
  ...listBodyTraffic,
  ...createTraffic,
  {
    description: 'a request outside the three operations whose body is not JSON',
    validate: () =>
      validateGenericRequest(contract, {
        method: 'POST',
        path: '/v3/quizzes',
        headers: { ...credentials, ...jsonApi },
        bodyText: 'data=1',
      }),
    expected: [{ requirement: 'REQ-MALFORMED-JSON', pointer: '' }],
  },
  {
    description: 'a 422 outside the three operations without errors',
    validate: () => validateGenericResponse(contract, { status: 422, headers: jsonApi, bodyText: '{"meta":{}}' }),
    expected: [{ requirement: 'GEN-ENVELOPE', pointer: '/errors' }],
  },
  {
    description: 'a request outside the three operations sent as application/json',
    validate: () =>
      validateGenericRequest(contract, {
        method: 'POST',
        path: '/v3/quizzes',
        headers: { ...credentials, 'content-type': 'application/json' },
        bodyText: '{"data":null}',
      }),
    expected: [{ requirement: 'MEDIA-TYPE-REQUEST', pointer: '' }],
  },
  {
    description: 'a response outside the three operations sent as text/html',
    validate: () =>
      validateGenericResponse(contract, {
        status: 200,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html></html>',
      }),
    expected: [{ requirement: 'MEDIA-TYPE-RESPONSE', pointer: '' }],
  },
  {
    description: 'a 403 outside the three operations with a numeric error title',
    validate: () =>
      validateGenericResponse(contract, { status: 403, headers: jsonApi, bodyText: '{"errors":[{"title":403}]}' }),
    expected: [{ requirement: 'ERR-OBJECT-MEMBERS', pointer: '/errors/0/title' }],
  },
  ...mediaTypeOf415('a 415 outside the three operations', (response) => validateGenericResponse(contract, response)),
];

describe('validation routes each violation to its requirement', () => {
  for (const c of traffic) {
    it(c.description, () => {
      expect(c.validate().map(({ requirement, pointer }) => ({ requirement, pointer }))).toEqual(c.expected);
    });
  }
  if (listOperations(contract).length === 0) it.skip(`the traffic of a list (${noneLeft('list')})`, () => undefined);
  if (creates.length === 0) it.skip(`the traffic of a create (${noneLeft('create operation')})`, () => undefined);

  itWith(create, 'create operation')(
    'routes a violation under a member name holding a line break like any other name',
    (operation) => {
      const violation = {
        operation: operation.operationId,
        location: 'request' as const,
        keyword: 'type',
        pointer: '/data/attributes/a\nb',
      };
      expect(contract.routeFor(violation).requirement.id).toBe(
        contract.routeFor({ ...violation, pointer: '/data/attributes/ab' }).requirement.id,
      );
    },
  );

  it('refuses to guess when no route matches a violation', () => {
    const violation = {
      operation: 'unspecifiedOperation',
      location: 'request' as const,
      keyword: 'type',
      pointer: '/data',
    };
    expect(() => contract.routeFor(violation)).toThrow(
      'no requirement routes request type at "/data" of unspecifiedOperation',
    );
  });
});

describe('the schemaFindings routes of requirements.yaml', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Every case this file and schemas/cases/ hold, validated however the contract would meet it. */
  function runCorpus(): string[] {
    const unrouted: string[] = [];
    const attempt = (description: string, validate: () => unknown) => {
      try {
        validate();
      } catch (error) {
        unrouted.push(`${description}: ${(error as Error).message}`);
      }
    };
    for (const c of traffic) attempt(c.description, c.validate);
    for (const [name, file] of readCaseFiles()) {
      const uses = documentUses(contract, file.schema);
      for (const c of allCases(contract, file))
        for (const use of uses)
          attempt(`${name} ${c.description} as ${use.name}`, () => use.validate(contract, c.data));
    }
    return unrouted;
  }

  const label = (route: CompiledRoute) =>
    `${route.requirement.id} ${JSON.stringify({ operation: route.operation, location: route.location, status: route.status, keyword: route.keyword, pointer: route.pointer })}`;

  it('are each reached by a case, and every schema violation has one', () => {
    // requirementFor remembers routed shapes, so the route of each violation it saw is asked again here.
    const requirementFor = vi.spyOn(contract, 'requirementFor');
    const unrouted = runCorpus();
    const reached = new Set<CompiledRoute>();
    for (const [violation] of requirementFor.mock.calls) {
      try {
        reached.add(contract.routeFor(violation));
      } catch {
        // Counted in `unrouted` already.
      }
    }
    expect(unrouted, 'violations no route matches').toEqual([]);
    expect(
      contract.schemaFindingRoutes.filter((route) => !reached.has(route)).map(label),
      'routes no case reaches',
    ).toEqual([]);
  });

  /** Every violation the corpus meets, once per shape. */
  function corpusViolations(): SchemaViolation[] {
    const requirementFor = vi.spyOn(contract, 'requirementFor');
    runCorpus();
    const seen = new Map<string, SchemaViolation>();
    for (const [violation] of requirementFor.mock.calls) seen.set(JSON.stringify(violation), violation);
    return [...seen.values()];
  }

  it('route by specificity, never by the order of the catalogue', () => {
    // The catalogue as the contract reads it, templates taken, in reverse order.
    const reversed = new Contract(
      readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8'),
      stringifyYaml({ requirements: [...contract.requirements].reverse() }),
    );
    const moved = corpusViolations().flatMap((violation) => {
      const [shipped, backwards] = [
        contract.routeFor(violation).requirement.id,
        reversed.routeFor(violation).requirement.id,
      ];
      return shipped === backwards
        ? []
        : [`${JSON.stringify(violation)}: ${shipped} in file order, ${backwards} reversed`];
    });
    expect(moved).toEqual([]);
  });

  it('never leave two requirements equally specific for one violation', () => {
    const ties = corpusViolations().flatMap((violation) => {
      const [best, next] = contract.routesMatching(violation);
      const tied =
        next !== undefined &&
        next.requirement !== best.requirement &&
        routeSpecificity(next).join() === routeSpecificity(best).join();
      return tied ? [`${JSON.stringify(violation)}: ${label(best)} and ${label(next)}`] : [];
    });
    expect(ties).toEqual([]);
  });
});

describe('the parses the contract keeps between readers of one message', () => {
  const message = (bodyText: string) => ({ method: 'POST', path: '/v3/things', headers: {}, bodyText });
  const nextTask = () => new Promise((resolve) => setImmediate(resolve));

  it('reads a small body parsed once, across tasks', async () => {
    const small = message('{"data":{"type":"Thing","attributes":{}}}');
    const first = parsedBody(small);
    await nextTask();
    expect(parsedBody(small)).toBe(first);
  });

  it('keeps a large body parsed only until its task ends: a judged megabyte is not held after it', async () => {
    const large = message(`{"data":{"type":"Thing","attributes":{"items":[${Array(40_000).fill('{}').join(',')}]}}}`);
    const first = parsedBody(large);
    expect(parsedBody(large)).toBe(first);
    await nextTask();
    expect(parsedBody(large)).not.toBe(first);
  });

  it('lets go of large parses at once when asked', () => {
    const large = message(`[${Array(40_000).fill('0').join(',')}]`);
    const first = parsedBody(large);
    forgetLargeParses();
    expect(parsedBody(large)).not.toBe(first);
  });
});
