// Comparing two certification records, usually of one target: which requirements newly fail, which
// were fixed, and where a requirement fails in both with different evidence; and whether the two
// records name different targets, which the Markdown says first. `las-conformance
// diff` renders it as Markdown or JSON, and `run --baseline` uses the same reading of a record.
import type { Level } from '../contract/index.ts';
import { RecordFileError } from './verify.ts';
import type { RecordedEvidence, RequirementVerdict } from './record.ts';
import { firstFinding } from './requirement-outcomes.ts';

/**
 * What a comparison needs of a record: its requirements' ids, levels, verdicts and first evidence. Older record formats
 * have these too.
 */
export interface ComparableRecord {
  verdict: string;
  target?: { baseUrl?: string; embedded?: boolean; faults?: string[]; choices?: string[] };
  startedAt?: string;
  requirements: { id: string; level: Level; verdict: RequirementVerdict; evidence: RecordedEvidence[] }[];
}

const FAILING: RequirementVerdict[] = ['failed', 'warning'];

export function comparableRecord(value: unknown, source: string): ComparableRecord {
  const record = value as Partial<ComparableRecord> | null;
  const fine =
    typeof record === 'object' &&
    record !== null &&
    Array.isArray(record.requirements) &&
    record.requirements.every(
      (r) => typeof r?.id === 'string' && typeof r.verdict === 'string' && Array.isArray(r.evidence),
    );
  if (!fine)
    throw new RecordFileError(
      `${source} is not a conformance record (conformance.json): it has no requirements with id, verdict and evidence`,
    );
  return record as ComparableRecord;
}

/** The requirements failing (or warned) in a previous record, for --baseline. */
export function baselineFailing(record: ComparableRecord): string[] {
  return record.requirements.filter((r) => FAILING.includes(r.verdict)).map((r) => r.id);
}

export interface RequirementChange {
  id: string;
  level: Level;
  before: RequirementVerdict | 'absent';
  after: RequirementVerdict | 'absent';
  /** The first evidence message on each side, where there is one. */
  evidenceBefore?: string;
  evidenceAfter?: string;
}

export interface RecordDiff {
  old: { file: string; verdict: string; startedAt?: string; target?: string };
  new: { file: string; verdict: string; startedAt?: string; target?: string };
  /** Failing (or warned) now and not before: regressions when MUST. */
  newlyFailing: RequirementChange[];
  fixed: RequirementChange[];
  /** Failing in both, with a different first finding. */
  changedEvidence: RequirementChange[];
  /** Any other change of verdict, such as run to not run. */
  otherChanges: RequirementChange[];
  /** MUST requirements that newly fail: what makes `diff` exit 1. */
  regressions: string[];
  /** False when the records name different targets: the diff then compares two implementations, not two runs of one. */
  sameTarget: boolean;
}

/**
 * What makes two records' targets one: the base URL, or for the embedded reference server (a new port each run) its
 * faults and choices.
 */
function targetIdentity(record: ComparableRecord): string | undefined {
  const target = record.target;
  if (!target) return undefined;
  if (target.embedded)
    return `the embedded reference server${target.faults?.length ? ` with faults ${target.faults.join(', ')}` : ''}${target.choices?.length ? ` with choices ${target.choices.join(', ')}` : ''}`;
  return target.baseUrl;
}

function firstEvidence(evidence: RecordedEvidence[]): string | undefined {
  const e = firstFinding({ evidence });
  return e
    ? `${e.message}${e.pointer ? ` at ${e.pointer}` : ''}${e.method ? ` (${e.method} ${e.path}${e.status !== undefined ? ` → ${e.status}` : ''})` : ''}`
    : undefined;
}

