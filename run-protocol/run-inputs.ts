// Which optional inputs a run's target had, for the record: in the protocol because the
// configuration, which every Playwright process evaluates, says it to the conformance reporter,
// and reaching it must not load the reporter.
import { loadContract, recordKinds } from '../contract/index.ts';
import type { TargetSettings } from '../targets/target.ts';

/** Which optional inputs the run had: never their values. */
export interface InputsGiven {
  forbiddenToken: boolean;
  /** Each kind of record the contract names (`x-record`): whether the run was given an id of one. */
  records: Record<string, boolean>;
  legacyHeader: boolean;
  ca: boolean;
  /** Names of the extra request headers (--header); their values are never recorded. */
  headers: string[];
}

/** Which optional inputs the target had: never their values. */
export function inputsOf(settings: TargetSettings, defaultLegacyHeader: string): InputsGiven {
  return {
    forbiddenToken: settings.forbiddenToken !== undefined,
    records: Object.fromEntries(
      recordKinds(loadContract().operations).map((kind) => [kind, settings.fixtures?.[kind] !== undefined]),
    ),
    legacyHeader:
      settings.legacyHeader !== undefined && settings.legacyHeader.toLowerCase() !== defaultLegacyHeader.toLowerCase(),
    ca: settings.caFile !== undefined,
    headers: Object.keys(settings.headers ?? {}),
  };
}
