// Recorded exchanges as HAR 1.2 entries: what browsers, proxies and gateways export, and what the
// proxy's capture writes (one entry per line, with the findings it drew under `_las`). Pure: this
// turns an entry into the plain exchange judging reads (proxy/judge.ts CapturedExchange), and a
// proxied exchange into an entry; reading files and writing them is done elsewhere.
import type { Headers, Level, Location } from '../contract/index.ts';
import type { CapturedBody, CapturedExchange } from './judge.ts';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  encoding?: string;
  comment?: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text?: string; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    content: HarContent;
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** What the proxy's capture adds: the exchange's request id and the findings it drew. */
  _las?: CaptureNote;
}

export interface RecordedFinding {
  rule: string;
  level: Level;
  direction: Location;
  pointer: string;
  message: string;
}

export interface CaptureNote {
  requestId: string;
  findings: RecordedFinding[];
}

/** One recorded exchange, ready to judge: where it was sent, and the exchange as judging reads it. */
export interface RecordedExchange {
  /** The absolute URL the entry names (query values of credential-like names masked when shown). */
  url: URL;
  startedDateTime: string;
  exchange: CapturedExchange;
  note?: CaptureNote;
}

/** An entry that cannot be read as an exchange: the message says which member is wrong. */
export class MalformedEntryError extends Error {}

// HTTP/2 and HTTP/3 pseudo-headers (`:authority`, `:path`) are not message headers.
const PSEUDO_HEADER = /^:/;

/**
 * The exchange an entry records. HAR keeps bodies decoded (RFC 9110 content codings undone, and
 * base64 when `encoding` says so), so the recorded Content-Encoding is not applied again.
 */
export function recordedExchange(value: unknown): RecordedExchange {
  const entry = objectAt(value, 'the entry');
  const request = objectAt(entry.request, 'request');
  const response = objectAt(entry.response, 'response');
  const method = stringAt(request.method, 'request.method');
  const urlText = stringAt(request.url, 'request.url');
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new MalformedEntryError(`request.url is not an absolute URL`);
  }
  const status = response.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 0 || status > 999)
    throw new MalformedEntryError('response.status is not an HTTP status');
  const requestHeaders = headerList(request.headers, 'request.headers');
  const responseHeaders = headerList(response.headers, 'response.headers');
  const postData = request.postData === undefined ? undefined : objectAt(request.postData, 'request.postData');
  const content = response.content === undefined ? undefined : objectAt(response.content, 'response.content');
  const exchange: CapturedExchange = {
    method,
    path: `${url.pathname}${url.search}`,
    requestHeaders: headersObject(requestHeaders),
    requestBody: recordedBody(postData?.text, undefined, postData?.comment, 'request.postData'),
    // An aborted exchange (status 0) has no response to judge.
    response:
      status === 0
        ? null
        : {
            status,
            rawHeaders: rawHeaders(responseHeaders),
            body: recordedBody(content?.text, content?.encoding, content?.comment, 'response.content'),
          },
  };
  const note = captureNote(entry._las);
  return {
    url,
    startedDateTime: typeof entry.startedDateTime === 'string' ? entry.startedDateTime : '',
    exchange,
    ...(note ? { note } : {}),
  };
}

/** A short label for messages: `GET /v3/notification-groups` (never the query, which may hold values). */
export function entryLabel(value: unknown): string {
  const request = (value as { request?: { method?: unknown; url?: unknown } } | null)?.request;
  if (typeof request?.method !== 'string' || typeof request.url !== 'string') return '';
  try {
    return `${request.method.slice(0, 16)} ${new URL(request.url).pathname.slice(0, 120)}`;
  } catch {
    return request.method.slice(0, 16);
  }
}

/** What a reader puts in place of a HAR string too long to keep (a body far beyond the largest judged). */
export const OVERSIZED_TEXT = '\u0000las:text-too-large\u0000';

function recordedBody(text: unknown, encoding: unknown, comment: unknown, where: string): CapturedBody {
  if (text === OVERSIZED_TEXT)
    return { kind: 'omitted', reason: 'body too large to read from the recording', cause: 'size' };
  if (text === undefined || text === null) {
    // The capture writes why it kept no body; such a body is judged as the proxy judged it: not validated.
    return typeof comment === 'string' && comment.startsWith(BODY_NOT_KEPT)
      ? { kind: 'omitted', reason: comment.slice(BODY_NOT_KEPT.length), cause: 'size' }
      : { kind: 'none' };
  }
  if (typeof text !== 'string') throw new MalformedEntryError(`${where}.text is not a string`);
  if (text === '') return { kind: 'none' };
  const raw = encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { kind: 'captured', raw };
}

function headerList(value: unknown, where: string): HarHeader[] {
  if (!Array.isArray(value)) throw new MalformedEntryError(`${where} is not a list`);
  return value.map((header, i) => {
    const { name, value: text } = (header ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || typeof text !== 'string')
      throw new MalformedEntryError(`${where}[${i}] is not a name and a value`);
    return { name, value: text };
  });
}

function headersObject(headers: HarHeader[]): Headers {
  const object: Record<string, string> = {};
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    if (PSEUDO_HEADER.test(key) || key === 'content-encoding') continue;
    object[key] = key in object ? `${object[key]}, ${value}` : value;
  }
  return object;
}

function rawHeaders(headers: HarHeader[]): string[] {
  return headers
    .filter(({ name }) => !PSEUDO_HEADER.test(name) && name.toLowerCase() !== 'content-encoding')
    .flatMap(({ name, value }) => [name, value]);
}

function captureNote(value: unknown): CaptureNote | undefined {
  if (value === undefined) return undefined;
  const note = objectAt(value, '_las');
  if (!Array.isArray(note.findings)) throw new MalformedEntryError('_las.findings is not a list');
  const findings = note.findings.map((f, i) => {
    const finding = objectAt(f, `_las.findings[${i}]`);
    return {
      rule: stringAt(finding.rule, `_las.findings[${i}].rule`),
      level: stringAt(finding.level, `_las.findings[${i}].level`) as Level,
      direction: stringAt(finding.direction, `_las.findings[${i}].direction`) as Location,
      pointer: textOrNothing(finding.pointer),
      message: textOrNothing(finding.message),
    };
  });
  return { requestId: textOrNothing(note.requestId), findings };
}

function objectAt(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MalformedEntryError(`${where} is not an object`);
  return value as Record<string, unknown>;
}

function stringAt(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new MalformedEntryError(`${where} is not a non-empty string`);
  return value;
}

/** How a captured entry says its body was not kept (larger than --max-body, or in a coding not undone). */
export const BODY_NOT_KEPT = 'body not kept: ';

/** A member the kit writes as a string and may leave out: its text, or the empty string. */
function textOrNothing(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
