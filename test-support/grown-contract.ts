// The shipped contract grown by the proof's addition (suites/new-operation.yaml: a create naming a
// record of a new kind, a list with two filter members and include names of its own, a list
// filtered on a record), as a Contract object of its own: the process-wide one is left alone. Tests
// of a check or fault bound to a role no shipped operation names judge it here.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Contract } from '../contract/contract.ts';
import { contractCopy, type ContractChange } from './contract-copy.ts';

let grown: Contract | undefined;

/** The proof's addition, as suites/new-operation.yaml writes it. */
export function proofAddition(): ContractChange {
  return parseYaml(readFileSync(new URL('../suites/new-operation.yaml', import.meta.url), 'utf8')) as ContractChange;
}

/** The shipped contract with the proof's addition, built once per process. */
export function grownContract(): Contract {
  if (grown === undefined) {
    const directory = contractCopy(proofAddition());
    try {
      grown = new Contract(
        readFileSync(join(directory, 'openapi.yaml'), 'utf8'),
        readFileSync(join(directory, 'requirements.yaml'), 'utf8'),
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return grown;
}
