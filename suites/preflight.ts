// Before the suite: ask the target once per credential and once per optional input the run was
// given, so that a misconfigured run (a refused token, a base URL without /v3, a wrong legacy
// header name, records the target does not have) stops with one line saying what to check instead
// of failing requirements. The run command calls it before it starts the suite's process.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import {
  loadContract,
  MEDIA_TYPE,
  recordKindLabel,
  smallestQuery,
  type Operation,
  type RecordIds,
} from '../contract/index.ts';
import { readCaFile, settingSource, type Target } from '../targets/target.ts';
import { fixtureMembers, requiredFixturesMissing } from './documents.ts';
import { validInput } from './operations.ts';

/** The target answered nothing: the run cannot start (exit code 2). */
export class UnreachableTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreachableTargetError';
  }
}

/**
 * The target answered, but not as the list operation of this API does for these credentials: the run cannot start (exit
 * code 2).
 */
export class PreflightError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreflightError';
  }
}

/** A request the preflight sends, relative to the base URL. */
export interface PreflightRequest {
  operation: Operation;
  method: string;
  path: string;
  /** For a create: an empty document, which no conforming service stores. */
  body?: string;
}

/**
 * What the preflight asks: the contract's first operation that reads without naming a record (a
 * GET without path parameters: the list), with the smallest query it serves (its required
 * members' first values, or the id `records` give a member naming a record; the smallest page).
 * A contract without one has the preflight send its first create an empty document: refused 400
 * for what it holds once the credentials are taken (credentials are judged first, section 5), and
 * stored by no conforming service. Derived from the contract, not named here.
 */
export function preflightRequest(records: RecordIds = {}): PreflightRequest {
  const operations = loadContract().operations;
  const read = operations.find((candidate) => candidate.method === 'GET' && !candidate.pathTemplate.includes('{'));
  if (read) {
    const query = smallestQuery(read.parameters, { smallestPage: true, records });
    return { operation: read, method: 'GET', path: `${read.pathTemplate}${query === '' ? '' : `?${query}`}` };
  }
  const create = operations.find(
    (candidate) => candidate.method === 'POST' && candidate.requestBody && !candidate.pathTemplate.includes('{'),
  );
  if (create) return { operation: create, method: 'POST', path: create.pathTemplate, body: '{}' };
  throw new Error('the contract has no operation without path parameters for the preflight to ask');
}
const PREFLIGHT_BODY_BYTES = 64 * 1024;

export interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most the first 64 KiB. */
  bodyText: string;
}

export interface ProbeRequest {
  url: URL;
  /** Default GET. */
  method?: string;
  headers: Record<string, string>;
  /** A request body, sent as is. */
  body?: string;
  timeoutMs: number;
  /** PEM certificates to trust besides Node's. */
  ca?: string;
}

/** One request (a GET unless told); no answer within the timeout, or no connection, is UnreachableTargetError. */
export async function probe(request: ProbeRequest): Promise<ProbeAnswer> {
  const send = request.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options = {
    method: request.method ?? 'GET',
    timeout: request.timeoutMs,
    headers: request.headers,
    ...(request.ca ? { ca: [...rootCertificates, request.ca] } : {}),
  };
  try {
    return await new Promise<ProbeAnswer>((resolve, reject) => {
      const sent = send(request.url, options, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < PREFLIGHT_BODY_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= PREFLIGHT_BODY_BYTES) response.destroy();
        });
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            bodyText: Buffer.concat(chunks).toString('utf8').slice(0, PREFLIGHT_BODY_BYTES),
          });
        response.once('end', done);
        response.once('close', done);
        response.once('error', done);
      });
      sent.once('timeout', () => sent.destroy(new Error(`no answer within ${request.timeoutMs} ms`)));
      sent.once('error', reject);
      sent.end(request.body);
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code && !message.includes(code) ? `${code} (${message})` : message;
    throw new UnreachableTargetError(
      `target ${request.url.origin}${request.url.pathname.replace(/\/[^/]*$/, '')} is unreachable: ${reason}`,
    );
  }
}

/** What the preflight request was, for the one line that says what to check. */
export interface PreflightProbe {
  /** The credential as a person names it, e.g. `the session token (Authorization: Bearer r:…)`. */
  credential: string;
  /** Where it comes from: the flag and the variable. */
  setting: string;
  url: string;
  /** Default GET. */
  method?: string;
}

/**
 * What calling an operation does, in the words of the specification's summary (`list NotificationGroups`), else its
 * method and path.
 */
function operationInWords(operation: Operation): string {
  const summary = operation.summary?.replace(/\s*\(.*\)\s*$/, '').trim();
  return summary
    ? `${summary.charAt(0).toLowerCase()}${summary.slice(1)}`
    : `${operation.method} ${operation.pathTemplate}`;
}

function isJsonApiDocument(bodyText: string): boolean {
  try {
    const document = JSON.parse(bodyText) as unknown;
    return (
      typeof document === 'object' &&
      document !== null &&
      !Array.isArray(document) &&
      ('data' in document || 'errors' in document)
    );
  } catch {
    return false;
  }
}

