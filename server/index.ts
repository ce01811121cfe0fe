// The reference server: a correct implementation of the specified API with injectable faults.
export { createReferenceServer, startReferenceServer, InvalidServerOptionError } from './server.ts';
export type { ReferenceServerOptions, StartedReferenceServer } from './server.ts';
export { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, SEED_SIZES, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, DEFAULT_MAX_BODY_BYTES, MAX_NESTING_DEPTH } from './defaults.ts';
export { FAULTS, FAULT_NAMES, UnknownFaultError, expandTrigger } from './faults.ts';
export type { FaultDefinition, FaultTrigger } from './faults.ts';
export { faultsTable } from './faults-table.ts';
export { CONDITION_CODES } from './problems.ts';
export { maskedTarget } from './log.ts';
