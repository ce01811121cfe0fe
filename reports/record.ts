// The certification record (conformance.json, schema: reports/conformance.schema.json) and its
// renderings (summary.md, the console's closing lines). The record gathers what the cases found,
// per requirement of the catalogue; it judges nothing the cases did not.
import { relative } from 'node:path';
import type { Contract, Level, Requirement } from '../contract/index.ts';
import type { Evidence } from '../suites/evidence.ts';
import type { FailLevel } from '../suites/settings.ts';

export type RequirementVerdict = 'passed' | 'failed' | 'warning' | 'not-run';
export type CaseStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not-started';

/** What the reporter knows of one case when the run ends. */
export interface CaseOutcome {
  title: string;
  /** Ids from the case's requirement annotations, its own first. */
  requirements: string[];
  status: CaseStatus;
  /** Why a case did not run (its skip annotation). */
  skipReason?: string;
  /** First line of the error of a case that failed with no blocking finding to explain it. */
  error?: string;
  findings: Evidence[];
}

export interface RecordedEvidence {
  case: string;
  message: string;
  pointer?: string;
  expected?: string;
  actual?: string;
  method?: string;
  path?: string;
  status?: number;
  curl?: string;
}

export interface RequirementRecord {
  id: string;
  level: Level;
  section: string;
  text: string;
  verdict: RequirementVerdict;
  reason?: string;
  /** Cases that ran and exercise this requirement. */
  cases: number;
  evidence: RecordedEvidence[];
  /** Evidence beyond the first MAX_EVIDENCE, counted only. */
  evidenceOmitted?: number;
}

type Tally = Record<RequirementVerdict, number>;

export interface ConformanceRecord {
  kit: { name: string; version: string };
  spec: { title: string; version: string };
  target: { baseUrl: string };
  failLevel: 'MUST' | 'SHOULD';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  runStatus: 'passed' | 'failed' | 'timedout' | 'interrupted';
  verdict: 'passed' | 'failed';
  verdictReason: string;
  cases: { total: number; passed: number; failed: number; notRun: number };
  tally: Record<Level, Tally>;
  requirements: RequirementRecord[];
}

export interface RecordInput {
  contract: Contract;
  kit: { name: string; version: string };
  target: string;
  failLevel: FailLevel;
  startedAt: Date;
  durationMs: number;
  runStatus: ConformanceRecord['runStatus'];
  cases: CaseOutcome[];
}

export const MAX_EVIDENCE = 25;
export const PROXY_ONLY_REASON = 'checked by the proxy only';
export const UNCOVERED_REASON = 'no case of this run covers it (a --grep selection?)';
const RAN: CaseStatus[] = ['passed', 'failed', 'timedOut', 'interrupted'];

export function buildRecord(input: RecordInput): ConformanceRecord {
  const requirements = input.contract.requirements.map((requirement) => requirementRecord(requirement, input.cases));
  const failed = requirements.filter((r) => r.level === 'MUST' && r.verdict === 'failed').map((r) => r.id);
  const warned = requirements.filter((r) => r.level === 'SHOULD' && r.verdict === 'warning').map((r) => r.id);
  const blocking = input.failLevel === 'should' ? [...failed, ...warned] : failed;
  const complete = input.runStatus === 'passed' || input.runStatus === 'failed';
  const ranAny = input.cases.some((c) => RAN.includes(c.status));
  return {
    kit: input.kit,
    spec: { title: String((input.contract.document.info as { title?: unknown }).title ?? ''), version: input.contract.version },
    target: { baseUrl: input.target },
    failLevel: input.failLevel === 'should' ? 'SHOULD' : 'MUST',
    startedAt: input.startedAt.toISOString(),
    finishedAt: new Date(input.startedAt.getTime() + input.durationMs).toISOString(),
    durationMs: Math.round(input.durationMs),
    runStatus: input.runStatus,
    verdict: blocking.length === 0 && complete && ranAny ? 'passed' : 'failed',
    verdictReason: ranAny ? verdictReason(blocking, failed, warned, complete, input.runStatus) : 'no case ran, so nothing was certified',
    cases: {
      total: input.cases.length,
      passed: input.cases.filter((c) => c.status === 'passed').length,
      failed: input.cases.filter((c) => RAN.includes(c.status) && c.status !== 'passed').length,
      notRun: input.cases.filter((c) => !RAN.includes(c.status)).length,
    },
    tally: tallyOf(requirements),
    requirements,
  };
}

