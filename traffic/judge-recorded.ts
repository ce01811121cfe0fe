// Judging recorded exchanges offline: each goes through the proxy's side of judging
// (proxy/judge.ts judgeCaptured, the contract's one path), and its findings become the lines of a
// violations log, as the proxy writes them. Exchanges outside the API are counted, not judged.
import { basename } from 'node:path';
import {
  bodySecrets,
  headerSecrets,
  headerValue,
  locate,
  maskCredentialQuery,
  maskedText,
  querySecrets,
  type Contract,
  type Finding,
} from '../contract/index.ts';
import type { RecordedExchange } from '../proxy/har.ts';
import { findingsOf, judgeCaptured, type CapturedExchange, type JudgeOptions } from '../proxy/judge.ts';
import { violationRecords, type ViolationRecord } from '../proxy/violations.ts';
import { entryName, type RecordedItem } from './recorded-files.ts';

export interface RecordedJudging {
  contract: Contract;
  judge: JudgeOptions;
  /**
   * Where the API was served when recorded, e.g. https://staging.example.com/api/v3: entries under
   * it are judged as under the contract's base path, every other entry is outside the API. Absent:
   * an entry's own path says (under /v3 or not).
   */
  baseUrl?: URL;
}

export type JudgedEntry =
  { inApi: false } | { inApi: true; operationId: string | null; findings: Finding[]; records: ViolationRecord[] };

/** The path the contract reads for a recorded URL, or null when the URL is outside the API. */
export function apiPath(contract: Contract, url: URL, baseUrl: URL | undefined): string | null {
  const path = `${url.pathname}${url.search}`;
  if (baseUrl === undefined) return locate(contract, 'GET', path).inApi ? path : null;
  const root = baseUrl.pathname.replace(/\/+$/, '');
  if (url.origin !== baseUrl.origin || (url.pathname !== root && !url.pathname.startsWith(`${root}/`))) return null;
  return `${contract.basePath}${url.pathname.slice(root.length)}${url.search}`;
}

export function judgeRecordedItem(
  judging: RecordedJudging,
  item: Extract<RecordedItem, { recorded: RecordedExchange }>,
): JudgedEntry {
  const { contract } = judging;
  const { recorded } = item;
  const path = apiPath(contract, recorded.url, judging.baseUrl);
  if (path === null) return { inApi: false };
  const exchange = { ...recorded.exchange, path };
  const findings = findingsOf(contract, judgeCaptured(contract, exchange, judging.judge));
  const operationId = locate(contract, exchange.method, path).operation?.operationId ?? null;
  const secrets = secretsOfRecording(exchange, contract.legacyHeader);
  const time = Number.isNaN(Date.parse(recorded.startedDateTime))
    ? new Date(0).toISOString()
    : new Date(recorded.startedDateTime).toISOString();
  const identity = {
    time,
    requestId: recorded.note?.requestId || `${basename(item.file)}#${item.entry}`,
    method: exchange.method,
    path: maskCredentialQuery(path, secrets),
    operationId,
    status: exchange.response?.status ?? null,
  };
  // A message may quote a value (--log-values): the recording's credentials are masked there too.
  const records = violationRecords(identity, findings).map((record) => ({
    ...record,
    message: maskedText(record.message, secrets),
  }));
  return { inApi: true, operationId, findings, records };
}

/** Every credential value a recorded request holds (headers, query, body): masked wherever the kit writes of it. */
export function secretsOfRecording(exchange: CapturedExchange, legacyHeader: string): Set<string> {
  const body =
    exchange.requestBody.kind === 'captured' ? Buffer.from(exchange.requestBody.raw).toString('utf8') : undefined;
  return new Set([
    ...headerSecrets(exchange.requestHeaders, legacyHeader),
    ...querySecrets(exchange.path),
    ...(body === undefined ? [] : bodySecrets(body, headerValue(exchange.requestHeaders, 'content-type') ?? '')),
  ]);
}

/** What judging files came to, besides the findings: for the closing line and the exit code. */
export interface JudgingTally {
  entries: number;
  judged: number;
  outsideApi: number;
  malformed: number;
}

export function emptyTally(): JudgingTally {
  return { entries: 0, judged: 0, outsideApi: 0, malformed: 0 };
}

/** One line per malformed entry: `FILE entry #N: what is wrong`. */
export function malformedLine(item: Extract<RecordedItem, { error: string }>): string {
  return `${entryName(item)}: ${item.error}`;
}
