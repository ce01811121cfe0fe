// docs/requirements.md, rendered from the requirement catalogue (schemas/requirements.yaml):
// `npm run docs:requirements` writes it and a test keeps the two from drifting apart. When the
// catalogue gives a requirement its basis (the statement of the specification behind it), the
// table shows it.
import { LEVELS, type Level, type Requirement } from '../contract/index.ts';

function basisOf(requirement: Requirement): string | undefined {
  const basis = (requirement as { basis?: unknown }).basis;
  return typeof basis === 'string' && basis.trim() !== '' ? basis : undefined;
}

function cell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** What a run that judged it nowhere reports, and whether that leaves the run complete. */
function notExercisedText(requirement: Requirement): string {
  const policy = requirement.notExercised;
  if (!policy) return '';
  return `${policy.reason}${policy.byTargetChoice ? " (the target's choice: the run stays complete)" : ''}`;
}

function checkedBy(requirement: Requirement): string {
  const parts = requirement.checkedBy ?? ['suite', 'proxy'];
  return parts.join(', ');
}

export function requirementsMarkdown(requirements: Requirement[]): string {
  const withBasis = requirements.some((r) => basisOf(r) !== undefined);
  const count = (level: Level) => requirements.filter((r) => r.level === level).length;
  const withPolicy = requirements.some((r) => r.notExercised !== undefined);
  const header = [
    'Id',
    'Level',
    'Section',
    'Requirement',
    'Checked by',
    ...(withBasis ? ['Basis in the specification'] : []),
    ...(withPolicy ? ['Not exercised when'] : []),
  ];
  const rows = requirements.map((r) => [
    `\`${r.id}\``,
    r.level,
    r.section,
    cell(r.text),
    checkedBy(r),
    ...(withBasis ? [cell(basisOf(r) ?? '')] : []),
    ...(withPolicy ? [cell(notExercisedText(r))] : []),
  ]);
  return [
    '# Requirements',
    '',
    '<!-- Generated from schemas/requirements.yaml by `npm run docs:requirements`; edit the catalogue, not this file. -->',
    '',
    `Every requirement the kit checks, in the order of the catalogue: ${requirements.length} in all, ${LEVELS.map((l) => `${count(l)} ${l}`).join(', ')}.`,
    'The levels, and how the kit reads the places the specification leaves open, are explained in',
    '[certification.md](certification.md). "Checked by" names the part of the kit that can judge a',
    'requirement: `suite` (`las-conformance run`, which sends its own requests) and `proxy` (the',
    'validating proxy, which sees live traffic). A requirement checked by the proxy only is reported',
    'as not run by the suite. A requirement is passed only when a check that can break it judged an',
    'exchange of the run; "Not exercised when" says what a run in which none did reports, and whether',
    "that is the target's legal choice (otherwise the run is incomplete).",
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ].join('\n');
}
