// The suite's Playwright fixtures: per worker, the target (from the configuration's suite options,
// which suites/process-settings.ts reads from the run's message, LAS_RUN) and one
// request context through the body guard; per test, a ConformanceCase that records findings and
// decides the case's outcome. Cases declare their requirements once, as annotations whose level and
// section come from the catalogue.
import { test as base, type TestDetailsAnnotation } from '@playwright/test';
import { loadContract, type Contract } from '../contract/index.ts';
import { mergeSettings, resolveTarget, type Target, type TargetSettings } from '../targets/target.ts';
import { settingsFromEnvironment } from '../targets/target-environment.ts';
import {
  LEVEL_ANNOTATION,
  REQUIREMENT_ANNOTATION,
  SECTION_ANNOTATION,
  outcomesDecidedByReporter,
  type FailLevel,
  type GenerationSettings,
} from '../run-protocol/index.ts';
import { ConformanceCase } from './case.ts';
import { caseTitle, type CaseDefinition } from './cases/suite-case.ts';
import { openTargetClient, type TargetClient } from './client.ts';
import { scrubber, targetSecrets, type Scrub } from '../run-protocol/secrets.ts';

export interface SuiteContext {
  contract: Contract;
  target: Target;
  failLevel: FailLevel;
  /** The requirements whose failures the gate accepts, each with why (gateAccepted). */
  accepted: ReadonlyMap<string, string>;
  scrub: Scrub;
  client: TargetClient;
  readOnly: boolean;
  /** --generate: inputs drawn from the contract per operation (suites/generated.spec.ts). */
  generate?: GenerationSettings;
}

/** What the configuration tells every worker (`use: { suiteOptions }`). */
export interface SuiteOptions {
  /** The target's settings; the worker resolves and checks them. */
  settings: TargetSettings;
  failLevel: FailLevel;
  /**
   * The requirements whose failures the gate accepts (an active waiver, a --baseline failure), each with why; absent:
   * none.
   */
  accepted?: Record<string, string>;
  /** --read-only: requests that could create records are not sent. */
  readOnly: boolean;
  /** --generate: the configuration runs suites/generated.spec.ts too. */
  generate?: GenerationSettings;
}

export const test = base.extend<
  { conformance: ConformanceCase },
  { suite: SuiteContext; suiteOptions: SuiteOptions | undefined; targetEnvironment: Record<string, string> }
>({
  suiteOptions: [undefined, { scope: 'worker', option: true }],
  // A project may name its own target (LAS_* variables over the configuration's settings), so one
  // Playwright run can hold several targets, one project each.
  targetEnvironment: [{}, { scope: 'worker', option: true }],
  suite: [
    async ({ playwright, suiteOptions, targetEnvironment }, use) => {
      if (!suiteOptions)
        throw new Error('the Playwright configuration gives no suiteOptions: run the suite with playwright.config.ts');
      const contract = loadContract();
      const target = resolveTarget(
        mergeSettings(suiteOptions.settings, settingsFromEnvironment(targetEnvironment)),
        contract.legacyHeader,
      );
      const scrub = scrubber(targetSecrets(target));
      const client = await openTargetClient(playwright.request, target, scrub);
      await use({
        contract,
        target,
        failLevel: suiteOptions.failLevel,
        accepted: new Map(Object.entries(suiteOptions.accepted ?? {})),
        scrub,
        client,
        readOnly: suiteOptions.readOnly,
        ...(suiteOptions.generate ? { generate: suiteOptions.generate } : {}),
      });
      await client.close();
    },
    { scope: 'worker' },
  ],
  conformance: async ({ suite }, use, testInfo) => {
    const requirements = testInfo.annotations
      .filter((a) => a.type === REQUIREMENT_ANNOTATION)
      .map((a) => String(a.description));
    const skip = (reason: string): never => testInfo.skip(true, reason) as never;
    const conformance = new ConformanceCase({
      ...suite,
      requirements,
      outcomeInWorker: !outcomesDecidedByReporter(testInfo.config.reporter),
      skip,
    });
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
      { type: LEVEL_ANNOTATION, description: requirement.level },
      { type: SECTION_ANNOTATION, description: requirement.section },
    ];
  });
}

/**
 * The title and details of a conformance case, for `test(...caseHeader(c), ({ conformance }) => c.run(conformance))`
 * in the spec file of its table, so reports point at that file.
 */
export function caseHeader(
  definition: CaseDefinition,
): [title: string, details: { annotation: TestDetailsAnnotation[] }] {
  return [caseTitle(definition), { annotation: caseAnnotations(definition) }];
}
