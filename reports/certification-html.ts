// certification.html: the certification record as one self-contained page for a person. The
// verdict first, then the target and the run, the requirements that need attention with their
// evidence (request, response status, expected and actual, curl with a copy button), and every
// requirement of the catalogue in one table. It renders conformance.json and nothing else.
import { generatedHtml } from './generated.ts';
import { LEVELS } from '../contract/index.ts';
import type { CertificationRecord, RecordedEvidence, RequirementRecord } from './record.ts';
import { blocksRun, exchangeText, omittedCount, reasonText, runVerdictOf, verdictOf, type RequirementVerdictName } from './requirement-outcomes.ts';

const VERDICT_COLUMNS: { verdict: RequirementVerdictName; heading: string }[] = [
  { verdict: 'passed', heading: 'passed' },
  { verdict: 'failed', heading: 'failed' },
  { verdict: 'warning', heading: 'warned' },
  { verdict: 'waived', heading: 'waived' },
  { verdict: 'not-run', heading: 'not run' },
];
const VERDICT_WORDS: Record<string, string> = { passed: 'passed', failed: 'failed', warning: 'warning', waived: 'waived', 'not-run': 'not run' };

/** Text as HTML content or attribute value. */
export function escape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Inline code spans of the catalogue's texts (`meta.pages`) as <code>. */
function richText(value: string): string {
  return escape(value).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** INFO requirements record observations: "passed" would claim more than they check. */
function verdictWord(requirement: RequirementRecord): string {
  const verdict = verdictOf(requirement);
  if (requirement.level === 'INFO' && verdict === 'passed') return 'recorded';
  return VERDICT_WORDS[verdict] ?? verdict;
}

function badge(record: CertificationRecord, requirement: RequirementRecord): string {
  const blocking = blocksRun(record, requirement) ? ' blocking' : '';
  return `<span class="badge ${escape(verdictOf(requirement))}${blocking}">${escape(verdictWord(requirement))}</span>`;
}

function anchor(requirement: RequirementRecord): string {
  return `evidence-${requirement.id}`;
}

// The record's members this page lays out itself; any other member (newer records add the kit's
// commit, the contract's hash, versions, the selection, the inputs given) is listed as it comes.
const LAID_OUT = new Set(['kit', 'spec', 'target', 'failLevel', 'startedAt', 'finishedAt', 'durationMs', 'runStatus', 'verdict', 'verdictReason', 'cases', 'tally', 'requirements']);
const LAID_OUT_WITHIN: Record<string, Set<string>> = { kit: new Set(['name', 'version']), spec: new Set(['title', 'version']), target: new Set(['baseUrl']) };

/** A value of the record as short text: scalars as they are, lists joined, objects as "name: value" pairs. */
function plainValue(value: unknown): string {
  if (value === null) return 'none';
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(plainValue).join(', ');
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${plainValue(v)}`).join('; ');
  return String(value);
}

function moreFacts(record: CertificationRecord): [string, string][] {
  const fields = record as unknown as Record<string, unknown>;
  const within = Object.entries(LAID_OUT_WITHIN).flatMap(([member, known]) => {
    const value = fields[member];
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value as Record<string, unknown>).filter(([k]) => !known.has(k)).map(([k, v]): [string, string] => [`${member} ${k}`, plainValue(v)]);
  });
  const top = Object.entries(fields).filter(([k]) => !LAID_OUT.has(k)).map(([k, v]): [string, string] => [k, plainValue(v)]);
  return [...within, ...top].map(([term, value]) => [escape(term), `<span class="more-fact">${escape(value)}</span>`]);
}

function runFacts(record: CertificationRecord): string {
  const { total, passed, failed, notRun } = record.cases;
  const facts: [string, string][] = [
    ['Target', `<code id="target">${escape(record.target.baseUrl)}</code>`],
    ['Specification', `${escape(record.spec.title)} ${escape(record.spec.version)}`],
    ['Checked by', `${escape(record.kit.name)} ${escape(record.kit.version)}`],
    ['Fails the run', `${escape(record.failLevel)} findings${record.failLevel === 'SHOULD' ? ' and MUST findings' : ''}`],
    ['Run', `${escape(record.startedAt)} to ${escape(record.finishedAt)} (${(record.durationMs / 1000).toFixed(1)} s), ended ${escape(record.runStatus)}`],
    ['Cases', `${total}: ${passed} passed, ${failed} failed, ${notRun} not run`],
    ...moreFacts(record),
  ];
  return `<dl class="facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

function tallyTable(record: CertificationRecord): string {
  const rows = LEVELS.map((level) => {
    const ofLevel = record.requirements.filter((r) => r.level === level);
    const cells = VERDICT_COLUMNS.map(({ verdict }) => {
      const n = ofLevel.filter((r) => verdictOf(r) === verdict).length;
      return `<td class="number${n > 0 ? ` ${verdict}` : ' zero'}">${n}</td>`;
    });
    return `<tr><th scope="row">${level}</th>${cells.join('')}<td class="number">${ofLevel.length}</td></tr>`;
  });
  return `<table id="tally"><thead><tr><th>Level</th>${VERDICT_COLUMNS.map((c) => `<th>${c.heading}</th>`).join('')}<th>total</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function evidenceItem(evidence: RecordedEvidence, id: string): string {
  const rows: [string, string | undefined][] = [
    ['Case', evidence.case],
    ['Request', evidence.method ? `${evidence.method} ${evidence.path ?? ''}` : undefined],
    ['Response', evidence.method ? (evidence.status !== undefined ? String(evidence.status) : 'no answer') : undefined],
    ['Where', evidence.pointer],
    ['Expected', evidence.expected],
    ['Actual', evidence.actual],
  ];
  const curl = evidence.curl
    ? `<div class="curl"><pre id="${id}"><code>${escape(evidence.curl)}</code></pre><button type="button" class="copy" data-copy="${id}">Copy curl</button></div>`
    : '';
  return `<li class="finding"><p class="message">${escape(evidence.message)}</p><table class="exchange">${rows
    .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
    .map(([name, value]) => `<tr><th scope="row">${name}</th><td><code>${escape(value)}</code></td></tr>`)
    .join('')}</table>${curl}</li>`;
}

function requirementEvidence(record: CertificationRecord, requirement: RequirementRecord, index: number, open: boolean): string {
  const reason = reasonText(requirement);
  const omitted = omittedCount(requirement);
  const items = requirement.evidence.map((e, i) => evidenceItem(e, `curl-${index}-${i}`));
  // The first finding is open; the others wait one click away, so one requirement never buries the rest.
  const rest = items.length > 1 ? `<li class="rest"><details><summary>${items.length - 1} more finding${items.length === 2 ? '' : 's'}</summary><ol class="findings" start="2">${items.slice(1).join('')}</ol></details></li>` : '';
  return `<details class="requirement ${escape(verdictOf(requirement))}" id="${anchor(requirement)}"${open ? ' open' : ''}><summary>${badge(record, requirement)} <strong>${escape(requirement.id)}</strong> <span class="level">${requirement.level}, section ${escape(requirement.section)}</span> <span class="text">${richText(requirement.text)}</span></summary>${
    reason ? `<p class="reason">${escape(reason)}</p>` : ''
  }${items.length > 0 ? `<ol class="findings">${items[0]}${rest}</ol>` : ''}${omitted > 0 ? `<p class="omitted">${omitted} more finding${omitted === 1 ? '' : 's'} counted in conformance.json.</p>` : ''}</details>`;
}

function firstEvidenceCell(requirement: RequirementRecord): string {
  const first = requirement.evidence[0];
  if (!first) return escape(reasonText(requirement) ?? '');
  const exchange = exchangeText(first);
  const more = requirement.evidence.length + omittedCount(requirement) - 1;
  return `<a href="#${anchor(requirement)}">${escape(first.message)}</a>${exchange ? ` <span class="exchange-line">${escape(exchange)}</span>` : ''}${more > 0 ? ` <span class="more">+${more}</span>` : ''}`;
}

function requirementsTable(record: CertificationRecord): string {
  const rows = record.requirements.map(
    (r) =>
      `<tr class="${escape(verdictOf(r))}" data-requirement="${escape(r.id)}"><td class="id"><code>${escape(r.id)}</code></td><td>${r.level}</td><td>${escape(r.section)}</td><td>${richText(r.text)}</td><td>${badge(record, r)}</td><td class="number">${r.cases}${(r.regressionCases ?? []).map((name) => `<br><small class="regression">regression: ${escape(name)}</small>`).join('')}</td><td class="number">${r.judged ?? ''}</td><td class="number">${r.broken ?? ''}</td><td>${firstEvidenceCell(r)}</td></tr>`,
  );
  return `<table id="requirements"><thead><tr><th>Requirement</th><th>Level</th><th>Section</th><th>Text</th><th>Verdict</th><th>Cases</th><th title="exchanges a check that can break it judged">Judged</th><th title="of those, the ones that broke it">Broken</th><th>First finding or reason</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const STYLE = `
:root { color-scheme: light; --failed: #b3261e; --passed: #1e7b34; --warning: #9a6700; --waived: #5b4bb7; --not-run: #5f6368; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
main { max-width: 1200px; margin: 0 auto; padding: 0 1.5rem 3rem; }
.banner { padding: 1.5rem; color: #fff; }
.banner > div { max-width: 1200px; margin: 0 auto; }
.banner.passed { background: var(--passed); } .banner.failed { background: var(--failed); } .banner.incomplete { background: var(--warning); }
.banner h1 { margin: 0; font-size: 2rem; letter-spacing: .04em; }
.banner p { margin: .25rem 0 0; font-size: 1.05rem; }
h2 { margin: 2rem 0 .75rem; font-size: 1.2rem; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1.2rem; margin: 1.5rem 0 0; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid var(--line); padding: .35rem .55rem; text-align: left; vertical-align: top; }
thead th { background: #eef1f4; }
#tally { width: auto; } td.number { text-align: right; font-variant-numeric: tabular-nums; } td.zero { color: #8c959f; }
td.failed { color: var(--failed); font-weight: 700; } td.warning { color: var(--warning); font-weight: 700; } td.waived { color: var(--waived); font-weight: 700; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-size: 12px; font-weight: 600; color: #fff; background: var(--not-run); white-space: nowrap; }
.badge.passed { background: var(--passed); } .badge.failed { background: var(--failed); } .badge.warning { background: var(--warning); } .badge.waived { background: var(--waived); }
td.id { white-space: nowrap; }
li.rest { list-style: none; } li.rest summary { color: #0969da; }
tr.failed td:first-child { border-left: 4px solid var(--failed); } tr.warning td:first-child { border-left: 4px solid var(--warning); } tr.waived td:first-child { border-left: 4px solid var(--waived); }
.exchange-line, .more, .level { color: #57606a; font-size: 13px; }
details.requirement { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .75rem; padding: .5rem .9rem; }
details.requirement.failed { border-left: 5px solid var(--failed); } details.requirement.warning { border-left: 5px solid var(--warning); } details.requirement.waived { border-left: 5px solid var(--waived); }
details summary { cursor: pointer; }
.findings { padding-left: 1.2rem; } .finding { margin: .75rem 0; } .finding .message { margin: 0 0 .35rem; font-weight: 600; }
.exchange { width: auto; margin-bottom: .4rem; } .exchange th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
.curl { display: flex; gap: .5rem; align-items: flex-start; }
.curl pre { flex: 1; margin: 0; padding: .5rem .7rem; background: #1f2328; color: #f6f8fa; border-radius: 4px; white-space: pre-wrap; word-break: break-all; }
button.copy { font: inherit; font-size: 13px; padding: .3rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; white-space: nowrap; }
button.copy.copied { background: #dafbe1; }
.none { color: #57606a; }
`;

// The copy buttons: the clipboard API where the page may use it, a selected text area otherwise.
const SCRIPT = `
for (const button of document.querySelectorAll('button.copy')) {
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    button.textContent = 'Copied';
    button.classList.add('copied');
  });
}
`;

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${title}</h2>${body}</section>`;
}

export function certificationHtml(record: CertificationRecord): string {
  const verdict = runVerdictOf(record);
  const attention = record.requirements.filter((r) => blocksRun(record, r) || ['failed', 'warning', 'waived'].includes(verdictOf(r)));
  const observations = record.requirements.filter((r) => r.level === 'INFO' && r.evidence.length > 0);
  let index = 0;
  const details = (requirements: RequirementRecord[], open: boolean) =>
    requirements.length > 0 ? requirements.map((r) => requirementEvidence(record, r, index++, open)).join('') : '<p class="none">None.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${escape(verdict.toUpperCase())}: ${escape(record.spec.title)} ${escape(record.spec.version)} at ${escape(record.target.baseUrl)}</title>
<style>${STYLE}</style>
</head>
<body>
<header id="verdict" class="banner ${escape(verdict)}"><div><h1>${escape(verdict.toUpperCase())}</h1><p id="verdict-reason">${escape(record.verdictReason)}</p>${runFacts(record)}</div></header>
<main>
${section('summary', 'Requirements by level', tallyTable(record))}
${section('attention', 'Needs attention', details(attention, true))}
${section('all', 'Every requirement', requirementsTable(record))}
${section('observations', 'Observations', details(observations, false))}
${record.generated ? section('generated', 'Generated inputs', generatedHtml(record.generated)) : ''}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
