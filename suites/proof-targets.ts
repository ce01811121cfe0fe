// The targets of one proof run: Playwright projects, each the conformance suite against its own
// target. The proof passes them to its Playwright configuration through the environment, the way
// the run command passes one target (tokens never reach a command line); the variable may name a
// file holding them.
import { readFileSync } from 'node:fs';

/**
 * The variable that names a proof run's targets: JSON, `[{ "name": ..., "environment": { LAS_*: ... } }]`,
 * or the path of a file holding it (title lists of many narrowed targets outgrow what one
 * environment variable may hold).
 */
export const PROOF_TARGETS = 'LAS_PROOF_TARGETS';

export interface ProofTarget {
  /** The project's name, and the folder of its record under the report directory. */
  name: string;
  /** The target's LAS_* variables (targetEnvironment), over the process's. */
  environment: Record<string, string>;
  /** Only the cases with these titles run; absent: every case. */
  titles?: string[];
}

export function proofTargetsOf(env: Record<string, string | undefined>): ProofTarget[] {
  const value = env[PROOF_TARGETS];
  if (!value) throw new Error(`${PROOF_TARGETS} names no target`);
  const text = value.trimStart().startsWith('[') ? value : readFileSync(value, 'utf8');
  return JSON.parse(text) as ProofTarget[];
}
