// The embedded target: the reference server started in this process on 127.0.0.1, port 0, with
// its public test credentials and fixtures, and any faults and choices named. The run command
// uses it when no target is given, and so does `npx playwright test` through its global setup
// (cli/suite-global-setup.ts).
import { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer } from '../server/index.ts';
import type { TargetSettings } from '../targets/target.ts';

export interface EmbeddedTarget {
  settings: TargetSettings;
  close(): Promise<void>;
}

/** The embedded target's settings but its address: public test credentials and fixtures. */
export const EMBEDDED_SETTINGS: TargetSettings = { ...DEFAULT_CREDENTIALS, fixtures: { ...REFERENCE_FIXTURES } };

export async function startEmbeddedTarget(faults: string[] = [], choices: string[] = []): Promise<EmbeddedTarget> {
  const server = await startReferenceServer({ host: '127.0.0.1', port: 0, faults, choices });
  return {
    settings: { baseUrl: server.baseUrl, ...EMBEDDED_SETTINGS },
    close: () => server.close(),
  };
}
