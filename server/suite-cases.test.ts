// The suite's own cases (suites/cases/), run in-process against the unfaulted reference server:
// every case holds at --level should, so nothing the contract or the case checks is found at MUST
// or SHOULD, and none is skipped (the reference server has a forbidden credential and every
// fixture). That each fault is caught is the suite's proof (suites/fault-proof.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseTitle, SUITE_CASES } from '../suites/cases/index.ts';
import type { Target } from '../targets/target.ts';
import { startReferenceServer, type StartedReferenceServer } from './index.ts';
import { directClient, referenceTarget, runSuiteCase } from './test-support.ts';

describe("the suite's cases against the reference server without faults", () => {
  let server: StartedReferenceServer;
  let target: Target;
  beforeAll(async () => {
    server = await startReferenceServer();
    target = referenceTarget(server.baseUrl);
  });
  afterAll(() => server.close());

  for (const suiteCase of SUITE_CASES) {
    it(caseTitle(suiteCase), async () => {
      expect(await runSuiteCase(suiteCase, target, directClient(server.baseUrl))).toEqual([]);
    });
  }
});