export function diffRecords(
  before: ComparableRecord,
  after: ComparableRecord,
  files: { old: string; new: string },
): RecordDiff {
  const old = new Map(before.requirements.map((r) => [r.id, r]));
  const ids = [...new Set([...after.requirements.map((r) => r.id), ...before.requirements.map((r) => r.id)])];
  const newer = new Map(after.requirements.map((r) => [r.id, r]));
  const changes = ids.map((id): RequirementChange => {
    const a = old.get(id);
    const b = newer.get(id);
    const evidenceBefore = a && firstEvidence(a.evidence);
    const evidenceAfter = b && firstEvidence(b.evidence);
    return {
      id,
      level: (b ?? a)!.level,
      before: a?.verdict ?? 'absent',
      after: b?.verdict ?? 'absent',
      ...(evidenceBefore ? { evidenceBefore } : {}),
      ...(evidenceAfter ? { evidenceAfter } : {}),
    };
  });
  const failing = (v: RequirementChange['before']) => FAILING.includes(v as RequirementVerdict);
  const newlyFailing = changes.filter((c) => failing(c.after) && !failing(c.before));
  const fixed = changes.filter((c) => failing(c.before) && c.after === 'passed');
  const changedEvidence = changes.filter(
    (c) => failing(c.before) && failing(c.after) && c.evidenceBefore !== c.evidenceAfter,
  );
  const listed = new Set([...newlyFailing, ...fixed, ...changedEvidence]);
  const otherChanges = changes.filter((c) => !listed.has(c) && c.before !== c.after);
  const side = (record: ComparableRecord, file: string) => ({
    file,
    verdict: record.verdict,
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record.target?.baseUrl
      ? { target: `${record.target.baseUrl}${record.target.embedded ? ' (the embedded reference server)' : ''}` }
      : {}),
  });
  const sameTarget = targetIdentity(before) === targetIdentity(after);
  return {
    old: side(before, files.old),
    new: side(after, files.new),
    newlyFailing,
    fixed,
    changedEvidence,
    otherChanges,
    regressions: newlyFailing.filter((c) => c.level === 'MUST' && c.after === 'failed').map((c) => c.id),
    sameTarget,
  };
}

function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function section(
  title: string,
  rows: RequirementChange[],
  columns: [string, (c: RequirementChange) => string][],
): string[] {
  if (rows.length === 0) return [`## ${title}`, '', 'None.', ''];
  return [
    `## ${title}`,
    '',
    `| Requirement | Level | ${columns.map(([name]) => name).join(' | ')} |`,
    `|---|---|${columns.map(() => '---|').join('')}`,
    ...rows.map((c) => `| ${c.id} | ${c.level} | ${columns.map(([, value]) => cell(value(c))).join(' | ')} |`),
    '',
  ];
}

export function diffMarkdown(diff: RecordDiff): string {
  const describe = (side: RecordDiff['old']) =>
    `\`${side.file}\` (${side.verdict}${side.startedAt ? `, ${side.startedAt}` : ''}${side.target ? `, ${side.target}` : ''})`;
  return [
    `# Conformance diff: ${diff.regressions.length > 0 ? `${diff.regressions.length} regression${diff.regressions.length === 1 ? '' : 's'}` : 'no regression'}`,
    '',
    `- Old: ${describe(diff.old)}`,
    `- New: ${describe(diff.new)}`,
    '',
    ...(diff.sameTarget
      ? []
      : [
          `**The two records name different targets** (${diff.old.target ?? 'none'} and ${diff.new.target ?? 'none'}): this compares two implementations, not two runs of one.`,
          '',
        ]),
    ...section('Newly failing', diff.newlyFailing, [
      ['Was', (c) => c.before],
      ['Now', (c) => c.after],
      ['Evidence', (c) => c.evidenceAfter ?? ''],
    ]),
    ...section('Fixed', diff.fixed, [
      ['Was', (c) => c.before],
      ['Evidence before', (c) => c.evidenceBefore ?? ''],
    ]),
    ...section('Changed evidence', diff.changedEvidence, [
      ['Before', (c) => c.evidenceBefore ?? ''],
      ['Now', (c) => c.evidenceAfter ?? ''],
    ]),
    ...section('Other changes', diff.otherChanges, [
      ['Was', (c) => c.before],
      ['Now', (c) => c.after],
    ]),
  ].join('\n');
}
