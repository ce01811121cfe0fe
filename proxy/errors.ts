// The answers the proxy gives itself, all JSON:API error documents (section 7): a request the
// contract rejects (enforce mode), a response the contract rejects (enforce mode), and an
// upstream that failed. The proxy's own codes are stable and live in this one table; a
// contract finding's code is its requirement id.
import { MEDIA_TYPE } from '../contract/index.ts';
import type { Contract, Finding } from '../contract/index.ts';

export type UpstreamFailure = 'unreachable' | 'untrusted' | 'reset' | 'invalid' | 'timeout';

interface ProxyError {
  status: number;
  code: string;
  title: string;
}

export const UPSTREAM_ERRORS: Record<UpstreamFailure, ProxyError> = {
  unreachable: { status: 502, code: 'PROXY-UPSTREAM-UNREACHABLE', title: 'The upstream service could not be reached' },
  untrusted: {
    status: 502,
    code: 'PROXY-UPSTREAM-UNTRUSTED',
    title: 'The upstream service presented a TLS certificate the proxy does not trust',
  },
  reset: {
    status: 502,
    code: 'PROXY-UPSTREAM-RESET',
    title: 'The upstream service closed the connection before answering',
  },
  invalid: {
    status: 502,
    code: 'PROXY-UPSTREAM-INVALID',
    title: 'The upstream service sent a response that is not valid HTTP',
  },
  timeout: { status: 504, code: 'PROXY-UPSTREAM-TIMEOUT', title: 'The upstream service did not answer in time' },
};

/**
 * What enforce mode refuses beyond MUST findings: what the proxy could not judge as sent, by
 * the status it answers. Each is a requirement of the catalogue (INFO: report mode only logs
 * it) and the `code` of the refusal's error object.
 */
export const REFUSAL_STATUSES: Record<string, number> = {
  'PROXY-NOT-JUDGED': 400,
  'PROXY-BODY-TOO-LARGE': 413,
  'PROXY-CONTENT-CODING': 415,
  'PROXY-CREDENTIALS-UNREADABLE': 401,
  'PROXY-CONNECTION-NAMES-CONTRACT-HEADER': 400,
  'PROXY-DUPLICATE-HEADER': 400,
  'PROXY-DUPLICATE-MEMBER': 400,
  'PROXY-PATH-NOT-CANONICAL': 400,
  'PROXY-QUERY-SHAPE': 400,
  'PROXY-NUMBER-FORM': 400,
  'PROXY-METHOD-OVERRIDE': 400,
  'PROXY-QUERY-SEPARATOR': 400,
  'PROXY-MEMBER-CASE-VARIANT': 400,
  'PROXY-BODY-ON-GET': 400,
  'PROXY-REWRITE-HEADER': 400,
  'PROXY-PROTOTYPE-KEY': 400,
  'PROXY-FORWARDED-HEADER': 400,
  'PROXY-QUERY-READING': 400,
  'PROXY-QUERY-MERGES-DOCUMENT': 400,
};

/** Whether enforce mode refuses an exchange for this finding: it breaks the contract, or the proxy could not judge. */
export function refused(finding: Finding): boolean {
  return finding.level === 'MUST' || REFUSAL_STATUSES[finding.requirement] !== undefined;
}

export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: string;
}

function answer(status: number, errors: ErrorObject[]): ErrorAnswer {
  const body = JSON.stringify({ errors });
  return { status, headers: { 'content-type': MEDIA_TYPE, 'content-length': Buffer.byteLength(body) }, body };
}

/** 502/504 for an upstream that failed; `requestId` lets an operator find the exchange in the log. */
export function upstreamErrorAnswer(failure: UpstreamFailure, requestId: string): ErrorAnswer {
  const error = UPSTREAM_ERRORS[failure];
  return answer(error.status, [
    { status: String(error.status), code: error.code, title: error.title, detail: `request ${requestId}` },
  ]);
}

/**
 * Enforce mode's refusal of a request: each finding as an error object, its rule as the code (400 unless a refusal asks
 * for 413 or 415).
 */
export function rejectedRequestAnswer(findings: Finding[], status = 400): ErrorAnswer {
  return answer(
    status,
    findings.map((finding) => ({
      status: String(status),
      code: finding.requirement,
      title: requestTitle(finding),
      detail: finding.message,
      ...errorSource(finding),
    })),
  );
}

function requestTitle(finding: Finding): string {
  return REFUSAL_STATUSES[finding.requirement] === undefined
    ? 'The request breaks the contract'
    : 'The proxy cannot judge the request as the upstream would read it';
}

