// Which request findings a server must refuse, and with which statuses: shared by the checks of
// credentials and of invalid requests, and by the judging path.
import type { Contract } from '../contract.ts';
import { carriesCredentials } from '../credentials.ts';
import type { Finding } from '../types.ts';
import { type Exchange, is2xx, isRequestProblem } from './exchange.ts';

/**
 * The request findings that say a server must refuse the request: a MUST the client broke. What
 * a server that serves it anyway breaks is the catalogue's `acceptedBreaks`.
 */
export function refusableFindings(requestFindings: Finding[]): Finding[] {
  return requestFindings.filter(isRequestProblem);
}

/** True when a specified operation answered 2xx to a request the contract says it must refuse. */
export function acceptsRefusable(exchange: Pick<Exchange, 'operation' | 'response' | 'requestFindings'>): boolean {
  return (
    exchange.operation !== null && is2xx(exchange.response.status) && exchange.requestFindings.some(isRequestProblem)
  );
}

export const hasNoCredentials = (contract: Contract, x: Exchange) =>
  !carriesCredentials(x.request.headers, contract.legacyHeader);
export const isCredentialProblem = (f: Finding) => f.requirement === 'AUTH-CREDENTIALS-PRESENT';

export const isValidationProblem = (f: Finding) => isRequestProblem(f) && !isCredentialProblem(f);

/** The status of an invalid request (section 7). */
const INVALID_REQUEST_STATUS = 400;

/**
 * The statuses that refuse a request breaking any of `requirements` for what it holds: 400 and what the catalogue names
 * (refusedWith).
 */
export function refusalsFor(contract: Contract, requirements: readonly string[]): number[] {
  return [
    ...new Set([INVALID_REQUEST_STATUS, ...requirements.flatMap((id) => contract.requirement(id).refusedWith ?? [])]),
  ].sort((a, b) => a - b);
}
