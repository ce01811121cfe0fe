// What generated inputs are asked for and what generation leaves for the record.

/** What the record says when `run --generate 0` turned generation off. */
export const GENERATION_OFF =
  'turned off (run --generate 0): no input was drawn from the contract, only the fixed cases ran';

/** What `run --generate N --seed S` asks for: N inputs per operation, drawn from seed S, within time budgets. */
export interface GenerationSettings {
  /** Inputs per operation (before shrinking). */
  inputs: number;
  seed: number;
  /** The most one operation's generation may take. */
  operationBudgetMs: number;
  /** The most generation may take in all: shared out evenly between the operations. */
  totalBudgetMs: number;
  /** The generated failures of an earlier record (--baseline): each operation sends its own first. */
  foundBefore?: FoundInput[];
}

/** A generated input that failed a requirement in an earlier record: its operation, and the request as it was sent. */
export interface FoundInput {
  operation: string;
  requirement: string;
  query?: string;
  bodyText?: string;
}

/**
 * Random inputs per operation a run sends after the boundary phase unless told otherwise (`--generate N`; 0 turns
 * generation off).
 */
export const DEFAULT_GENERATED_INPUTS = 100;

/** The attachment a generated case leaves: its GeneratedOperation, tokens replaced. */
export const GENERATION_ATTACHMENT = 'conformance-generated';

/** A minimal input that breaks a requirement: the shrunk input's exchange, with one curl line to replay it. */
export interface Counterexample {
  message: string;
  method: string;
  path: string;
  /** Absent when no answer came. */
  status?: number;
  curl: string;
  /** Steps fast-check took from the first failing input to this one. */
  shrinks: number;
  /** How many times the input was sent (run-protocol/reproduction.ts); absent in records written before. */
  sends?: number;
  /** How many of those sends failed the requirement: 1 is a failure seen once, not reproduced. */
  failedSends?: number;
  /** The request body as it was sent, tokens replaced: what a later run sends again (--baseline). */
  bodyText?: string;
}

/** One requirement as generation met it for one operation. */
export interface GeneratedRequirement {
  id: string;
  /** Generated inputs judged under it: the answers it holds for. */
  inputs: number;
  verdict: 'passed' | 'failed';
  counterexample?: Counterexample;
}

/** What generation did for one operation: inputs sent, why it stopped early (if it did), each requirement it judged. */
export interface GeneratedOperation {
  operation: string;
  inputs: { sent: number; valid: number; invalid: number };
  durationMs: number;
  /** Why generation ended before its inputs were all sent (its time budget, three timeouts in a row). */
  stopped?: string;
  requirements: GeneratedRequirement[];
}
