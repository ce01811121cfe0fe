// `npx playwright test` without a target: start the embedded reference server for the run and
// tell the workers its address and credentials in the run's message (LAS_RUN), in the environment
// they inherit.
import { loadContract } from '../contract/index.ts';
import { mergeSettings, resolveTarget } from '../targets/target.ts';
import { startEmbeddedTarget } from './embedded.ts';
import { suiteProcessSettings } from './process-settings.ts';
import { RUN_ENVIRONMENT, runMessageFor, runMessageText } from './settings.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (!suiteProcessSettings.layout.embedded) return undefined;
  const embedded = await startEmbeddedTarget();
  const settings = mergeSettings(suiteProcessSettings.settings, embedded.settings);
  const target = resolveTarget(settings, loadContract().legacyHeader);
  process.env[RUN_ENVIRONMENT.run] = runMessageText(runMessageFor(suiteProcessSettings.described, target));
  return () => embedded.close();
}