/**
 * Why an answer to the preflight request means the run would test the configuration rather than
 * the target, or undefined when the suite can start. Failures the suite judges (400, a 5xx with
 * an error document, a wrong shape) are left to it; a generic status (a rate limit) judges nothing.
 */
export function preflightProblem(answer: ProbeAnswer, probe: PreflightProbe): string | undefined {
  const { status } = answer;
  const asked = `${probe.method ?? 'GET'} ${probe.url} with ${probe.credential}`;
  if (status >= 300 && status < 400) {
    const location = answer.headers.location;
    return `${asked} was answered ${status}, a redirect${location ? ` to ${String(location)}` : ''}; the kit does not follow redirects: give the base URL the service answers at (check http or https, the host and the path up to /v3)`;
  }
  if (status === 404)
    return `${asked} was answered 404: the base URL must include the version root, e.g. https://staging.example.com/v3 (is /v3 missing, or a path prefix?)`;
  if (status === 401)
    return `${asked} was answered 401: the target refused ${probe.credential.replace(/ \(.*$/, '')}; check ${probe.setting} (a target that refuses valid tokens is reported this way too, not as failed requirements)`;
  if (status === 403)
    return `${asked} was answered 403: ${probe.credential.replace(/ \(.*$/, '')} is not permitted to ${operationInWords(preflightRequest().operation)}; give ${probe.setting} of a user who may`;
  if (loadContract().genericStatuses.has(status)) {
    const retry = answer.headers['retry-after'];
    return `${asked} was answered ${status}, a status for a condition the specification leaves open (a rate or size limit, a method or media type the target does not take), from which no case could judge anything: check the target's limits for this client${retry ? ` (it asked to retry after ${String(retry).slice(0, 40)})` : ''} and run again`;
  }
  if (!isJsonApiDocument(answer.bodyText)) {
    const type = answer.headers['content-type'];
    return `${asked} was answered ${status}${type ? ` with ${String(type).split(';')[0]}` : ''}, not a JSON:API document: check that the base URL points at the API and that the service is up`;
  }
  return undefined;
}

/**
 * The inputs a run may be given beyond its tokens, each checked where the target can refuse it for a reason outside the
 * specification's duties.
 */
interface InputCheck {
  /** True when the run gave the input and the check can be made (a write only when writes are allowed). */
  applies: (target: Target, readOnly: boolean) => boolean;
  /** The request, relative to the base URL. */
  request: (target: Target) => { path: string; method: string; headers: Record<string, string>; body?: string };
  /** Why the answer means the input is wrong, or undefined. */
  problem: (answer: ProbeAnswer, target: Target, asked: string) => string | undefined;
}

/** The create operations whose documents carry the target's fixtures (records that must exist there). */
function fixtureOperations() {
  return loadContract().operations.filter((operation) => fixtureMembers(operation).length > 0);
}

function givenFixtures(target: Target, operation = fixtureOperations()[0]): string[] {
  return operation
    ? fixtureMembers(operation)
        .map(([, key]) => key)
        .filter((key) => target.fixtures[key] !== undefined)
    : [];
}

/** Kinds of record as a person names them: `the collection item id or the owner user id` without its first `the`. */
const labels = (kinds: string[]) => kinds.map(recordKindLabel).join(' or the ');
/** Where each kind of record is given: its flag, variable and target-file key. */
const sources = (kinds: string[]) => kinds.map((kind) => settingSource(kind)).join(', and ');

/** The preflight's request with other headers: the credentials a check asks with. */
function askedWith(target: Target, headers: Record<string, string>) {
  const { method, path, body } = preflightRequest(target.fixtures);
  return { path, method, headers: body === undefined ? headers : { ...headers, 'content-type': MEDIA_TYPE }, body };
}

export const INPUT_CHECKS: InputCheck[] = [
  {
    // Section 5: the legacy header's name is the service's own ("Svc" stands for it). The session
    // token was just served as Bearer r:, so a 401 to the same token here is the header's name.
    applies: () => true,
    request: (target) => askedWith(target, { [target.legacyHeader]: target.credentials.sessionToken }),
    problem: (answer, target, asked) =>
      answer.status === 401
        ? `${asked} was answered 401, though the same token was served as Authorization: Bearer r:; the target reads its legacy session header under another name: give it with ${settingSource('legacyHeader')} (now ${target.legacyHeader}; a target that refuses the legacy scheme altogether is reported this way too, not as failed requirements)`
        : undefined,
  },
  {
    // The forbidden token must be authenticated (a 403 case tests permission, not authentication).
    applies: (target) => target.credentials.forbiddenToken !== undefined,
    request: (target) => askedWith(target, { authorization: `Bearer r:${target.credentials.forbiddenToken}` }),
    problem: (answer, _target, asked) =>
      answer.status === 401
        ? `${asked} was answered 401: the target does not know the forbidden token, so the 403 cases would test an unknown token; give a session token that is authenticated but not permitted with ${settingSource('forbiddenToken')}, or leave it out (the 403 cases are then reported not run)`
        : undefined,
  },
  ...fixtureOperations().map((operation): InputCheck => ({
    // Conditions for 404 are not shown (sections 4.2, 4.3); a 404 to the records the run names is
    // the target saying it does not have them, which no case can be judged by. This creates one
    // record when the ids are right, as the creation cases do.
    applies: (target, readOnly) => !readOnly && givenFixtures(target, operation).length > 0,
    request: (target) => ({
      path: operation.pathTemplate,
      method: operation.method,
      headers: { authorization: `Bearer r:${target.credentials.sessionToken}`, 'content-type': MEDIA_TYPE },
      body: JSON.stringify(validInput(operation, target.fixtures).document),
    }),
    problem: (answer, target, asked) => {
      if (answer.status !== 404) return undefined;
      // A kind the document needs and the run did not give holds a stand-in no target has: the 404 is for it.
      const missing = requiredFixturesMissing(operation, target.fixtures);
      if (missing.length > 0)
        return `${asked} was answered 404 Record Not Found: the run was not given the ${labels(missing)} a document to ${operationInWords(operation)} must name, so it named one the target cannot have; give ids of records that exist there with ${sources(missing)}`;
      const given = givenFixtures(target, operation);
      return `${asked} was answered 404 Record Not Found: the target does not know the ${labels(given)} the run was given; give ids of records that exist there with ${sources(given)}`;
    },
  })),
];

