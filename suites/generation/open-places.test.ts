// An open place relaxes only the checks that read it. For every role an entry of OPEN_PLACES
// relaxes, a witness compares: the same answer, judged once for a request holding the open place and
// once for the same request with that place closed (a value the specification shows), changes the
// verdict on the role's requirement. A role whose check reads nothing of the place judges both
// alike, and an entry relaxing it fails here. The answers are legal readings of the open place (a
// fraction truncated, a number past 2^53 read as the nearest one a 64-bit integer holds).
import { describe, expect, it } from 'vitest';
import {
  assessExchange,
  LIST_ROLES,
  loadContract,
  MEDIA_TYPE,
  OPERATION_ROLES,
  type HttpResponse,
} from '../../contract/index.ts';
import { OPEN_PLACES } from './expectations.ts';

const contract = loadContract();
const list = contract.operation('listNotificationGroups');

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

const ITEM = {
  id: '6553f100c0ffee0000000001',
  type: 'NotificationGroup',
  attributes: { groupId: 'Exams', label: 'Exams', defaultValue: true, description: 'd' },
};
const items = (count: number) => Array.from({ length: count }, () => ITEM);
const page = (count: number, meta: Record<string, number>) => answer(200, { data: items(count), meta });
const listQuery = (limit: string, offset: string) => `filter[type]=portal&page[limit]=${limit}&page[offset]=${offset}`;

const highlightDocument = (attributes: Record<string, unknown>) => ({ data: { type: 'Highlight', attributes } });
const createdHighlight = (attributes: Record<string, unknown>) =>
  answer(201, { data: { id: '6553f100c0ffee0000000002', type: 'Highlight', attributes } });
const attributeConfigDocument = (editPermission: number) => ({
  data: { type: 'AttributeConfig', attributes: { target: 'User', type: 'boolean', editPermission } },
});
const createdAttributeConfig = (editPermission: number) =>
  answer(201, {
    data: {
      id: '6553f100c0ffee0000000003',
      type: 'AttributeConfig',
      attributes: { target: 'User', type: 'boolean', editPermission, inUse: false },
    },
  });

/**
 * Readings of `page[limit]=2.5&page[offset]=2.5` (truncated, rounded up), of a bare or scalar page (the default page)
 * and of `1e1` (its leading digits alone).
 */
const PAGE_READINGS = [
  page(2, { total: 10, pages: 5, page: 2, offset: 2, limit: 2 }),
  page(3, { total: 10, pages: 4, page: 1, offset: 3, limit: 3 }),
  page(1, { total: 10, pages: 10, page: 1, offset: 0, limit: 1 }),
  page(5, { total: 10, pages: 2, page: 1, offset: 0, limit: 5 }),
  page(1, { total: 10, pages: 10, page: 3, offset: 2, limit: 1 }),
];

const WITNESSES: Witness[] = [
  {
    place: 'a number no double holds exactly as a whole number',
    operationId: list.operationId,
    open: { query: listQuery('2.5', '2.5') },
    closed: { query: listQuery('2', '2') },
    answers: PAGE_READINGS,
  },
  {
    place: 'a number no double holds exactly as a whole number',
    operationId: 'createAttributeConfig',
    open: { document: attributeConfigDocument(2 ** 60 + 2 ** 10) },
    closed: { document: attributeConfigDocument(0) },
    answers: [createdAttributeConfig(0)],
  },
  {
    place: 'a number no double holds exactly as a whole number',
    operationId: 'createHighlight',
    open: { document: highlightDocument({ color: 'yellow', extra: 1.5 }) },
    closed: { document: highlightDocument({ color: 'yellow' }) },
    answers: [createdHighlight({ color: 'yellow', extra: 1 })],
  },
  {
    place: 'a query number written other than in decimal digits',
    operationId: list.operationId,
    open: { query: listQuery('1e1', '2e1') },
    closed: { query: listQuery('1', '2') },
    answers: PAGE_READINGS,
  },
  {
    place: 'a page written in a form only a convention refuses',
    operationId: list.operationId,
    open: { query: `${listQuery('2', '2')}&page=3` },
    closed: { query: listQuery('2', '2') },
    answers: PAGE_READINGS,
  },
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
    const requirement = contract.operation(witness.operationId).roles[role as keyof typeof list.roles];
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
    const relaxes = `each role it relaxes (${place.relaxes.join(', ')}) changes its verdict with the place`;
    it(`${place.name}: ${place.relaxes.length === 0 ? 'relaxes nothing' : relaxes}`, () => {
      const unaffected = place.relaxes.filter((role) => !placeChangesRole(place.name, role));
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
    expect(markers.size).toBeGreaterThanOrEqual(4);
  });
});
