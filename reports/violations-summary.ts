// Summarizes a violations log (the proxy's NDJSON) for `las-conformance report`: by rule (with
// level and spec section from the catalogue), by operation and direction, first and last seen,
// one example each. It renders findings the proxy recorded; it never judges traffic again.
import {
  LEVELS,
  LOCATIONS,
  maskCredentialQuery,
  maskedText,
  type Contract,
  type Level,
  type Location,
} from '../contract/index.ts';
import { partyOf, VIOLATION_KEYS, type Party, type ViolationRecord } from '../proxy/violations.ts';
import { SHED_RECORD_KEYS, type ShedRecord } from '../proxy/sheds.ts';
import { printable } from './terminal-text.ts';

export { partyOf, type Party };

export const PARTIES: readonly Party[] = ['service', 'client'];

const levelCounts = (): Record<Level, number> =>
  Object.fromEntries(LEVELS.map((level) => [level, 0])) as Record<Level, number>;

const PARTY_HEADINGS: Record<Party, string> = {
  service: 'Service findings (response and exchange: the service broke the contract)',
  client: 'Client findings (request: the client broke the contract)',
};
const MALFORMED_LINES_LISTED = 10;

export interface Seen {
  count: number;
  firstSeen: string;
  lastSeen: string;
  example: ViolationRecord;
}

export interface RuleSummary extends Seen {
  rule: string;
  party: Party;
  level: Level;
  /** Spec section from the catalogue; empty for a rule the catalogue does not know. */
  section: string;
  text: string;
}

export interface OperationSummary extends Seen {
  operation: string;
  direction: Location;
}

/** Exchanges the proxy relayed unjudged, by client, operation and reason (its shed lines). */
export interface ShedSummary {
  client: string;
  operationId: string | null;
  reason: ShedRecord['reason'];
  exchanges: number;
  bytes: number;
  firstSeen: string;
  lastSeen: string;
}

export interface ViolationsSummary {
  source: string;
  lines: number;
  findings: number;
  /** Findings counted on summary lines (`repeated`), not written one by one. */
  summarized: number;
  /** Exchanges named by the lines written one by one (summary lines count findings, not exchanges). */
  exchanges: number;
  byLevel: Record<Level, number>;
  /** Findings by who broke the contract, and level. */
  byParty: Record<Party, Record<Level, number>>;
  firstSeen: string | null;
  lastSeen: string | null;
  /** Malformed lines: their numbers, prefixed by the file's name when several logs were read. */
  malformed: { count: number; lineNumbers: (number | string)[] };
  rules: RuleSummary[];
  operations: OperationSummary[];
  /**
   * Exchanges relayed unjudged (their findings, if any, are in no count above), in all and by client, operation and
   * reason.
   */
  shed: { exchanges: number; bytes: number; tallies: ShedSummary[] };
}

/** Reads a log line by line (logs can be large), then hands out the summary. */
export class ViolationsSummarizer {
  private lineCount = 0;
  private readonly requestIds = new Set<string>();
  private readonly byLevel = levelCounts();
  private readonly byParty: Record<Party, Record<Level, number>> = { service: levelCounts(), client: levelCounts() };
  private readonly rules = new Map<string, RuleSummary>();
  private readonly operations = new Map<string, OperationSummary>();
  private readonly sheds = new Map<string, ShedSummary>();
  private readonly malformed = { count: 0, lineNumbers: [] as (number | string)[] };
  private file: string | null = null;
  private fileLine = 0;
  private findings = 0;
  private summarized = 0;
  private firstSeen: string | null = null;
  private lastSeen: string | null = null;

  constructor(
    private readonly contract: Contract,
    private readonly source: string,
  ) {}

  /** The lines that follow come from another log (one per replica): malformed lines are named by file and line. */
  startFile(name: string): void {
    this.file = name;
    this.fileLine = 0;
  }

  /** One line of a log; null stands for a line longer than its reader takes, counted as malformed. */
  add(line: string | null): void {
    this.lineCount += 1;
    this.fileLine += 1;
    if (line === null) return this.addMalformed();
    if (line.trim() === '') return;
    const record = parseRecord(line);
    if (!record) {
      const shed = parseShedRecord(line);
      if (shed) return this.addShed(shed);
      return this.addMalformed();
    }
    // A summary line of the proxy stands for the findings it counted and did not write one by one
    // (the first of its kind was written before it, on a line of its own).
    const count = record.repeated ?? 1;
    this.findings += count;
    if (record.repeated !== undefined) this.summarized += count;
    else this.requestIds.add(record.requestId);
    this.byLevel[record.level] += count;
    this.byParty[partyOf(record.direction)][record.level] += count;
    if (this.firstSeen === null || record.time < this.firstSeen) this.firstSeen = record.time;
    if (this.lastSeen === null || record.time > this.lastSeen) this.lastSeen = record.time;
    const party = partyOf(record.direction);
    seen(this.rules, `${record.rule} ${party}`, record, count, () => {
      const requirement = this.contract.requirements.find((r) => r.id === record.rule);
      return {
        rule: record.rule,
        party,
        level: record.level,
        section: requirement?.section ?? '',
        text: requirement?.text ?? 'not in the requirement catalogue',
      };
    });
    const operation = record.operationId ?? '(unspecified)';
    seen(this.operations, `${operation} ${record.direction}`, record, count, () => ({
      operation,
      direction: record.direction,
    }));
  }

