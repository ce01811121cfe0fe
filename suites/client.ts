// Sends one request to the target through Playwright's APIRequestContext and reports either the
// answer or, when none came, why, in one sentence. Bounded in time (request timeout) and size
// (body guard); redirects are not followed, so credentials never travel to another address.
import type { APIRequest, APIRequestContext } from '@playwright/test';
import { utf8Text, type Utf8Reading } from '../contract/index.ts';
import type { Target } from '../targets/target.ts';
import { startBodyGuard, type BodyGuard, type TunnelProblem } from './body-guard.ts';
import type { Scrub } from '../run-protocol/secrets.ts';

export interface OutgoingRequest {
  method: string;
  /** Relative to the base URL, starting with `/`, query included: `/notification-groups?filter[type]=portal`. */
  path: string;
  headers: Record<string, string>;
  bodyText?: string;
}

export interface ReceivedResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  bodyText: string;
  /** Whether the body's bytes were UTF-8 (read before decoding them replaced what was not). */
  utf8?: Utf8Reading;
}

/** `silenced`: not sent, the operation having gone silent SILENCE_LIMIT times in a row. */
export type Transmission =
  { ok: true; response: ReceivedResponse } | { ok: false; failure: string; timedOut?: boolean; silenced?: true };

export interface TargetClient {
  transmit(request: OutgoingRequest): Promise<Transmission>;
  close(): Promise<void>;
}

const MIB = 1024 * 1024;
const EARLY_RELEASE_BYTES = 64 * 1024;

/**
 * After this many requests in a row to one operation got no answer within the timeout, a worker
 * stops waiting on that operation: a target that hangs costs each worker a few timeouts, not one
 * per case.
 */
export const SILENCE_LIMIT = 3;

/** Opens a request context for the target; `apiRequest` is Playwright's `playwright.request`. */
export async function openTargetClient(apiRequest: APIRequest, target: Target, scrub: Scrub): Promise<TargetClient> {
  const guard = await startBodyGuard(target.limits.maxBodyBytes);
  const context = await apiRequest.newContext({
    baseURL: `${target.baseUrl}/`,
    proxy: { server: guard.proxyUrl },
    timeout: target.limits.requestTimeoutMs,
    // --header: a gateway key and the like, on every request; never in a curl line or report.
    extraHTTPHeaders: target.extraHeaders ?? {},
  });
  const silentInARow = new Map<string, number>();
  return {
    async transmit(request) {
      const operation = `${request.method} ${request.path.split('?')[0]}`;
      if ((silentInARow.get(operation) ?? 0) >= SILENCE_LIMIT) {
        return {
          ok: false,
          silenced: true,
          failure: `not sent: the last ${SILENCE_LIMIT} requests to ${operation} got no answer within ${target.limits.requestTimeoutMs} ms`,
        };
      }
      const sent = await transmit(context, guard, target, scrub, request);
      silentInARow.set(operation, !sent.ok && sent.timedOut ? (silentInARow.get(operation) ?? 0) + 1 : 0);
      return sent;
    },
    async close() {
      await context.dispose();
      await guard.close();
    },
  };
}

async function transmit(
  context: APIRequestContext,
  guard: BodyGuard,
  target: Target,
  scrub: Scrub,
  request: OutgoingRequest,
): Promise<Transmission> {
  const mark = guard.mark();
  try {
    const response = await context.fetch(request.path.replace(/^\//, ''), {
      method: request.method,
      headers: request.headers,
      ...(request.bodyText === undefined ? {} : { data: request.bodyText }),
      timeout: target.limits.requestTimeoutMs,
      maxRedirects: 0,
      failOnStatusCode: false,
    });
    const headers: Record<string, string> = {};
    for (const { name, value } of response.headersArray()) {
      const key = name.toLowerCase();
      headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    }
    const body = await response.body();
    // The context keeps each body until disposed; releasing small ones one by one costs a Playwright
    // call per request, so only large ones are released early (the rest go with the context).
    if (body.length > EARLY_RELEASE_BYTES) await response.dispose();
    const { text, utf8 } = utf8Text(body);
    return { ok: true, response: { status: response.status(), headers, bodyText: text, utf8 } };
  } catch (error) {
    const problem = guard.problemSince(mark);
    const timedOut = problem === undefined && isTimeout(error as Error);
    return {
      ok: false,
      failure: scrub(transportFailureMessage(error as Error, problem, target)),
      ...(timedOut ? { timedOut } : {}),
    };
  }
}

/** Why no answer came, in words a person can act on; never Playwright's call log, which lists request headers. */
export function transportFailureMessage(error: Error, problem: TunnelProblem | undefined, target: Target): string {
  if (problem?.kind === 'too-large') {
    return `the answer is larger than ${formatMiB(problem.limitBytes)}, the most the kit reads (raise it with --max-body-mib)`;
  }
  if (problem?.kind === 'unreachable') return `cannot connect to ${problem.address} (${problem.code})`;
  const first = (error.message ?? String(error))
    .split('\n')[0]
    .replace(/^[\w.]+: /, '')
    .trim();
  if (isTimeout(error)) {
    return `no complete answer within ${target.limits.requestTimeoutMs} ms (the request timeout; raise it with --request-timeout)`;
  }
  if (/ECONNRESET|socket hang up|aborted|other side closed|EPIPE|Parse Error/i.test(first)) {
    return `the connection was closed before a complete answer arrived (${first})`;
  }
  return `the request failed: ${first}`;
}

function isTimeout(error: Error): boolean {
  return /Timeout \d+ms exceeded/i.test((error.message ?? '').split('\n')[0]);
}

function formatMiB(bytes: number): string {
  const mib = bytes / MIB;
  return `${Number.isInteger(mib) ? mib : mib.toFixed(2)} MiB`;
}
