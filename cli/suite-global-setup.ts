// `npx playwright test` without a target: start the embedded reference server for the run and
// hand its address to the workers in the run's description (LAS_RUN) and its credentials in their
// variables, the environment they inherit.
import { loadContract } from '../contract/index.ts';
import { startEmbeddedTarget } from '../suites/embedded.ts';
import { mergeSettings, resolveTarget } from '../targets/target.ts';
import { RUN_ENVIRONMENT } from '../suites/settings.ts';
import { describedTarget, targetEnvironment } from '../targets/target-environment.ts';
import { suiteProcessSettings } from './environment.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (!suiteProcessSettings.layout.embedded) return undefined;
  const embedded = await startEmbeddedTarget();
  const settings = mergeSettings(suiteProcessSettings.settings, embedded.settings);
  const target = resolveTarget(settings, loadContract().legacyHeader);
  const described = { ...suiteProcessSettings.described, target: describedTarget(target) };
  Object.assign(process.env, targetEnvironment(target), { [RUN_ENVIRONMENT.run]: JSON.stringify(described) });
  return () => embedded.close();
}
