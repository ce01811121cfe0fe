// A case of the suite as data: what it declares (title, requirements, what it covers) and what it
// does with a ConformanceCase. The spec files declare each as a Playwright test; the reference
// server's tests run the same cases in-process (server/suite-cases.test.ts).
import type { ConformanceCase } from '../case.ts';

export interface CaseDefinition {
  /** What the case sends and expects, e.g. `listNotificationGroups without credentials → 401`. */
  title: string;
  /** The requirements the case's own expectations answer to; the first leads its title. */
  requirements: string[];
  /** Further requirements the contract checks on its exchanges, which this case is meant to exercise. */
  covers?: string[];
}

export interface SuiteCase extends CaseDefinition {
  run(conformance: ConformanceCase): Promise<void>;
}

/** The test title: requirement ids first, so `--grep AUTH-401` selects by requirement. */
export function caseTitle(definition: CaseDefinition): string {
  return `${definition.requirements.join(' ')} · ${definition.title}`;
}
