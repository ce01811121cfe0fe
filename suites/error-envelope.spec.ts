// The error envelope (sections 4, 7), one error of each listed kind per operation: the cases of
// cases/error-envelope.ts.
import { errorEnvelopeCases } from './cases/error-envelope.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of errorEnvelopeCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
