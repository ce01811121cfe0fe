// Each list's filter and include (section 4.1; docs/certification.md §4), read from its own
// parameters: each allowed value of the filter's served member is answered 200 with a valid list
// document; every other member is sent alone (at each value the contract draws for it: its allowed
// values, or the target's record and one no target holds where it names a record) and with the
// others; a missing, empty, unknown or wrongly shaped filter that the contract refuses is answered
// 400 with an error document that names the parameter (SHOULD). Each include name the contract
// defines is sent alone and all together; where it defines none, a name it does not define.
import {
  FILTER_PARAMETER,
  filterMembers,
  filterRequired,
  INCLUDE_PARAMETER,
  includeNames,
  memberValue,
  recordKindLabel,
  servedFilterMember,
  type FilterMember,
  type Operation,
  type OperationRole,
  type RecordIds,
} from '../../contract/index.ts';
import { PLACEHOLDER_FIXTURES } from '../documents.ts';
import {
  brokenRequirements,
  filterQuery,
  filterValues,
  listOperations,
  recordsInTitles,
  refusalOf,
  roleId,
  roleIds,
  unknownValue,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

/** What every list answer is checked for besides its status: the document, its items, its meta. */
const LIST_DOCUMENT_ROLES: OperationRole[] = ['responseShape', 'itemShape', 'metaIntegers', 'filterMatch'];
const LIST_DOCUMENT = ['RES-INTEGER-FORM', 'RES-ID-STRING', 'RES-ID-OBJECTID', 'MEDIA-TYPE-RESPONSE'];

/** The requirements a served list answer is checked for, for one list. */
export function listDocumentCovers(operation: Operation): string[] {
  return [...roleIds(operation, LIST_DOCUMENT_ROLES), ...LIST_DOCUMENT];
}

/** A member name the filter does not have. */
function otherMember(operation: Operation): string {
  return unknownValue(
    filterMembers(operation).map((m) => m.name),
    'kind',
  );
}

/**
 * Filters a list must refuse, of those its filter's schema makes wrong: each kept only where the contract refuses it.
 */
function rejectedFilters(operation: Operation): { title: string; query?: string }[] {
  const served = servedFilterMember(operation);
  const candidates: { title: string; query?: string }[] = [];
  if (filterRequired(operation)) candidates.push({ title: 'no filter' });
  if (served !== undefined) {
    const [first] = served.values;
    const name = `${FILTER_PARAMETER}[${served.name}]`;
    candidates.push(
      { title: `an empty ${name}`, query: filterQuery(operation, '') },
      { title: `an unknown ${name} value`, query: filterQuery(operation, unknownValue(served.values)) },
      ...(first.toUpperCase() === first
        ? []
        : [{ title: `an allowed ${name} value in upper case`, query: filterQuery(operation, first.toUpperCase()) }]),
      { title: `${FILTER_PARAMETER} as a plain value instead of an object`, query: `${FILTER_PARAMETER}=${first}` },
      {
        title: `${FILTER_PARAMETER} with another member instead of ${served.name}`,
        query: `${FILTER_PARAMETER}[${otherMember(operation)}]=${first}`,
      },
    );
  }
  return candidates.filter((c) => refusalOf(operation, { query: c.query }) !== undefined);
}

/** A value a filter member is sent: what stands for it in a title, and the value from the target's records. */
interface MemberValue {
  title: string;
  value(records: RecordIds): string;
  /** False for an id of a record no target holds: the answer may then refuse it. */
  held: boolean;
}

/**
 * The values the contract draws for a filter member: its allowed values; where it names a record
 * (`x-record`), the target's record and an id no target holds; else the value its schema shows.
 */
function memberValues(member: FilterMember): MemberValue[] {
  const kind = member.schema['x-record'];
  if (typeof kind === 'string') {
    return [
      { title: `<${kind}>`, value: (records) => records[kind] ?? PLACEHOLDER_FIXTURES[kind] ?? '', held: true },
      {
        title: `<a ${recordKindLabel(kind)} no record has>`,
        value: () => PLACEHOLDER_FIXTURES[kind] ?? '',
        held: false,
      },
    ];
  }
  if (member.values.length > 0) return member.values.map((value) => ({ title: value, value: () => value, held: true }));
  return [
    { title: memberValue(member.schema, {}), value: (records) => memberValue(member.schema, records), held: true },
  ];
}

/** The statuses an answer to a filter naming a record no target holds may have: served, or a refusal the list lists. */
function unheldStatuses(operation: Operation): number[] {
  return [200, ...operation.statuses.filter((status) => status === 400 || status === 404)];
}

const LIST_DOCUMENT_ANSWER = '200 with a list document';

/** What a case sending an id no target holds expects, in its title. */
function unheldAnswer(operation: Operation): string {
  return `${unheldStatuses(operation).join(' or ')}, a list document when served`;
}

/** How every member sent at its first value stands in a title: `filter[a]=x, filter[b]=<kind>`. */
function together(members: FilterMember[]): string {
  return members.map((m) => `filter[${m.name}]=${memberValues(m)[0].title}`).join(', ');
}

/**
 * Every filter member besides the values of the served one (docs/certification.md §4): each
 * member the base query does not send, alone at each of its values, and all of them together;
 * each member naming a record, also at an id no target holds. The list answers 200 with a list
 * document (items that contradict a member are its `filterMatch` requirement's to judge).
 */
function memberCasesOf(operation: Operation, first: string | undefined): SuiteCase[] {
  const success = roleId(operation, 'success')!;
  const served = servedFilterMember(operation);
  const members = filterMembers(operation).filter((m) => m.name !== served?.name);
  const optional = members.filter((m) => !m.required);
  const sendings: { title: string; members: (records: RecordIds) => Record<string, string>; held: boolean }[] = [
    ...members.flatMap((member) =>
      memberValues(member)
        .filter((v) => !member.required || !v.held)
        .map((v) => ({
          title: `filter[${member.name}]=${v.title}`,
          members: (records: RecordIds) => ({ [member.name]: v.value(records) }),
          held: v.held,
        })),
    ),
    ...(optional.length > 0 && members.length > 1
      ? [
          {
            title: `every filter member together (${together(members)})`,
            members: (records: RecordIds) =>
              Object.fromEntries(members.map((m) => [m.name, memberValues(m)[0].value(records)])),
            held: true,
          },
        ]
      : []),
  ];
  return sendings.map((sending): SuiteCase => ({
    title: `${operation.operationId}: ${sending.title} → ${sending.held ? LIST_DOCUMENT_ANSWER : unheldAnswer(operation)}`,
    requirements: [success],
    covers: listDocumentCovers(operation),
    async run(conformance) {
      const query = filterQuery(
        operation,
        first,
        conformance.target.fixtures,
        sending.members(conformance.target.fixtures),
      );
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query });
      conformance.expectStatus(answer, sending.held ? [200] : unheldStatuses(operation));
    },
  }));
}

