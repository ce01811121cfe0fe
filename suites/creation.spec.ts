// Creation (sections 2.3, 2.4, 4.2, 4.3): the cases of cases/creation.ts.
import { creationCases } from './cases/creation.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of creationCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