  private addMalformed(): void {
    this.malformed.count += 1;
    if (this.malformed.lineNumbers.length < MALFORMED_LINES_LISTED)
      this.malformed.lineNumbers.push(this.file === null ? this.lineCount : `${this.file}:${this.fileLine}`);
  }

  private addShed(record: ShedRecord): void {
    const key = `${record.client} ${record.operationId} ${record.reason}`;
    const tally = this.sheds.get(key);
    if (!tally) {
      this.sheds.set(key, {
        client: record.client,
        operationId: record.operationId,
        reason: record.reason,
        exchanges: record.shed,
        bytes: record.bytes,
        firstSeen: record.time,
        lastSeen: record.time,
      });
      return;
    }
    tally.exchanges += record.shed;
    tally.bytes += record.bytes;
    if (record.time < tally.firstSeen) tally.firstSeen = record.time;
    if (record.time > tally.lastSeen) tally.lastSeen = record.time;
  }

  summary(): ViolationsSummary {
    const levelOrder = (level: Level) => LEVELS.indexOf(level);
    return {
      source: this.source,
      lines: this.lineCount,
      findings: this.findings,
      summarized: this.summarized,
      exchanges: this.requestIds.size,
      byLevel: { ...this.byLevel },
      byParty: { service: { ...this.byParty.service }, client: { ...this.byParty.client } },
      firstSeen: this.firstSeen,
      lastSeen: this.lastSeen,
      malformed: { count: this.malformed.count, lineNumbers: [...this.malformed.lineNumbers] },
      rules: [...this.rules.values()].sort(
        (a, b) => levelOrder(a.level) - levelOrder(b.level) || b.count - a.count || a.rule.localeCompare(b.rule),
      ),
      operations: [...this.operations.values()].sort(
        (a, b) =>
          a.operation.localeCompare(b.operation) || LOCATIONS.indexOf(a.direction) - LOCATIONS.indexOf(b.direction),
      ),
      shed: shedTotals([...this.sheds.values()]),
    };
  }
}

export function summarizeViolations(contract: Contract, source: string, text: string): ViolationsSummary {
  const summarizer = new ViolationsSummarizer(contract, source);
  for (const line of text.split('\n')) summarizer.add(line);
  return summarizer.summary();
}

function shedTotals(tallies: ShedSummary[]): ViolationsSummary['shed'] {
  return {
    exchanges: tallies.reduce((sum, t) => sum + t.exchanges, 0),
    bytes: tallies.reduce((sum, t) => sum + t.bytes, 0),
    tallies: tallies.sort((a, b) => b.exchanges - a.exchanges || a.client.localeCompare(b.client)),
  };
}

function seen<T extends Seen>(
  table: Map<string, T>,
  key: string,
  record: ViolationRecord,
  count: number,
  create: () => Omit<T, keyof Seen>,
): void {
  const entry = table.get(key);
  if (!entry) {
    table.set(key, { ...create(), count, firstSeen: record.time, lastSeen: record.time, example: record } as T);
    return;
  }
  entry.count += count;
  if (record.time < entry.firstSeen) entry.firstSeen = record.time;
  if (record.time > entry.lastSeen) entry.lastSeen = record.time;
}

const fieldChecks: Record<keyof ViolationRecord, (value: unknown) => boolean> = {
  time: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  requestId: (v) => typeof v === 'string',
  method: (v) => typeof v === 'string' && v !== '',
  path: (v) => typeof v === 'string',
  operationId: (v) => v === null || typeof v === 'string',
  direction: (v) => LOCATIONS.includes(v as Location),
  status: (v) => v === null || Number.isInteger(v),
  rule: (v) => typeof v === 'string' && v !== '',
  level: (v) => LEVELS.includes(v as Level),
  pointer: (v) => typeof v === 'string',
  message: (v) => typeof v === 'string',
  repeated: (v) => v === undefined || (Number.isInteger(v) && (v as number) >= 0),
  party: (v) => v === undefined || v === 'client' || v === 'service',
};

