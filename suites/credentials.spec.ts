// Credentials (section 5), for each of the three operations: the cases of cases/credentials.ts.
import { credentialCases } from './cases/credentials.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of credentialCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
