// An open place relaxes only the checks that read it. For every role an entry of OPEN_PLACES
// relaxes, a witness compares: the same answer, judged once for a request holding the open place and
// once for the same request with that place closed (a value the specification shows), changes the
// verdict on the role's requirement. A role whose check reads nothing of the place judges both
// alike, and an entry relaxing it fails here. The answers are legal readings of the open place (a
// fraction truncated, a number past 2^53 read as the nearest one a 64-bit integer holds).
import { describe, expect, it } from 'vitest';
import {
  assessExchange,
  bodyMembers,
  LIST_ROLES,
  MEDIA_TYPE,
  OPERATION_ROLES,
  withValueAt,
  type HttpResponse,
  type Operation,
  type OperationRole,
} from '../../contract/index.ts';
import {
  contract,
  createWithoutRecord,
  createWithRecord,
  documentExample,
  exampleOf,
  itemExample,
  list,
  listQuery,
} from '../../contract/test-support.ts';
import { OPEN_PLACES } from './expectations.ts';

interface Sent {
  query?: string;
  document?: unknown;
}

interface Witness {
  place: string;
  operationId: string;
  open: Sent;
  closed: Sent;
  /** Answers to the open request under one legal reading of its open place each. */
  answers: HttpResponse[];
}

const answer = (status: number, body: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': MEDIA_TYPE },
  bodyText: JSON.stringify(body),
});

type Document = { data: Record<string, unknown> & { attributes: Record<string, unknown> } };

/** A page of `count` items of the list's complete example. */
const page = (list: Operation, count: number, meta: Record<string, number>) =>
  answer(200, { data: Array.from({ length: count }, () => itemExample(list)), meta });
const pageQuery = (list: Operation, limit: string, offset: string) =>
  `${listQuery(list)}&page[limit]=${limit}&page[offset]=${offset}`;

/**
 * Readings of `page[limit]=2.5&page[offset]=2.5` (truncated, rounded up), of a bare or scalar page (the default page)
 * and of `1e1` (its leading digits alone).
 */
const pageReadings = (list: Operation) => [
  page(list, 2, { total: 10, pages: 5, page: 2, offset: 2, limit: 2 }),
  page(list, 3, { total: 10, pages: 4, page: 1, offset: 3, limit: 3 }),
  page(list, 1, { total: 10, pages: 10, page: 1, offset: 0, limit: 1 }),
  page(list, 5, { total: 10, pages: 2, page: 1, offset: 0, limit: 5 }),
  page(list, 1, { total: 10, pages: 10, page: 3, offset: 2, limit: 1 }),
];

const NO_DOUBLE = 'a number no double holds exactly as a whole number';

/** The list's witnesses: its page written with numbers a double, or decimal digits, do not hold as written. */
const listWitnesses = (list: Operation): Witness[] => [
  {
    place: NO_DOUBLE,
    operationId: list.operationId,
    open: { query: pageQuery(list, '2.5', '2.5') },
    closed: { query: pageQuery(list, '2', '2') },
    answers: pageReadings(list),
  },
  {
    place: 'a query number written other than in decimal digits',
    operationId: list.operationId,
    open: { query: pageQuery(list, '1e1', '2e1') },
    closed: { query: pageQuery(list, '1', '2') },
    answers: pageReadings(list),
  },
  {
    place: 'a page written in a form only a convention refuses',
    operationId: list.operationId,
    open: { query: `${pageQuery(list, '2', '2')}&page=3` },
    closed: { query: pageQuery(list, '2', '2') },
    answers: pageReadings(list),
  },
];

/** The answer creating `document`: the complete example of the created resource, holding the attributes sent. */
function created(create: Operation, document: Document): HttpResponse {
  const example = exampleOf(create.responseBodies.get(201)) as Document;
  const attributes = { ...example.data.attributes, ...document.data.attributes };
  return answer(201, { data: { ...example.data, attributes } });
}

/**
 * A create's witness of a number no double holds: a whole number past 2^53 in a number attribute, read as another;
 * or else a fraction in an attribute the contract does not name (when it takes one), read truncated. None when it
 * has neither.
 */
