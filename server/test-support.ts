// What the reference server's tests share: sending one request, judging one exchange by the
// contract alone, the way the proxy would, and running the suite's own cases and documents
// in-process against a server.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { request as undiciRequest, type Dispatcher } from 'undici';
import {
  bodyMembers,
  judgeExchange as judgeWithContract,
  loadContract,
  utf8Text,
  withValueAt,
  type BodyMember,
  type Finding,
  type HttpRequest,
  type HttpResponse,
  type JsonType,
  type Operation,
} from '../contract/index.ts';
import { ConformanceCase } from '../suites/case.ts';
import type { SuiteCase } from '../suites/cases/index.ts';
import type { TargetClient } from '../suites/client.ts';
import { completeDocument, type Document } from '../suites/documents.ts';
import { EMBEDDED_SETTINGS } from '../suites/embedded.ts';
import { generateForOperation } from '../suites/generation/generate.ts';
import type { GeneratedOperation } from '../run-protocol/index.ts';
import { resolveTarget, type Target } from '../targets/target.ts';
import { REFERENCE_FIXTURES } from './defaults.ts';

export interface Probe {
  method: string;
  /** Relative to the base URL, e.g. `/notification-groups?filter[type]=portal`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Exchanged {
  request: HttpRequest;
  response: HttpResponse;
  /** The response body parsed, or undefined when it is not JSON. */
  json: unknown;
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one probe to `baseUrl` (e.g. http://127.0.0.1:4010/v3), over `dispatcher` when given. */
export async function send(baseUrl: string, probe: Probe, dispatcher?: Dispatcher): Promise<Exchanged> {
  const url = new URL(baseUrl);
  const path = `${url.pathname}${probe.path}`;
  const response = dispatcher
    ? await dispatcher.request({
        origin: url.origin,
        path,
        method: probe.method,
        headers: probe.headers,
        body: probe.body,
      })
    : await undiciRequest(`${url.origin}${path}`, { method: probe.method, headers: probe.headers, body: probe.body });
  // Read as bytes first, as the suite's client reads them: whether they were UTF-8 is judged too.
  const { text: bodyText, utf8 } = utf8Text(Buffer.from(await response.body.arrayBuffer()));
  const bodyString = probe.body === undefined ? '' : probe.body.toString();
  return {
    request: { method: probe.method, path, headers: probe.headers ?? {}, bodyText: bodyString },
    response: { status: response.statusCode, headers: flatHeaders(response.headers), bodyText, utf8 },
    json: parsedOrUndefined(bodyText),
  };
}

/**
 * What the contract alone says about the server in one exchange, the way the suite and the proxy
 * judge it: response and exchange findings at MUST and SHOULD (request findings are the probe's
 * own doing).
 */
export function serverFindings(exchanged: Exchanged): Finding[] {
  return judgeWithContract(loadContract(), exchanged.request, exchanged.response).filter(
    (f) => f.level !== 'INFO' && f.location !== 'request',
  );
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  bodyText: string;
}

function parseRawResponse(buffer: Buffer): RawResponse | undefined {
  let text = buffer.toString('latin1');
  // Interim 1xx responses come before the final one (RFC 9110 15.2).
  while (/^HTTP\/1\.1 1\d\d /.test(text) && text.includes('\r\n\r\n')) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = Buffer.from(text.slice(end + 4), 'latin1');
  const length = Number(headers['content-length'] ?? NaN);
  if (Number.isFinite(length) && body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    bodyText: body.subarray(0, Number.isFinite(length) ? length : body.length).toString('utf8'),
  };
}

/**
 * Writes raw bytes to the server and reads one response, for requests no HTTP client would send.
 * `parts` are written one after another; with `hangUp` the client closes after writing them.
 */
export function rawExchange(
  port: number,
  parts: Array<string | Buffer>,
  options: { hangUp?: boolean } = {},
): Promise<RawResponse | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no response within 5 s'));
    }, 5000);
    const finish = (response: RawResponse | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    };
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      if (options.hangUp) finish(undefined);
    });
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const response = parseRawResponse(Buffer.concat(chunks));
      if (response) finish(response);
    });
    socket.on('error', () => finish(parseRawResponse(Buffer.concat(chunks))));
    socket.on('close', () => finish(parseRawResponse(Buffer.concat(chunks))));
  });
}

/**
 * The complete request document of a create operation, as the suite builds it, naming the reference server's records.
 */
