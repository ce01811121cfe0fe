// The embedded target's settings but its address: the reference server's public test credentials
// and fixtures, from its defaults alone, so that reading them does not load the server.
import { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES } from '../server/defaults.ts';
import type { TargetSettings } from '../targets/target.ts';

export const EMBEDDED_SETTINGS: TargetSettings = { ...DEFAULT_CREDENTIALS, fixtures: { ...REFERENCE_FIXTURES } };
