import { describe, expect, it } from 'vitest';
import { CASE_OUTCOME, failedReporterOf, reportersLeftOut, SECRET_SCRUBBER } from './result-changing-reporters.ts';

describe('reportersLeftOut', () => {
  const scrubber = [SECRET_SCRUBBER.file] as [string];
  const outcome = [CASE_OUTCOME.file] as [string];
  const cases = [
    { name: 'both first, in order', listed: [scrubber, outcome, ['html'], ['junit']], leftOut: [] },
    { name: 'both, with no reader', listed: [scrubber, outcome], leftOut: [] },
    { name: 'the scrubber missing', listed: [outcome, ['html']], leftOut: [SECRET_SCRUBBER] },
    {
      name: 'the case-outcome reporter after a rendering',
      listed: [scrubber, ['html'], outcome],
      leftOut: [CASE_OUTCOME],
    },
    {
      name: 'a person replaced them all (--reporter=list)',
      listed: [['list']],
      leftOut: [SECRET_SCRUBBER, CASE_OUTCOME],
    },
  ];
  for (const c of cases) it(c.name, () => expect(reportersLeftOut(c.listed as [string][])).toEqual(c.leftOut));
});

describe('failedReporterOf', () => {
  it('knows a result-changing reporter by the name its error starts with, with or without "Error: "', () => {
    expect(failedReporterOf(`${CASE_OUTCOME.name} failed: boom`)).toBe(CASE_OUTCOME);
    expect(failedReporterOf(`Error: ${SECRET_SCRUBBER.name} failed: boom`)).toBe(SECRET_SCRUBBER);
  });

  it('an error that only mentions one is not its failure', () => {
    expect(failedReporterOf(`a case file failed to load near ${CASE_OUTCOME.name}`)).toBeUndefined();
  });
});
