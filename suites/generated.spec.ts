// Generated inputs (run --generate N [--seed S]): the cases of generation/cases.ts, one per
// operation. The configurations run this file only when the run asks for generation.
import { caseHeader, test } from './fixtures.ts';
import { generatedCases, runGeneratedCase } from './generation/cases.ts';

for (const c of generatedCases) test(...caseHeader(c), ({ conformance, suite }, testInfo) => runGeneratedCase(c, conformance, suite, testInfo));
