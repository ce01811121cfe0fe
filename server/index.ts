// The reference server: a correct implementation of the specified API with injectable faults and
// legal choices where the specification is open.
export { createReferenceServer, startReferenceServer, InvalidServerOptionError } from './server.ts';
export type { ReferenceServerOptions, StartedReferenceServer } from './server.ts';
export {
  DEFAULT_CREDENTIALS,
  REFERENCE_FIXTURES,
  SEED_SIZES,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  DEFAULT_MAX_BODY_BYTES,
  MAX_NESTING_DEPTH,
} from './defaults.ts';
export {
  FAULTS,
  FAULT_CATALOGUE,
  FAULT_NAMES,
  INAPPLICABLE_FAULTS,
  InapplicableFaultError,
  faultsBoundTo,
  UnknownFaultError,
  expandTrigger,
} from './faults.ts';
export type { FaultDefinition, FaultTrigger } from './faults.ts';
export {
  CHOICES,
  CHOICE_NAMES,
  INAPPLICABLE_CHOICES,
  InapplicableChoiceError,
  choicesBoundTo,
  UnknownChoiceError,
  choicesConflict,
  compatibleChoiceSets,
} from './choices.ts';
export type { ChoiceDefinition } from './choices.ts';
export { faultsTable, choicesTable } from './faults-table.ts';
export { CONDITION_CODES } from './problems.ts';
export { maskedTarget } from './log.ts';