/**
 * The include cases (section 4.1): each name the contract defines alone and all together, answered
 * 200 and their `included` judged against its schema; where the contract defines none (which
 * names exist is not shown), one name it does not define, refused or served with a valid document.
 */
function includeCasesOf(operation: Operation, first: string | undefined): SuiteCase[] {
  const responseShape = roleId(operation, 'responseShape');
  if (responseShape === undefined || !operation.parameters.some((p) => p.name === INCLUDE_PARAMETER)) return [];
  const names = includeNames(operation);
  const queryWith = (include: string, records: RecordIds) =>
    [filterQuery(operation, first, records), `${INCLUDE_PARAMETER}=${include}`].filter((part) => part !== '').join('&');
  if (names.length === 0) {
    return [
      {
        title:
          `${operation.operationId}: an include name the specification does not define → 400, or 200 with a valid ` +
          'document',
        requirements: [responseShape],
        covers: roleIds(operation, ['itemShape']),
        async run(conformance) {
          const answer = await conformance.send({
            operation,
            credentials: conformance.credentials.session,
            query: queryWith('owner', conformance.target.fixtures),
          });
          conformance.expectStatus(answer, [200, 400]);
        },
      },
    ];
  }
  const sets = [...names.map((name) => [name]), ...(names.length > 1 ? [names] : [])];
  return sets.map((set): SuiteCase => ({
    title: `${operation.operationId}: ${INCLUDE_PARAMETER}=${set.join(',')} → 200, included as the contract gives it`,
    requirements: [roleId(operation, 'success')!],
    covers: [...listDocumentCovers(operation), ...roleIds(operation, ['includedShape', 'includeHonoured'])],
    async run(conformance) {
      const answer = await conformance.send({
        operation,
        credentials: conformance.credentials.session,
        query: queryWith(set.join(','), conformance.target.fixtures),
      });
      conformance.expectStatus(answer, [200]);
    },
  }));
}

function filterCasesOf(operation: Operation): SuiteCase[] {
  const success = roleId(operation, 'success')!;
  const served = servedFilterMember(operation);
  const values: (string | undefined)[] = served === undefined ? [undefined] : filterValues(operation);
  const [first] = values;
  const named = (query: string) => (query === '' ? 'no filter' : query);
  return [
    ...rejectedFilters(operation).map((c): SuiteCase => ({
      title: `${operation.operationId}: ${c.title} → 400`,
      requirements: brokenRequirements(operation, { query: c.query }),
      covers: ['ERR-SOURCE-PARAMETER', 'ERR-ENVELOPE'],
      async run(conformance) {
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          query: c.query,
        });
        conformance.expectStatus(answer, [400]);
      },
    })),
    ...values.map((value): SuiteCase => ({
      title: `${operation.operationId}: ${named(filterQuery(operation, value, recordsInTitles(operation)))} → 200 with a list document`,
      requirements: [success],
      covers: listDocumentCovers(operation),
      async run(conformance) {
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          query: filterQuery(operation, value, conformance.target.fixtures) || undefined,
        });
        conformance.expectStatus(answer, [200]);
      },
    })),
    ...memberCasesOf(operation, first),
    ...includeCasesOf(operation, first),
  ];
}

export const filterCases: SuiteCase[] = listOperations.flatMap(filterCasesOf);