/** Findings about the credentials themselves: section 5 answers them with 401, before anything else. */
const CREDENTIAL_RULES = new Set(['AUTH-CREDENTIALS-PRESENT', 'AUTH-401-MALFORMED']);

/**
 * Enforce mode's answer to a request, or null to forward it. Credentials come first (section 5:
 * 401 before any 400): unreadable ones, or none on a request the proxy would refuse, get 401
 * from the proxy as they would from the service. A request without credentials that breaks
 * nothing else is forwarded, since which operations are public is not shown. Then whatever
 * breaks the contract or cannot be judged is refused: 413 or 415 when that is the reason, else 400.
 */
export function refusalOf(
  contract: Contract,
  findings: readonly Finding[],
  credentials: 'none' | 'malformed' | 'credential',
): ErrorAnswer | null {
  const blocking = findings.filter((f) => refused(f) && !CREDENTIAL_RULES.has(f.requirement));
  if (credentials === 'malformed')
    return unauthorizedAnswer('the credentials are in none of the three schemes of section 5');
  if (blocking.length === 0) return null;
  if (credentials === 'none')
    return unauthorizedAnswer(
      'no credentials, on a request the proxy would refuse: section 5 answers 401 before any validation',
    );
  const statuses = blocking.map((f) => refusalStatus(contract, f.requirement));
  const status = statuses.includes(413) ? 413 : statuses.includes(415) ? 415 : 400;
  return rejectedRequestAnswer(blocking, status);
}

/**
 * The status enforce mode refuses a finding with: the proxy's own for what it cannot judge; for a
 * contract finding, the status the catalogue asks a service to refuse it with when serving it
 * breaks a requirement of its own (`acceptedBreaks` naming one with `refusedWith`: another
 * request media type, 415), as the service would; else 400.
 */
export function refusalStatus(contract: Contract, requirement: string): number {
  const own = REFUSAL_STATUSES[requirement];
  if (own !== undefined) return own;
  const { acceptedBreaks } = contract.requirement(requirement);
  return (acceptedBreaks === undefined ? undefined : contract.requirement(acceptedBreaks).refusedWith?.[0]) ?? 400;
}

function unauthorizedAnswer(detail: string): ErrorAnswer {
  const refusal = answer(401, [
    {
      status: '401',
      code: 'PROXY-CREDENTIALS-UNREADABLE',
      title: 'The request carries no credentials the proxy can read',
      detail,
    },
  ]);
  return { ...refusal, headers: { ...refusal.headers, 'www-authenticate': 'Bearer realm="v3"' } };
}

/** 502 in enforce mode: the upstream's response broke the contract; each finding names how. */
export function rejectedResponseAnswer(findings: Finding[]): ErrorAnswer {
  return answer(
    502,
    findings.map((finding) => ({
      status: '502',
      code: finding.requirement,
      title: 'The upstream response breaks the contract',
      detail: finding.message,
    })),
  );
}

/** A body pointer becomes `source.pointer`; any other place a request finding names is a query parameter. */
function errorSource(finding: Finding): Pick<ErrorObject, 'source'> {
  if (finding.pointer.startsWith('/')) return { source: { pointer: finding.pointer } };
  if (finding.pointer !== '') return { source: { parameter: finding.pointer } };
  return {};
}

/** Upstream error codes (undici's and the system's) by the failure they mean; anything else is a reset. */
export const UPSTREAM_FAILURE_CODES: Record<string, UpstreamFailure> = {
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EAI_AGAIN: 'unreachable',
  UND_ERR_HEADERS_OVERFLOW: 'invalid',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'invalid',
  ERR_INVALID_CHAR: 'invalid',
  ERR_HTTP_INVALID_HEADER_VALUE: 'invalid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted',
  CERT_HAS_EXPIRED: 'untrusted',
  CERT_NOT_YET_VALID: 'untrusted',
  CERT_REVOKED: 'untrusted',
  CERT_UNTRUSTED: 'untrusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'untrusted',
};

export function classifyUpstreamError(error: Error): UpstreamFailure {
  const code = String((error as NodeJS.ErrnoException).code ?? '');
  // llhttp's parse errors carry an HPE_ code, or none at all when the reply is not HTTP/1.x.
  if (error.name === 'HTTPParserError' || code.startsWith('HPE_')) return 'invalid';
  return UPSTREAM_FAILURE_CODES[code] ?? 'reset';
}