export function completeDocumentOf(operationId: string): Document {
  return completeDocument(loadContract().operation(operationId), REFERENCE_FIXTURES, randomUUID());
}

/** The reference server at `baseUrl` as the suite's target: its public test credentials and fixtures. */
export function referenceTarget(baseUrl: string): Target {
  return resolveTarget({ baseUrl, ...EMBEDDED_SETTINGS }, loadContract().legacyHeader);
}

/** The suite's transport without Playwright: one undici request per exchange. */
export function directClient(baseUrl: string): TargetClient {
  return {
    async transmit(request) {
      try {
        const { response } = await send(baseUrl, {
          method: request.method,
          path: request.path,
          headers: request.headers,
          ...(request.bodyText === undefined ? {} : { body: request.bodyText }),
        });
        return {
          ok: true,
          response: {
            status: response.status,
            headers: flatHeaders(response.headers),
            bodyText: response.bodyText ?? '',
            ...(response.utf8 === undefined ? {} : { utf8: response.utf8 }),
          },
        };
      } catch (error) {
        return { ok: false, failure: (error as Error).message };
      }
    },
    close: async () => undefined,
  };
}

/** A suite case that ended as not run, with its reason. */
export class CaseSkipped extends Error {}

/**
 * Runs one of the suite's cases against `target` in-process, judged at --level should; returns
 * the findings that would fail it (MUST and SHOULD). A case that skips throws CaseSkipped.
 */
export async function runSuiteCase(suiteCase: SuiteCase, target: Target, client: TargetClient): Promise<Finding[]> {
  const conformance = new ConformanceCase({
    contract: loadContract(),
    client,
    target,
    failLevel: 'should',
    scrub: (text) => text,
    requirements: suiteCase.requirements,
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  await suiteCase.run(conformance);
  return conformance.blocking();
}

/**
 * What generation did for one operation in process, and the requirements of the findings it recorded (its shrunk
 * inputs').
 */
export interface GeneratedInProcess {
  outcome: GeneratedOperation;
  findings: string[];
}

/**
 * Generation for one operation against `baseUrl`, in process, as a generated case of the suite
 * runs it (judged at MUST): the boundary phase when `boundary`, then `inputs` random inputs from `seed`.
 */
export async function generateInProcess(
  baseUrl: string,
  operationId: string,
  job: { inputs: number; boundary: boolean; seed: number },
): Promise<GeneratedInProcess> {
  const contract = loadContract();
  const target = referenceTarget(baseUrl);
  const conformance = new ConformanceCase({
    contract,
    client: directClient(baseUrl),
    target,
    failLevel: 'must',
    scrub: (text) => text,
    requirements: [contract.successRequirement(operationId).id],
    outcomeInWorker: true,
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
  });
  const outcome = await generateForOperation(conformance, {
    operation: contract.operation(operationId),
    fixtures: target.fixtures,
    ...job,
    budgetMs: 60_000,
    blocking: ['MUST'],
  });
  return { outcome, findings: conformance.blocking().map((f) => f.requirement) };
}

/** `document` as JSON text with `raw` (text no JSON value serialises to, 1e400 say) as the value at `pointer`. */
export function documentWithRawValue(document: unknown, pointer: string, raw: string): string {
  const mark = 'raw value to be replaced';
  return JSON.stringify(withValueAt(document, pointer, mark)).replace(JSON.stringify(mark), raw);
}

const takesOnly = (member: BodyMember, type: JsonType) => member.types.length === 1 && member.types[0] === type;

/** A member of a create's document that takes any object: its schema names no member of it. */
export function freeFormMember(operation: Operation): BodyMember | undefined {
  const members = bodyMembers(operation);
  return members.find(
    (m) =>
      takesOnly(m, 'object') && !m.namesNotShown && !members.some((other) => other.pointer.startsWith(`${m.pointer}/`)),
  );
}

/** An attribute of a create's document that takes a number. */
export function numberAttribute(operation: Operation): BodyMember | undefined {
  return bodyMembers(operation).find((m) => m.pointer.startsWith('/data/attributes/') && takesOnly(m, 'number'));
}

/** An attribute of a create's document that takes any string: it names no allowed values and no record. */
export function freeStringAttribute(operation: Operation): BodyMember | undefined {
  return bodyMembers(operation).find(
    (m) =>
      m.pointer.startsWith('/data/attributes/') &&
      takesOnly(m, 'string') &&
      m.enum === undefined &&
      m.const === undefined &&
      m.record === undefined &&
      !m.valuesNotShown,
  );
}
