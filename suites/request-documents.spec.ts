// Request documents the create operations must refuse (sections 4, 4.2, 4.3): the cases of
// cases/request-documents.ts.
import { requestDocumentCases } from './cases/request-documents.ts';
import { caseHeader, test } from './fixtures.ts';

for (const c of requestDocumentCases) test(...caseHeader(c), ({ conformance }) => c.run(conformance));