function verdictReason(blocking: string[], failed: string[], warned: string[], complete: boolean, runStatus: string): string {
  if (!complete) return `the run did not complete (${runStatus}); requirements whose cases did not run are not run`;
  if (blocking.length === 0) return warned.length > 0 ? `no MUST requirement failed; ${warned.length} SHOULD requirement${warned.length === 1 ? '' : 's'} warned` : 'no MUST requirement failed';
  const parts = [];
  if (failed.length > 0) parts.push(`${failed.length} MUST requirement${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}`);
  if (blocking.length > failed.length) parts.push(`${warned.length} SHOULD requirement${warned.length === 1 ? '' : 's'} warned (--level should): ${warned.join(', ')}`);
  return parts.join('; ');
}

function requirementRecord(requirement: Requirement, cases: CaseOutcome[]): RequirementRecord {
  const evidence = cases.flatMap((c) => c.findings.filter((f) => f.requirement === requirement.id).map((f) => recordedEvidence(c.title, f)));
  const unexplained = cases.filter((c) => c.error !== undefined && c.requirements[0] === requirement.id).map((c) => ({ case: c.title, message: `the case failed: ${c.error}` }));
  const all = [...evidence, ...unexplained];
  const covering = cases.filter((c) => c.requirements.includes(requirement.id));
  const ran = covering.filter((c) => RAN.includes(c.status));
  const base = { id: requirement.id, level: requirement.level, section: requirement.section, text: requirement.text, cases: ran.length };
  const kept = { evidence: all.slice(0, MAX_EVIDENCE), ...(all.length > MAX_EVIDENCE ? { evidenceOmitted: all.length - MAX_EVIDENCE } : {}) };
  if (all.length > 0 && requirement.level !== 'INFO') return { ...base, verdict: requirement.level === 'MUST' ? 'failed' : 'warning', ...kept };
  if (ran.length > 0 || all.length > 0) return { ...base, verdict: 'passed', ...kept };
  return { ...base, verdict: 'not-run', reason: notRunReason(requirement, covering), evidence: [] };
}

function notRunReason(requirement: Requirement, covering: CaseOutcome[]): string {
  const reason = covering.find((c) => c.skipReason)?.skipReason;
  if (reason) return reason;
  if (covering.some((c) => c.status === 'not-started')) return 'the run ended before its cases ran';
  if (requirement.checkedBy && !requirement.checkedBy.includes('suite')) return PROXY_ONLY_REASON;
  return UNCOVERED_REASON;
}

function recordedEvidence(caseTitle: string, finding: Evidence): RecordedEvidence {
  const optional = {
    pointer: finding.pointer || undefined,
    expected: finding.expected,
    actual: finding.actual,
    method: finding.exchange?.method,
    path: finding.exchange?.path,
    status: finding.exchange?.status,
    curl: finding.exchange?.curl,
  };
  return { case: caseTitle, message: finding.message, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) };
}

function tallyOf(requirements: RequirementRecord[]): Record<Level, Tally> {
  const empty = (): Tally => ({ passed: 0, failed: 0, warning: 0, 'not-run': 0 });
  const tally: Record<Level, Tally> = { MUST: empty(), SHOULD: empty(), INFO: empty() };
  for (const r of requirements) tally[r.level][r.verdict]++;
  return tally;
}

// --- Renderings -----------------------------------------------------------------------------

export interface ReportPaths {
  conformance: string;
  summary: string;
  junit?: string;
  html?: string;
}

const VERDICT_WORDS: Record<RequirementVerdict, string> = { passed: 'passed', failed: 'failed', warning: 'warning', 'not-run': 'not run' };

