// Type mismatch (sections 2.1, 2.3, 2.4, 4.2, 4.3), generated from the schemas: the cases of
// cases/type-mismatch.ts.
import { typeMismatchCases } from './cases/type-mismatch.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of typeMismatchCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
