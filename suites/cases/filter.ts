// Each list's filter (section 4.1; docs/certification.md §4), read from its own parameters: each
// allowed value of the filter's served member is answered 200 with a valid list document; a
// missing, empty, unknown or wrongly shaped filter that the contract refuses is answered 400
// with an error document that names the parameter (SHOULD).
import { FILTER_PARAMETER, filterMembers, filterRequired, INCLUDE_PARAMETER, servedFilterMember, type Operation, type OperationRole } from '../../contract/index.ts';
import { brokenRequirements, filterQuery, filterValues, listOperations, recordsInTitles, refusalOf, roleId, roleIds, unknownValue } from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

/** What every list answer is checked for besides its status: the document, its items, its meta. */
const LIST_DOCUMENT_ROLES: OperationRole[] = ['responseShape', 'itemShape', 'metaIntegers'];
const LIST_DOCUMENT = ['RES-INTEGER-FORM', 'RES-ID-STRING', 'RES-ID-OBJECTID', 'MEDIA-TYPE-RESPONSE'];

/** The requirements a served list answer is checked for, for one list. */
export function listDocumentCovers(operation: Operation): string[] {
  return [...roleIds(operation, LIST_DOCUMENT_ROLES), ...LIST_DOCUMENT];
}

/** A member name the filter does not have. */
function otherMember(operation: Operation): string {
  return unknownValue(filterMembers(operation).map((m) => m.name), 'kind');
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
      ...(first.toUpperCase() === first ? [] : [{ title: `an allowed ${name} value in upper case`, query: filterQuery(operation, first.toUpperCase()) }]),
      { title: `${FILTER_PARAMETER} as a plain value instead of an object`, query: `${FILTER_PARAMETER}=${first}` },
      { title: `${FILTER_PARAMETER} with another member instead of ${served.name}`, query: `${FILTER_PARAMETER}[${otherMember(operation)}]=${first}` },
    );
  }
  return candidates.filter((c) => refusalOf(operation, { query: c.query }) !== undefined);
}

function filterCasesOf(operation: Operation): SuiteCase[] {
  const success = roleId(operation, 'success')!;
  const responseShape = roleId(operation, 'responseShape');
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
        const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: c.query });
        conformance.expectStatus(answer, [400]);
      },
    })),
    ...values.map((value): SuiteCase => ({
      title: `${operation.operationId}: ${named(filterQuery(operation, value, recordsInTitles(operation)))} → 200 with a list document`,
      requirements: [success],
      covers: listDocumentCovers(operation),
      async run(conformance) {
        const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: filterQuery(operation, value, conformance.target.fixtures) || undefined });
        conformance.expectStatus(answer, [200]);
      },
    })),
    // Which include names exist is not shown (docs/certification.md §4): refusing one is fine, serving it means a valid
    // document.
    ...(responseShape === undefined || !operation.parameters.some((p) => p.name === INCLUDE_PARAMETER)
      ? []
      : [
          {
            title: `${operation.operationId}: an include name the specification does not define → 400, or 200 with a valid document`,
            requirements: [responseShape],
            covers: roleIds(operation, ['itemShape']),
            async run(conformance) {
              const query = [filterQuery(operation, first, conformance.target.fixtures), `${INCLUDE_PARAMETER}=owner`].filter((part) => part !== '').join('&');
              const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query });
              conformance.expectStatus(answer, [200, 400]);
            },
          } satisfies SuiteCase,
        ]),
  ];
}

export const filterCases: SuiteCase[] = listOperations.flatMap(filterCasesOf);
