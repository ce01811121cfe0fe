// docs/certification.md §2 to §5 against the unfaulted reference server: every case holds and the
// contract finds nothing at MUST or SHOULD in any exchange.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from './index.ts';
import { ProbeRun, profileCases, runCase, runWalks } from './profile-rules.ts';

const SESSION_AUTH = { Authorization: 'Bearer r:{sessionToken}' };

describe('reference server without faults (docs/certification.md §2 to §5)', () => {
  let server: StartedReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());
  const probeRun = () => new ProbeRun(server.baseUrl, DEFAULT_CREDENTIALS, SESSION_AUTH);

  for (const testCase of profileCases()) {
    it(`${testCase.requirement}: ${testCase.title}`, async () => {
      const probing = probeRun();
      await runCase(probing, testCase);
      expect(probing.findings).toEqual([]);
    });
  }

  it('NG-PAGE-WALK and NG-META-TOTAL: walking every page yields each item once, with one total', async () => {
    const probing = probeRun();
    await runWalks(probing);
    expect(probing.findings).toEqual([]);
  });
});
