// The embedded target: the reference server started in this process on 127.0.0.1, port 0, with
// its public test credentials and fixtures, and any faults and choices named. The run command
// uses it when no target is given, and so does `npx playwright test` through its global setup
// (suites/global-setup.ts).
import { startReferenceServer } from '../server/index.ts';
import type { TargetSettings } from '../targets/target.ts';
import { EMBEDDED_SETTINGS } from './embedded-settings.ts';

export { EMBEDDED_SETTINGS };

export interface EmbeddedTarget {
  settings: TargetSettings;
  close(): Promise<void>;
}

export async function startEmbeddedTarget(faults: string[] = [], choices: string[] = []): Promise<EmbeddedTarget> {
  const server = await startReferenceServer({ host: '127.0.0.1', port: 0, faults, choices });
  return {
    settings: { baseUrl: server.baseUrl, ...EMBEDDED_SETTINGS },
    close: () => server.close(),
  };
}
