// What every exchange check reads and returns: the exchange, the check's shape and its verdict, and
// the helpers over statuses and bodies several checks share.
import type { Contract, Operation, OperationRole } from '../contract.ts';
import { parsedBody } from '../validate.ts';
import type { Finding, HttpRequest, HttpResponse, Location, ValidateOptions } from '../types.ts';

export interface Exchange {
  operation: Operation | null;
  request: HttpRequest;
  response: HttpResponse;
  /** What validateRequest found, so checks need not validate again. */
  requestFindings: Finding[];
}

/** What a check says beside its findings (each finding is a requirement it judged and found broken). */
export interface CheckVerdict {
  /** It judged `requirement` on this exchange and it held. */
  held(requirement: string, location?: Location): void;
  /**
   * It met `requirement` on this exchange, but a value it cannot reason about kept it from judging; `reason` says
   * which.
   */
  cannotJudge(requirement: string, reason: string, location?: Location): void;
}

export interface ExchangeCheck {
  name: string;
  /**
   * The roles it judges (an operation's `x-requirements` in openapi.yaml): it may judge the
   * requirement each operation names for one of them, besides those whose `judgedBy` names it,
   * so a new operation's requirements are bound by the contract's data alone.
   */
  roles?: OperationRole[];
  appliesTo(exchange: Exchange): boolean;
  run(contract: Contract, exchange: Exchange, options: ValidateOptions, verdict: CheckVerdict): Finding[];
}

export type Json = Record<string, unknown>;

export const is2xx = (status: number) => status >= 200 && status < 300;
export const is4xx = (status: number) => status >= 400 && status < 500;
export const isRequestProblem = (f: Finding) => f.location === 'request' && f.level === 'MUST';

export function jsonBody(message: HttpRequest | HttpResponse): Json | undefined {
  if (!message.bodyText) return undefined;
  const parsed = parsedBody(message);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
    ? (parsed.value as Json)
    : undefined;
}

export function errorObjects(response: HttpResponse): Json[] {
  const errors = jsonBody(response)?.errors;
  return Array.isArray(errors) ? errors.filter((e): e is Json => e !== null && typeof e === 'object') : [];
}

export const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

/** The parsed value of a response's body, when it has one and it is JSON. */
export function parsedResponse(response: HttpResponse): { value: unknown } | undefined {
  if (!response.bodyText) return undefined;
  const parsed = parsedBody(response);
  return parsed.ok ? parsed : undefined;
}