/**
 * Before the suite: the list operation (with none, a create given an empty document; a read-only
 * run then asks nothing), asked once with the session token and once with the personal access
 * token. A refused token, a 404 (a base URL without /v3), a redirect or an answer that is not
 * JSON:API stops the run with PreflightError, one line saying what to check: a misconfigured run
 * must not look like a broken service. Then each optional input the run was given (INPUT_CHECKS):
 * the legacy header's name, the forbidden token, the fixtures' records.
 */
export async function preflight(target: Target, options: { readOnly?: boolean } = {}): Promise<void> {
  const asked = preflightRequest(target.fixtures);
  // A contract with no list leaves the preflight only a create to ask, which a read-only run never sends.
  if (options.readOnly === true && asked.method !== 'GET') return;
  const url = new URL(`${target.baseUrl}${asked.path}`);
  const ca = target.caFile ? readCaFile(target.caFile) : undefined;
  const probes: [PreflightProbe, Record<string, string>][] = [
    [
      {
        credential: 'the session token (Authorization: Bearer r:…)',
        setting: '--session-token or LAS_SESSION_TOKEN',
        url: url.href,
        method: asked.method,
      },
      { authorization: `Bearer r:${target.credentials.sessionToken}` },
    ],
    [
      {
        credential: 'the personal access token (Authorization: Bearer p:…)',
        setting: '--pat or LAS_PAT',
        url: url.href,
        method: asked.method,
      },
      { authorization: `Bearer p:${target.credentials.pat}` },
    ],
  ];
  for (const [described, credentials] of probes) {
    const answer = await probe({
      url,
      method: asked.method,
      headers: {
        ...(target.extraHeaders ?? {}),
        ...credentials,
        accept: MEDIA_TYPE,
        ...(asked.body === undefined ? {} : { 'content-type': MEDIA_TYPE }),
      },
      body: asked.body,
      timeoutMs: target.limits.requestTimeoutMs,
      ca,
    });
    const problem = preflightProblem(answer, described);
    if (problem) throw new PreflightError(problem);
  }
  for (const check of INPUT_CHECKS.filter((c) => c.applies(target, options.readOnly === true))) {
    const sent = check.request(target);
    const checkUrl = new URL(`${target.baseUrl}${sent.path}`);
    const answer = await probe({
      url: checkUrl,
      method: sent.method,
      headers: { ...(target.extraHeaders ?? {}), ...sent.headers, accept: MEDIA_TYPE },
      body: sent.body,
      timeoutMs: target.limits.requestTimeoutMs,
      ca,
    }).catch((error: unknown) => {
      // The target answered the list; an operation that hangs or resets is the suite's to report.
      if (error instanceof UnreachableTargetError) return undefined;
      throw error;
    });
    if (answer === undefined) continue;
    const problem = check.problem(
      answer,
      target,
      `${sent.method} ${checkUrl.href} with ${describeHeaders(sent.headers, target)}`,
    );
    if (problem) throw new PreflightError(problem);
  }
}

/** The credential a check sends, named, never its value. */
function describeHeaders(headers: Record<string, string>, target: Target): string {
  if (target.legacyHeader in headers) return `the session token in ${target.legacyHeader}`;
  const authorization = headers.authorization ?? '';
  if (
    target.credentials.forbiddenToken !== undefined &&
    authorization === `Bearer r:${target.credentials.forbiddenToken}`
  )
    return 'the forbidden token (Authorization: Bearer r:…)';
  return 'the session token (Authorization: Bearer r:…)';
}

/**
 * Reachability only, for the embedded reference server: its credentials are right by construction, and a fault may
 * refuse them on purpose.
 */
export async function probeTarget(target: Target): Promise<number> {
  const url = new URL(`${target.baseUrl}${preflightRequest().operation.pathTemplate}`);
  return (await probe({ url, headers: {}, timeoutMs: target.limits.requestTimeoutMs })).status;
}
