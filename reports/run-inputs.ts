// Which optional inputs a run's target had, for the record: a module of its own so that the
// configuration, which every Playwright process evaluates, can say it without loading the reporter.
import { loadContract, recordKinds } from '../contract/index.ts';
import type { TargetSettings } from '../targets/target.ts';
import type { RunContext } from './record.ts';

/** Which optional inputs the target had: never their values. */
export function inputsOf(settings: TargetSettings, defaultLegacyHeader: string): RunContext['inputs'] {
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
