// Judging one exchange: the one path the suite, the proxy and the reference server's tests all
// take. Route the request, validate it, validate the response, run every exchange check; the
// callers only choose which of the findings concern them. The request can be judged on its own
// first (the proxy judges it before forwarding); the response is then judged against it.
import { acceptsRefusable, assessChecks, checkExchange } from './checks/index.ts';
import type { Contract, Operation } from './contract.ts';
import type { Assessment, Finding, HttpRequest, HttpResponse, Judged, ValidateOptions } from './types.ts';
import {
  relativePath,
  responseCoverage,
  route,
  validateGenericRequest,
  validateGenericResponse,
  validateRequest,
  validateResponse,
} from './validate.ts';

export interface JudgedRequest {
  /** False for paths outside the contract's base path: those are never judged. */
  inApi: boolean;
  operation: Operation | null;
  request: HttpRequest;
  /** What the request alone shows (location `request`: the client's side). */
  findings: Finding[];
}

export const UNSPECIFIED_OPERATION = 'GEN-UNSPECIFIED-OPERATION';

/** Traffic to an unspecified operation, by method and first path segment: `GET /v3/users`. */
export function unspecifiedOperationKey(contract: Contract, method: string, path: string): string {
  const relative = relativePath(path, contract.basePath) ?? '/';
  const end = relative.indexOf('/', 1);
  return `${method} ${contract.basePath}${end < 0 ? relative : relative.slice(0, end)}`;
}

/** Where a request belongs: under the base path or not, and which of the specified operations. */
export type Located = Pick<JudgedRequest, 'inApi' | 'operation'>;

/** Where a request belongs: under the base path or not, and which of the specified operations if any. */
export function locate(contract: Contract, method: string, path: string): Located {
  const inApi = relativePath(path, contract.basePath) !== null;
  return { inApi, operation: inApi ? route(contract, method, path) : null };
}

/**
 * `located`: where the request belongs, when the caller located it already (locate's answer for its method and path).
 */
export function judgeRequest(
  contract: Contract,
  request: HttpRequest,
  options: ValidateOptions = {},
  located: Located = locate(contract, request.method, request.path),
): JudgedRequest {
  const { inApi, operation } = located;
  if (!inApi) return { inApi, operation, request, findings: [] };
  if (operation) return { inApi, operation, request, findings: validateRequest(contract, operation, request, options) };
  const key = unspecifiedOperationKey(contract, request.method, request.path);
  const findings = [
    ...validateGenericRequest(contract, request, options),
    contract.finding(UNSPECIFIED_OPERATION, 'request', {
      message: `traffic to ${key}, which the specification names at most without method, path or payload; judged by the generic JSON:API rules only`,
    }),
  ];
  return { inApi, operation, request, findings };
}

/**
 * The findings of the response and of the whole exchange. A specified operation that serves a
 * request it must refuse is judged once, under what the request broke: what it sends back for
 * such a request is not defined, so its body is not judged as well.
 */
export function judgeResponse(
  contract: Contract,
  judged: JudgedRequest,
  response: HttpResponse,
  options: ValidateOptions = {},
): Finding[] {
  if (!judged.inApi) return [];
  const { operation, request } = judged;
  const { judgedResponse, responseOptions } = asJudged(judged, response, options);
  const findings = operation
    ? validateResponse(contract, operation, judgedResponse, responseOptions)
    : validateGenericResponse(contract, judgedResponse, responseOptions);
  findings.push(
    ...checkExchange(
      contract,
      { operation, request, response: judgedResponse, requestFindings: judged.findings },
      responseOptions,
    ),
  );
  return findings;
}

/** Every finding of one exchange: the request's, then the response's and the exchange's. */
export function judgeExchange(
  contract: Contract,
  request: HttpRequest,
  response: HttpResponse,
  options: ValidateOptions = {},
): Finding[] {
  const judged = judgeRequest(contract, request, options);
  return [...judged.findings, ...judgeResponse(contract, judged, response, options)];
}

/**
 * One exchange judged as judgeExchange judges it (the same findings), and besides what was judged
 * and what could not be: every requirement a finding names, every requirement a check held, and
 * every requirement the response's validation gave something to judge. The suite counts these, so
 * that "passed" means a judge that can break the requirement judged an exchange and it held.
 */
export function assessExchange(
  contract: Contract,
  request: HttpRequest,
  response: HttpResponse,
  options: ValidateOptions = {},
): Assessment {
  const judged = judgeRequest(contract, request, options);
  if (!judged.inApi) return { findings: [], judged: [], unjudged: [] };
  const { operation } = judged;
  const { judgedResponse, responseOptions } = asJudged(judged, response, options);
  const responseFindings = operation
    ? validateResponse(contract, operation, judgedResponse, responseOptions)
    : validateGenericResponse(contract, judgedResponse, responseOptions);
  const checks = assessChecks(
    contract,
    { operation, request, response: judgedResponse, requestFindings: judged.findings },
    responseOptions,
  );
  const findings = [...judged.findings, ...responseFindings, ...checks.findings];
  const named: Judged[] = [...judged.findings, ...responseFindings].map(({ requirement, location }) => ({
    requirement,
    location,
  }));
  return {
    findings,
    judged: [...named, ...responseCoverage(contract, operation, judgedResponse, responseOptions), ...checks.judged],
    unjudged: checks.unjudged,
  };
}

/**
 * A specified operation that serves a request it must refuse is judged under what the request broke: its body is not
 * judged as well.
 */
function asJudged(
  judged: JudgedRequest,
  response: HttpResponse,
  options: ValidateOptions,
): { judgedResponse: HttpResponse; responseOptions: ValidateOptions } {
  const served = acceptsRefusable({ operation: judged.operation, response, requestFindings: judged.findings });
  return {
    judgedResponse: served ? withoutBody(response) : response,
    responseOptions: served && (response.bodyText ?? '') !== '' ? { ...options, bodyOmitted: true } : options,
  };
}

function withoutBody(response: HttpResponse): HttpResponse {
  return { status: response.status, headers: response.headers };
}