/** A line's JSON object, or null when it is not JSON or not an object. */
function jsonObject(line: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** A line that is a violation record, or null: not JSON, not an object, or a key missing or mistyped. */
export function parseRecord(line: string): ViolationRecord | null {
  const record = jsonObject(line);
  if (record === null) return null;
  return VIOLATION_KEYS.every((key) => fieldChecks[key](record[key])) &&
    fieldChecks.repeated(record.repeated) &&
    fieldChecks.party(record.party)
    ? (record as unknown as ViolationRecord)
    : null;
}

const shedChecks: Record<keyof ShedRecord, (value: unknown) => boolean> = {
  time: fieldChecks.time,
  shed: (v) => Number.isInteger(v) && (v as number) > 0,
  bytes: (v) => Number.isInteger(v) && (v as number) >= 0,
  reason: (v) => v === 'backlog' || v === 'client-share',
  client: (v) => typeof v === 'string',
  operationId: fieldChecks.operationId,
  message: fieldChecks.message,
};

/** A line that stands for exchanges the proxy relayed unjudged (sheds.ts), or null. */
export function parseShedRecord(line: string): ShedRecord | null {
  const record = jsonObject(line);
  if (record === null) return null;
  return SHED_RECORD_KEYS.every((key) => shedChecks[key](record[key])) ? (record as unknown as ShedRecord) : null;
}

/**
 * Whether a line is one the proxy writes to its violations log: a finding, a summary of findings, or exchanges shed.
 */
export function isLogLine(line: string): boolean {
  return parseRecord(line) !== null || parseShedRecord(line) !== null;
}

const SHED_HEADER = ['Client', 'Operation', 'Why', 'Exchanges', 'Body bytes', 'First seen', 'Last seen'];
const SHED_WHY: Record<ShedRecord['reason'], string> = {
  backlog: 'judging backlog full',
  'client-share': "client's share of the backlog full",
};
const SHED_NONE = 'None: every exchange the proxy sampled was judged.';

function shedRows(summary: ViolationsSummary): string[][] {
  return summary.shed.tallies.map((t) => [
    t.client,
    t.operationId ?? '(outside the contract)',
    SHED_WHY[t.reason],
    String(t.exchanges),
    String(t.bytes),
    t.firstSeen,
    t.lastSeen,
  ]);
}

function exampleText(record: ViolationRecord): string {
  // A log from elsewhere may hold what the kit would have masked: masked again here.
  return `${record.method} ${maskCredentialQuery(record.path)} → ${record.status ?? 'no response'}: ${maskedText(record.message)}${record.pointer ? ` (at ${record.pointer})` : ''}`;
}

function headline(summary: ViolationsSummary): string[] {
  const span = summary.firstSeen ? `, first seen ${summary.firstSeen}, last seen ${summary.lastSeen}` : '';
  const levels = LEVELS.map((level) => `${level} ${summary.byLevel[level]}`).join(' · ');
  const malformed =
    summary.malformed.count === 0
      ? 'No malformed lines.'
      : `${summary.malformed.count} malformed line${summary.malformed.count === 1 ? '' : 's'} skipped (line${summary.malformed.lineNumbers.length === 1 ? '' : 's'} ${summary.malformed.lineNumbers.join(', ')}${summary.malformed.count > summary.malformed.lineNumbers.length ? ', ...' : ''}).`;
  const parties = PARTIES.map(
    (party) =>
      `${party === 'service' ? 'Service' : 'Client'}: ${LEVELS.map((level) => `${level} ${summary.byParty[party][level]}`).join(' · ')}.`,
  );
  const counted =
    summary.summarized === 0
      ? `${summary.findings} findings in ${summary.exchanges} exchanges${span}.`
      : `${summary.findings} findings${span}: ${summary.findings - summary.summarized} written one by one, from ${summary.exchanges} exchange${summary.exchanges === 1 ? '' : 's'}, and ${summary.summarized} counted on summary lines.`;
  const shed =
    summary.shed.exchanges === 0
      ? []
      : [
          `${summary.shed.exchanges} exchange${summary.shed.exchanges === 1 ? '' : 's'} (${summary.shed.bytes} body bytes) relayed unjudged (shed): any finding they held is in no count here.`,
        ];
  return [counted, `${levels}.`, ...parties, ...shed, malformed];
}

function markdownCell(text: string): string {
  return printable(text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' '));
}

