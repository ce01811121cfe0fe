// `npx playwright test` without a target: start the embedded reference server for the run and
// hand its address and credentials to the workers through the environment they inherit (the
// workers' cli/environment.ts reads it as they load the configuration).
import { loadContract } from '../contract/index.ts';
import { startEmbeddedTarget } from '../suites/embedded.ts';
import { mergeSettings, resolveTarget } from '../targets/target.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { suiteProcessSettings } from './environment.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (!suiteProcessSettings.layout.embedded) return undefined;
  const embedded = await startEmbeddedTarget();
  const target = resolveTarget(mergeSettings(suiteProcessSettings.settings, embedded.settings), loadContract().legacyHeader);
  Object.assign(process.env, targetEnvironment(target));
  return () => embedded.close();
}
