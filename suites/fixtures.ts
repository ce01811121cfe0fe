// The suite's Playwright fixtures: per worker, the target (from the environment the run command
// or a person set) and one request context through the body guard; per test, a ConformanceCase
// that records findings and decides the verdict. Cases declare their requirements once, as
// annotations whose level and section come from the catalogue.
import { test as base, type TestDetailsAnnotation } from '@playwright/test';
import { loadContract, type Contract } from '../contract/index.ts';
import type { Target } from '../targets/target.ts';
import { ConformanceCase, REQUIREMENT_ANNOTATION, VERDICT_BY_REPORTER } from './case.ts';
import { openTargetClient, type TargetClient } from './client.ts';
import { caseTitle, type CaseDefinition } from './cases/suite-case.ts';
import { scrubber, targetSecrets, type Scrub } from './secrets.ts';
import { runDescriptionOf, suiteSettings, type FailLevel } from './settings.ts';

export interface SuiteContext {
  contract: Contract;
  target: Target;
  failLevel: FailLevel;
  scrub: Scrub;
  client: TargetClient;
  readOnly: boolean;
}

export const test = base.extend<{ conformance: ConformanceCase }, { suite: SuiteContext }>({
  suite: [
    async ({ playwright }, use) => {
      const { target, failLevel } = suiteSettings(process.env);
      const scrub = scrubber(targetSecrets(target));
      const client = await openTargetClient(playwright.request, target, scrub);
      await use({ contract: loadContract(), target, failLevel, scrub, client, readOnly: runDescriptionOf(process.env).readOnly });
      await client.close();
    },
    { scope: 'worker' },
  ],
  conformance: async ({ suite }, use, testInfo) => {
    const requirements = testInfo.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION).map((a) => String(a.description));
    const skip = (reason: string): never => testInfo.skip(true, reason) as never;
    const readOnly = suite.readOnly ? { skip } : undefined;
    const conformance = new ConformanceCase({ ...suite, requirements, verdictInWorker: process.env[VERDICT_BY_REPORTER] !== '1', readOnly, skip });
    await use(conformance);
    conformance.finish(testInfo);
  },
});

/** One annotation triple per requirement: id, level and section, read from the catalogue. */
export function caseAnnotations(definition: CaseDefinition): TestDetailsAnnotation[] {
  const contract = loadContract();
  const ids = [...new Set([...definition.requirements, ...(definition.covers ?? [])])];
  return ids.flatMap((id) => {
    const requirement = contract.requirement(id);
    return [
      { type: REQUIREMENT_ANNOTATION, description: id },
      { type: 'level', description: requirement.level },
      { type: 'section', description: requirement.section },
    ];
  });
}

/**
 * The title and details of a conformance case, for `test(...caseHeader(c), ({ conformance }) => c.run(conformance))`:
 * the test is declared in the spec file of its concern, so reports point at that file.
 */
export function caseHeader(definition: CaseDefinition): [title: string, details: { annotation: TestDetailsAnnotation[] }] {
  return [caseTitle(definition), { annotation: caseAnnotations(definition) }];
}
