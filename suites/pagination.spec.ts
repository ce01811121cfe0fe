// Every list's pagination (sections 4.1, 8, 9): the cases of cases/pagination.ts.
import { paginationCases } from './cases/pagination.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of paginationCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
