// The fault catalogue as data (names, the MUST each cites, triggers), and each fault marked
// detectable in one exchange showing in its trigger alone, judged by the contract. That the suite
// catches every fault is proven by suites/fault-proof.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  Contract,
  isListOperation,
  listOperations,
  loadContract,
  SCHEMA_DIR,
  type Operation,
  type OperationRole,
} from '../contract/index.ts';
import {
  choicesBoundTo,
  DEFAULT_CREDENTIALS,
  expandTrigger,
  FAULTS,
  faultsBoundTo,
  INAPPLICABLE_FAULTS,
  startReferenceServer,
  UnknownFaultError,
  createReferenceServer,
  type FaultDefinition,
} from './index.ts';
import { grownContract } from '../test-support/grown-contract.ts';
import { serverFindings, send } from './test-support.ts';
import { itWith, list } from '../contract/test-support.ts';

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
  const exchanged = await withServer(faults, (baseUrl) =>
    send(baseUrl, { ...trigger, body: trigger.body === '' ? undefined : trigger.body }),
  );
  return serverFindings(exchanged)
    .filter((f) => f.level === 'MUST')
    .map((f) => f.requirement);
}

/** A schema member the test below changes. */
interface MemberChanged {
  enum?: unknown[];
  type?: string;
}
/** The members of openapi.yaml the test below changes. */
interface OpenApiChanged {
  components: { schemas: Record<string, { properties?: Record<string, MemberChanged> }> };
  paths: Record<
    string,
    { get?: { parameters?: { name: string; schema: { properties?: Record<string, MemberChanged> } }[] } }
  >;
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
    expect(() => createReferenceServer({ faults: ['no-such-fault'] })).toThrow(
      /valid faults: session-token-rejected, /,
    );
  });
});

