// `npx playwright test` without a target: start the embedded reference server for the run and
// hand its address and credentials to the workers through the environment they inherit.
import { loadContract } from '../contract/index.ts';
import { mergeSettings, resolveTarget, settingsFromEnvironment, targetEnvironment, TARGET_ENVIRONMENT } from '../targets/target.ts';
import { startEmbeddedTarget } from './embedded.ts';
import { DEFAULT_RUN, RUN_ENVIRONMENT, runDescriptionOf } from './settings.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env[TARGET_ENVIRONMENT.baseUrl]) return undefined;
  const embedded = await startEmbeddedTarget();
  const target = resolveTarget(mergeSettings(settingsFromEnvironment(process.env), embedded.settings), loadContract().legacyHeader);
  Object.assign(process.env, targetEnvironment(target));
  // The record says the target was the kit's own server.
  process.env[RUN_ENVIRONMENT.run] = JSON.stringify({ ...DEFAULT_RUN, ...runDescriptionOf(process.env), embedded: { faults: [], choices: [] } });
  return () => embedded.close();
}
