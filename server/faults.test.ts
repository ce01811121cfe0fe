// The fault catalogue as data (names, the MUST each cites, triggers), and each fault marked
// detectable in one exchange showing in its trigger alone, judged by the contract. That the suite
// catches every fault is proven by suites/fault-proof.test.ts.
import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { DEFAULT_CREDENTIALS, expandTrigger, FAULTS, startReferenceServer, UnknownFaultError, createReferenceServer, type FaultDefinition } from './index.ts';
import { judgeExchange, send } from './test-support.ts';

async function withServer<T>(faults: string[], use: (baseUrl: string) => Promise<T>): Promise<T> {
  const server = await startReferenceServer({ faults });
  try {
    return await use(server.baseUrl);
  } finally {
    await server.close();
  }
}

async function triggerFindings(fault: FaultDefinition, faults: string[]): Promise<string[]> {
  const trigger = expandTrigger(fault.trigger!, DEFAULT_CREDENTIALS);
  const exchanged = await withServer(faults, (baseUrl) => send(baseUrl, { ...trigger, body: trigger.body === '' ? undefined : trigger.body }));
  return judgeExchange(exchanged).filter((f) => f.level === 'MUST').map((f) => f.requirement);
}

describe('the fault catalogue', () => {
  const contract = loadContract();

  it('has at least 25 faults with unique kebab-case names', () => {
    const names = FAULTS.map((f) => f.name);
    expect(names.length).toBeGreaterThanOrEqual(25);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  for (const fault of FAULTS) {
    it(`${fault.name} cites a MUST requirement of the catalogue and has a trigger exactly when it is detectable in one exchange`, () => {
      expect(contract.requirement(fault.requirement).level).toBe('MUST');
      expect(fault.trigger !== undefined).toBe(fault.detectableInOneExchange);
    });
  }

  it('refuses an unknown fault, naming the valid ones', () => {
    expect(() => createReferenceServer({ faults: ['no-such-fault'] })).toThrow(UnknownFaultError);
    expect(() => createReferenceServer({ faults: ['no-such-fault'] })).toThrow(/valid faults: session-token-rejected, /);
  });
});

describe('faults detectable in one exchange show in their trigger alone', () => {
  for (const fault of FAULTS.filter((f) => f.detectableInOneExchange)) {
    it(`${fault.name}: ${fault.trigger!.method} ${fault.trigger!.path} is judged ${fault.requirement}, and holds without the fault`, async () => {
      expect(await triggerFindings(fault, [fault.name])).toContain(fault.requirement);
      expect(await triggerFindings(fault, [])).toEqual([]);
    });
  }
});