/** The shipped contract without the path item of `path`. */
function contractWithout(...paths: string[]): Contract {
  const openapi = parseYaml(readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8')) as { paths: Record<string, unknown> };
  for (const path of paths) delete openapi.paths[path];
  return new Contract(stringifyYaml(openapi), readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8'));
}

describe('faults and choices bound to roles', () => {
  it("binds every fault to the contract shipped, but those bound to a role only a later contract names, which bind to the proof's grown contract", () => {
    const grown = faultsBoundTo(grownContract());
    // A fault written for an operation the specification no longer has stays in the catalogue and applies to neither.
    const writtenForGone = (name: string) =>
      /^the contract has (no operation |none of |no list$|no create operation$)/.test(
        INAPPLICABLE_FAULTS.get(name) ?? '',
      );
    expect([...INAPPLICABLE_FAULTS].filter(([name]) => grown.inapplicable.has(name) && !writtenForGone(name))).toEqual(
      [],
    );
    // Bound to a role no operation of the shipped contract in its scope names (a role only a later contract names,
    // or the kind of operation it applies to gone from the contract), it applies to the grown contract alone.
    const inScope = (fault: FaultDefinition, operation: Operation) =>
      fault.appliesTo === 'lists'
        ? isListOperation(operation)
        : fault.appliesTo === 'creations'
          ? operation.requestBody !== undefined
          : true;
    const roleOnlyLater = (name: string) =>
      grown.faults.some(
        (f) =>
          f.name === name &&
          f.role !== undefined &&
          !loadContract().operations.some((o) => inScope(f, o) && o.roles[f.role!] !== undefined),
      );
    expect([...INAPPLICABLE_FAULTS.keys()].filter((name) => !roleOnlyLater(name) && !writtenForGone(name))).toEqual([]);
  });

  it('breaks, for a fault bound to a role, the requirement each operation names for it', () => {
    const contract = loadContract();
    const named = (role: OperationRole) => contract.operations.flatMap((operation) => operation.roles[role] ?? []);
    const byRole = FAULTS.filter((f) => f.role !== undefined);
    expect(byRole.length).toBeGreaterThan(0);
    for (const fault of byRole) {
      expect(fault.requirement, fault.name).toBe(fault.requirements[0]);
      expect(fault.requirements.length, fault.name).toBeGreaterThan(0);
      // Narrowed to some operations, it breaks what those name; otherwise what every operation names.
      const narrowed = fault.appliesTo !== undefined || fault.having !== undefined || fault.operation !== undefined;
      if (narrowed) expect(named(fault.role!), fault.name).toEqual(expect.arrayContaining(fault.requirements));
      else expect(fault.requirements, fault.name).toEqual(named(fault.role!));
    }
  });

  for (const operation of loadContract().operations) {
    it(`leaves out, once ${operation.operationId} is removed, the faults written for it, each with why, and keeps the rest`, () => {
      const left = contractWithout(operation.pathTemplate);
      const after = faultsBoundTo(left);
      const leftNames = (role: OperationRole) => left.operations.some((o) => o.roles[role] !== undefined);
      const expectedGone = FAULTS.filter((f) =>
        f.operation !== undefined
          ? f.operation === operation.operationId
          : f.role !== undefined
            ? !leftNames(f.role)
            : !left.requirements.some((r) => r.id === f.requirement),
      );
      for (const fault of expectedGone) {
        const reason = after.inapplicable.get(fault.name);
        if (fault.operation !== undefined)
          expect(reason, fault.name).toBe(`the contract has no operation ${operation.operationId}`);
        else if (fault.role !== undefined)
          expect(reason, fault.name).toMatch(`of the contract names a requirement for the role ${fault.role} (`);
        else expect(reason, fault.name).toBeDefined();
      }
      const kept = FAULTS.filter((f) => !expectedGone.includes(f) && f.operation !== undefined);
      expect(kept.map((f) => f.name).filter((name) => after.inapplicable.has(name))).toEqual([]);
      expect(after.faults.length).toBeGreaterThan(0);
    });
  }

  it('leaves out, once every list is removed, the faults and choices of lists, each with why, and keeps the rest', () => {
    // Every list of the contract removed, however many it holds.
    const withoutList = contractWithout(...listOperations(loadContract()).map((operation) => operation.pathTemplate));
    const listless = faultsBoundTo(withoutList);
    expect(listless.inapplicable.get('meta-pages-rounded-down')).toBe(
      'no operation of the contract names a requirement for the role metaPages (x-requirements)',
    );
    expect(listless.inapplicable.get('included-not-an-array')).toBe(
      'no list of the contract names a requirement for the role responseShape (x-requirements)',
    );
    // A fault of no operation keeps applying; its trigger on a list is gone with the list.
    expect(listless.faults.find((f) => f.name === 'error-status-number')).toMatchObject({
      requirement: 'ERR-STATUS-STRING',
      detectableInOneExchange: false,
      trigger: undefined,
    });
    expect(choicesBoundTo(withoutList).inapplicable.get('page-size-capped-at-20')).toBe('the contract has no list');
  });

  itWith(list, 'list')(
    'applies a fault or choice that changes a kind of item attribute or filter value only where a list has one, refusing it in one line where none has',
    () => {
      const openapi = parseYaml(readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8')) as OpenApiChanged;
      // Every member of every component without allowed values and no boolean among them; every
      // filter member of every list with one allowed value at most.
      for (const schema of Object.values(openapi.components.schemas)) {
        for (const member of Object.values(schema.properties ?? {})) {
          delete member.enum;
          if (member.type === 'boolean') member.type = 'string';
        }
      }
      for (const item of Object.values(openapi.paths)) {
        const filter = (item.get?.parameters ?? []).find((p) => p.name === 'filter');
        for (const member of Object.values(filter?.schema.properties ?? {}))
          if (Array.isArray(member.enum)) member.enum = member.enum.slice(0, 1);
      }
      const plain = new Contract(stringifyYaml(openapi), readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8'));
      const faults = faultsBoundTo(plain);
      expect(faults.inapplicable.get('item-value-outside-enum')).toBe(
        'no list of the contract has an item attribute with allowed values (enum)',
      );
      expect(faults.inapplicable.get('item-boolean-as-string')).toBe(
        'no list of the contract has a boolean item attribute',
      );
      expect(faults.inapplicable.get('last-filter-value-rejected')).toBe(
        'no list of the contract has a filter member with two allowed values or more',
      );
      expect(choicesBoundTo(plain).inapplicable.get('last-filter-value-matches-nothing')).toBe(
        'no list of the contract has a filter member with two allowed values or more',
      );
      expect(faults.faults.map((f) => f.name)).toContain('meta-pages-rounded-down');
    },
  );
});

describe('faults detectable in one exchange show in their trigger alone', () => {
  for (const fault of FAULTS.filter((f) => f.detectableInOneExchange)) {
    it(`${fault.name}: ${fault.trigger!.method} ${fault.trigger!.path} is judged ${fault.requirement}, and holds without the fault`, async () => {
      expect(await triggerFindings(fault, [fault.name])).toContain(fault.requirement);
      expect(await triggerFindings(fault, [])).toEqual([]);
    });
  }
});
