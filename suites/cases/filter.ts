// List NotificationGroups, the required filter (section 4.1; docs/certification.md §4): each allowed value is
// served with a valid list document; a missing, empty, unknown or wrongly shaped filter is
// answered 400 with an error document that names the parameter (SHOULD).
import { brokenRequirements, filterValues, listOperation as operation } from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

const [first] = filterValues();

const LIST_DOCUMENT = ['NG-RESPONSE-SHAPE', 'NG-ITEM-SHAPE', 'NG-META-INTEGERS', 'RES-INTEGER-FORM', 'RES-ID-STRING', 'RES-ID-OBJECTID', 'MEDIA-TYPE-RESPONSE'];

const rejectedFilters: { title: string; query?: string }[] = [
  { title: 'no filter' },
  { title: 'an empty filter[type]', query: 'filter[type]=' },
  { title: 'an unknown filter[type] value', query: 'filter[type]=everyone' },
  { title: 'an allowed filter[type] value in upper case', query: `filter[type]=${first.toUpperCase()}` },
  { title: 'filter as a plain value instead of an object', query: `filter=${first}` },
  { title: 'filter with another member instead of type', query: `filter[kind]=${first}` },
];

export const filterCases: SuiteCase[] = [
  ...rejectedFilters.map((c): SuiteCase => ({
    title: `${c.title} → 400`,
    requirements: brokenRequirements(operation, { query: c.query }),
    covers: ['ERR-SOURCE-PARAMETER', 'ERR-ENVELOPE'],
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: c.query });
      conformance.expectStatus(answer, [400]);
    },
  })),
  ...filterValues().map((value): SuiteCase => ({
    title: `filter[type]=${value} → 200 with a list document`,
    requirements: ['NG-FILTER-ACCEPTED'],
    covers: LIST_DOCUMENT,
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: `filter[type]=${value}` });
      conformance.expectStatus(answer, [200]);
    },
  })),
  // Which include names exist is not shown (docs/certification.md §4): refusing one is fine, serving it means a valid document.
  {
    title: 'an include name the specification does not define → 400, or 200 with a valid document',
    requirements: ['NG-RESPONSE-SHAPE'],
    covers: ['NG-ITEM-SHAPE'],
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: `filter[type]=${first}&include=owner` });
      conformance.expectStatus(answer, [200, 400]);
    },
  },
];
