// Every list's filter (section 4.1): the cases of cases/filter.ts.
import { filterCases } from './cases/filter.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of filterCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
