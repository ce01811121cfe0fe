// Generated inputs (on by default; run --generate N [--seed S], --generate 0 for none): the cases of
// generation/cases.ts, one per operation. The configurations leave this file out when generation is off.
import { caseHeader, test } from './fixtures.ts';
import { generatedCases, runGeneratedCase } from './generation/cases.ts';

for (const c of generatedCases)
  test(...caseHeader(c), ({ conformance, suite }, testInfo) => runGeneratedCase(c, conformance, suite, testInfo));