function tallyLine(record: ConformanceRecord): string {
  const level = (name: Level, words: [RequirementVerdict, string][]) =>
    `${name} ${words.filter(([verdict]) => record.tally[name][verdict] > 0 || verdict === 'passed').map(([verdict, word]) => `${record.tally[name][verdict]} ${word}`).join(', ')}`;
  return [
    level('MUST', [['passed', 'passed'], ['failed', 'failed'], ['not-run', 'not run']]),
    level('SHOULD', [['passed', 'passed'], ['warning', 'warned'], ['not-run', 'not run']]),
    level('INFO', [['passed', 'recorded'], ['not-run', 'not run']]),
  ].join(' · ');
}

function casesLine(record: ConformanceRecord): string {
  const { total, passed, failed, notRun } = record.cases;
  return `${total} cases: ${passed} passed, ${failed} failed, ${notRun} not run`;
}

/** The console's closing lines: verdict first, then counts, then where the reports are. */
export function consoleSummary(record: ConformanceRecord, paths: ReportPaths, cwd: string): string {
  const show = (path: string) => (relative(cwd, path).startsWith('..') ? path : relative(cwd, path));
  const lines = [
    `Verdict: ${record.verdict.toUpperCase()}: ${record.verdictReason}`,
    `Target: ${record.target.baseUrl}`,
    `Cases: ${casesLine(record)} (${(record.durationMs / 1000).toFixed(1)} s)`,
    `Requirements: ${tallyLine(record)}`,
    'Reports:',
    ...[paths.conformance, paths.summary, paths.junit, paths.html].filter((p): p is string => p !== undefined).map((p) => `  ${show(p)}`),
  ];
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function firstEvidence(r: RequirementRecord): string {
  const e = r.evidence[0];
  if (!e) return r.reason ?? '';
  const where = e.method ? ` (\`${e.method} ${e.path}\`${e.status !== undefined ? ` → ${e.status}` : ''})` : '';
  const more = r.evidence.length + (r.evidenceOmitted ?? 0) - 1;
  return `${e.message}${where}${more > 0 ? `; ${more} more` : ''}`;
}

function table(rows: RequirementRecord[], lastColumn: string, lastCell: (r: RequirementRecord) => string): string[] {
  return [`| Requirement | Level | Section | Verdict | ${lastColumn} |`, '|---|---|---|---|---|', ...rows.map((r) => `| ${r.id} | ${r.level} | ${r.section} | ${VERDICT_WORDS[r.verdict]} | ${cell(lastCell(r))} |`)];
}

/** summary.md: the verdict first, then what failed or did not run, then warnings and observations. */
export function summaryMarkdown(record: ConformanceRecord): string {
  const failedOrNotRun = record.requirements.filter((r) => r.verdict === 'failed' || r.verdict === 'not-run');
  const warnings = record.requirements.filter((r) => r.verdict === 'warning');
  const observations = record.requirements.filter((r) => r.level === 'INFO' && r.evidence.length > 0);
  const lines = [
    `# Conformance verdict: ${record.verdict.toUpperCase()}`,
    '',
    `${record.verdictReason}.`,
    '',
    `- Target: \`${record.target.baseUrl}\``,
    `- ${record.spec.title} ${record.spec.version}, checked by ${record.kit.name} ${record.kit.version}; ${record.failLevel} findings fail the run`,
    `- ${record.startedAt} to ${record.finishedAt} (${(record.durationMs / 1000).toFixed(1)} s), ${casesLine(record)}`,
    `- Requirements: ${tallyLine(record)}`,
    '',
    '## Failed and not-run requirements',
    '',
    ...(failedOrNotRun.length > 0 ? table(failedOrNotRun, 'Evidence or reason', firstEvidence) : ['None.']),
    '',
    '## Warnings',
    '',
    ...(warnings.length > 0 ? table(warnings, 'Evidence', firstEvidence) : ['None.']),
    '',
    '## Observations',
    '',
    ...(observations.length > 0 ? observations.map((r) => `- ${r.id} (section ${r.section}): ${cell(r.evidence[0].message)}`) : ['None.']),
    '',
    'Each failure in `conformance.json` carries a `curl` line; export `LAS_BASE_URL`, `LAS_SESSION_TOKEN`, `LAS_PAT` (and `LAS_FORBIDDEN_TOKEN`) to run it.',
    '',
  ];
  return lines.join('\n');
}