function createWitness(create: Operation): Witness | undefined {
  const document = documentExample(create) as Document;
  const members = bodyMembers(create);
  const number = members.find(
    (m) => /^\/data\/attributes\/[^/]+$/.test(m.pointer) && m.types.length === 1 && m.types[0] === 'number',
  );
  const witness = (open: unknown, closed: Document, answer: Document): Witness => ({
    place: NO_DOUBLE,
    operationId: create.operationId,
    open: { document: open },
    closed: { document: closed },
    answers: [created(create, answer)],
  });
  if (number !== undefined) {
    const closed = withValueAt(document, number.pointer, 0) as Document;
    return witness(withValueAt(document, number.pointer, 2 ** 60 + 2 ** 10), closed, closed);
  }
  const extra = '/data/attributes/extra';
  const takesUnnamed = contract.validator(create.requestBody!)(withValueAt(document, extra, 1));
  return takesUnnamed
    ? witness(withValueAt(document, extra, 1.5), document, withValueAt(document, extra, 1) as Document)
    : undefined;
}

const WITNESSES: Witness[] = [
  ...(list === undefined ? [] : listWitnesses(list)),
  // The first create of each kind: one names records, one does not.
  ...[createWithoutRecord, createWithRecord].flatMap((create) => (create && createWitness(create)) ?? []),
];

type Verdict = 'broken' | 'held' | 'not judged' | 'not met';

function verdictOn(requirement: string, operationId: string, sent: Sent, response: HttpResponse): Verdict {
  const operation = contract.operation(operationId);
  const path = `${contract.basePath}${operation.pathTemplate}${sent.query === undefined ? '' : `?${sent.query}`}`;
  const bodyText = sent.document === undefined ? undefined : JSON.stringify(sent.document);
  const headers = {
    authorization: 'Bearer r:token',
    ...(bodyText === undefined ? {} : { 'content-type': MEDIA_TYPE }),
  };
  const { findings, judged, unjudged } = assessExchange(
    contract,
    { method: operation.method, path, headers, bodyText },
    response,
  );
  if (findings.some((f) => f.requirement === requirement)) return 'broken';
  if (judged.some((j) => j.requirement === requirement)) return 'held';
  return unjudged.some((u) => u.requirement === requirement) ? 'not judged' : 'not met';
}

/** Whether some witness of `place` shows the check of `role` reading the place: the verdict moves with it. */
function placeChangesRole(place: string, role: string): boolean {
  return WITNESSES.filter((w) => w.place === place).some((witness) => {
    const requirement = contract.operation(witness.operationId).roles[role as OperationRole];
    return (
      requirement !== undefined &&
      witness.answers.some(
        (a) =>
          verdictOn(requirement, witness.operationId, witness.open, a) !==
          verdictOn(requirement, witness.operationId, witness.closed, a),
      )
    );
  });
}

describe('an open place relaxes only the checks that read it', () => {
  for (const place of OPEN_PLACES) {
    // A role no operation of the contract names has no check to relax.
    const named = place.relaxes.filter((role) => contract.requirementsInRole(role).length > 0);
    const relaxes = `each role it relaxes (${named.join(', ')}) changes its verdict with the place`;
    it(`${place.name}: ${named.length === 0 ? 'relaxes nothing the contract names' : relaxes}`, () => {
      const unaffected = named.filter((role) => !placeChangesRole(place.name, role));
      expect(unaffected, 'roles relaxed whose verdict no reading of the place changes').toEqual([]);
    });
  }

  it('a role whose check reads nothing of the place fails the comparison: the total, the relationships echo', () => {
    expect(placeChangesRole('a number no double holds exactly as a whole number', 'metaTotal')).toBe(false);
    expect(placeChangesRole('a number no double holds exactly as a whole number', 'relationshipsEcho')).toBe(false);
  });

  it('every relaxed role is one an operation can name, and every marker of the contract has its entry', () => {
    const roles: readonly string[] = [...OPERATION_ROLES, ...LIST_ROLES];
    expect(OPEN_PLACES.flatMap((place) => place.relaxes).filter((role) => !roles.includes(role))).toEqual([]);
    const markers = new Set(
      contract.operations.flatMap((operation) =>
        [
          ...JSON.stringify([operation.requestBody ?? {}, operation.parameters]).matchAll(
            /"(x-(?:values|names|maximum)-[a-z-]+)"/g,
          ),
        ].map((m) => m[1]),
      ),
    );
    expect([...markers].filter((marker) => !OPEN_PLACES.some((place) => place.marker === marker))).toEqual([]);
    expect(markers.size, 'the markers the scan finds').toBeGreaterThan(0);
  });
});