function markdownTable(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(markdownCell).join(' | ')} |`),
  ];
}

export function renderViolationsMarkdown(summary: ViolationsSummary): string {
  const lines = [`# Violations report: ${printable(summary.source)}`, '', ...headline(summary).map(printable), ''];
  for (const party of PARTIES) {
    const rules = summary.rules.filter((r) => r.party === party);
    lines.push(`## ${PARTY_HEADINGS[party]}`, '');
    lines.push(
      ...(rules.length === 0
        ? ['No findings.']
        : markdownTable(
            ['Level', 'Rule', 'Section', 'Count', 'First seen', 'Last seen', 'Example'],
            rules.map((r) => [
              r.level,
              r.rule,
              r.section || '?',
              String(r.count),
              r.firstSeen,
              r.lastSeen,
              exampleText(r.example),
            ]),
          )),
    );
    lines.push('');
  }
  lines.push('## By operation and direction', '');
  lines.push(
    ...(summary.operations.length === 0
      ? ['No findings.']
      : markdownTable(
          ['Operation', 'Direction', 'Count', 'First seen', 'Last seen', 'Example'],
          summary.operations.map((o) => [
            o.operation,
            o.direction,
            String(o.count),
            o.firstSeen,
            o.lastSeen,
            `${o.example.rule}: ${exampleText(o.example)}`,
          ]),
        )),
  );
  lines.push('', '## Exchanges not judged (shed)', '');
  lines.push(...(summary.shed.tallies.length === 0 ? [SHED_NONE] : markdownTable(SHED_HEADER, shedRows(summary))));
  if (summary.rules.length > 0) {
    lines.push('', '## Rules', '');
    for (const r of uniqueRules(summary.rules))
      lines.push(
        `- **${markdownCell(r.rule)}** (${r.level}, section ${markdownCell(r.section || '?')}): ${markdownCell(r.text)}`,
      );
  }
  return lines.join('\n') + '\n';
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function htmlTable(header: string[], rows: string[][]): string {
  const head = header.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** One entry per rule (a rule broken by both parties is listed once). */
function uniqueRules(rules: readonly RuleSummary[]): RuleSummary[] {
  const byId = new Map<string, RuleSummary>();
  for (const rule of rules) if (!byId.has(rule.rule)) byId.set(rule.rule, rule);
  return [...byId.values()];
}

export function renderViolationsHtml(summary: ViolationsSummary): string {
  const rules = PARTIES.map((party) => {
    const mine = summary.rules.filter((r) => r.party === party);
    const table =
      mine.length === 0
        ? '<p>No findings.</p>'
        : htmlTable(
            ['Level', 'Rule', 'Section', 'Count', 'First seen', 'Last seen', 'Example'],
            mine.map((r) => [
              r.level,
              r.rule,
              r.section || '?',
              String(r.count),
              r.firstSeen,
              r.lastSeen,
              exampleText(r.example),
            ]),
          );
    return `<h2>${escapeHtml(PARTY_HEADINGS[party])}</h2>\n${table}`;
  }).join('\n');
  const operations =
    summary.operations.length === 0
      ? '<p>No findings.</p>'
      : htmlTable(
          ['Operation', 'Direction', 'Count', 'First seen', 'Last seen', 'Example'],
          summary.operations.map((o) => [
            o.operation,
            o.direction,
            String(o.count),
            o.firstSeen,
            o.lastSeen,
            `${o.example.rule}: ${exampleText(o.example)}`,
          ]),
        );
  const sheds =
    summary.shed.tallies.length === 0 ? `<p>${escapeHtml(SHED_NONE)}</p>` : htmlTable(SHED_HEADER, shedRows(summary));
  const definitions = uniqueRules(summary.rules)
    .map(
      (r) =>
        `<dt>${escapeHtml(r.rule)} <span class="level">${r.level}</span>, section ${escapeHtml(r.section || '?')}</dt><dd>${escapeHtml(r.text)}</dd>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Violations report: ${escapeHtml(summary.source)}</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 24px; color: #101828; }
  table { border-collapse: collapse; margin: 8px 0 24px; }
  th, td { border-bottom: 1px solid #eaecf0; padding: 4px 12px 4px 0; text-align: left; vertical-align: top; }
  th { color: #667085; font-weight: 500; }
  .level { font-weight: 600; }
</style>
</head>
<body>
<h1>Violations report: ${escapeHtml(summary.source)}</h1>
${headline(summary)
  .map((line) => `<p>${escapeHtml(line)}</p>`)
  .join('\n')}
${rules}
<h2>By operation and direction</h2>
${operations}
<h2>Exchanges not judged (shed)</h2>
${sheds}
<h2>Rules</h2>
<dl>
${definitions}
</dl>
</body>
</html>
`;
}
