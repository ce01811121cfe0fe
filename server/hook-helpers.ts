// Small hook builders the fault and choice catalogues share: each returns a hook for one of the
// pipeline's named points (types.ts), or a value a hook returns.
import type { Finding, Operation, OperationRole } from '../contract/index.ts';
import { isErrorDocument } from './problems.ts';
import type { Reply, RequestContext, ServerHooks } from './types.ts';

/** Drops the findings of one requirement (those `applies` picks), so the server acts as if they were not there. */
export function overlook(
  requirement: string,
  applies: (finding: Finding, context: RequestContext) => boolean = () => true,
): ServerHooks['findings'] {
  return (findings, context) => findings.filter((f) => f.requirement !== requirement || !applies(f, context));
}

/** Drops the findings of the requirement the request's operation names for `role` (those `applies` picks). */
export function overlookRole(
  role: OperationRole,
  applies: (finding: Finding, context: RequestContext) => boolean = () => true,
): ServerHooks['findings'] {
  return (findings, context) => {
    const requirement = context.operation?.roles[role];
    return requirement === undefined
      ? findings
      : findings.filter((f) => f.requirement !== requirement || !applies(f, context));
  };
}

type ChangeData = (data: Record<string, unknown>, context: RequestContext) => Record<string, unknown>;

/** Changes the `data` of a successful creation by one operation. */
export function changeCreated(operationId: string, change: ChangeData): ServerHooks['created'] {
  return changeCreatedWhere((operation) => operation.operationId === operationId, change);
}

/**
 * Changes the `data` of a successful creation by every operation `applies` picks (by its roles in the contract, say).
 */
export function changeCreatedWhere(
  applies: (operation: Operation) => boolean,
  change: ChangeData,
): ServerHooks['created'] {
  return (creation, context) => {
    if (context.operation === undefined || !applies(context.operation) || !creation.document?.data) return creation;
    return { ...creation, document: { ...creation.document, data: change(creation.document.data, context) } };
  };
}

/**
 * What a list or a create operation must have for the hooks of a fault or a choice to change
 * anything there (an item attribute with allowed values, say): those without it are left alone.
 */
export interface OperationsHaving {
  /** In words, for the one line that refuses the fault or choice where no operation has it. */
  what: string;
  has: (operation: Operation) => boolean;
}

/** Whether an operation creates a resource: it takes a request body. */
export const creates = (operation: Operation): boolean => operation.requestBody !== undefined;

/** A successful 201 creation by one operation answered with another status. */
export function createdStatus(operationId: string, status: number): ServerHooks['created'] {
  return (creation, context) =>
    context.operation?.operationId === operationId && creation.status === 201 ? { ...creation, status } : creation;
}

/** Changes every error object of every error reply. */
export function changeErrors(change: (error: Record<string, unknown>) => unknown): ServerHooks['reply'] {
  return (reply) =>
    isErrorDocument(reply.document) ? { ...reply, document: { errors: reply.document.errors.map(change) } } : reply;
}

/** A reply with another status, its error objects' status strings following it. */
export function withStatus(reply: Reply, status: number): Reply {
  const document = isErrorDocument(reply.document)
    ? { errors: reply.document.errors.map((e) => ({ ...e, status: String(status) })) }
    : reply.document;
  return { ...reply, status, document };
}

export function withoutMember(record: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _removed, ...rest } = record;
  return rest;
}
