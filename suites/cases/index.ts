// Every case of the suite, by concern; each spec file declares one table as Playwright tests.
import { creationCases } from './creation.ts';
import { credentialCases } from './credentials.ts';
import { errorEnvelopeCases } from './error-envelope.ts';
import { filterCases } from './filter.ts';
import { paginationCases } from './pagination.ts';
import { requestDocumentCases } from './request-documents.ts';
import type { SuiteCase } from './suite-case.ts';
import { typeMismatchCases } from './type-mismatch.ts';

export { caseTitle, type CaseDefinition, type SuiteCase } from './suite-case.ts';

/** Each spec file's table of cases, by the spec file's name. */
export const CASE_TABLES: Readonly<Record<string, SuiteCase[]>> = {
  creation: creationCases,
  credentials: credentialCases,
  'error-envelope': errorEnvelopeCases,
  filter: filterCases,
  pagination: paginationCases,
  'request-documents': requestDocumentCases,
  'type-mismatch': typeMismatchCases,
};

export const SUITE_CASES: SuiteCase[] = Object.values(CASE_TABLES).flat();
