// certification.html: the certification record as one self-contained page for a person. Its first
// screen answers what a buyer asks first: the verdict, whether a signature vouches for it, the
// target, the kit and contract that checked it, and what needs attention, with its evidence
// (request, response status, expected and actual, curl with a copy button). Below come the tally,
// the run and generation as short tables, and every requirement of the catalogue in one table.
// It renders conformance.json and nothing else.
import { generatedRows, generatedSummaryLine } from './generated.ts';
import { LEVELS, scalarText } from '../contract/index.ts';
import type { CertificationRecord, GeneratedRecord, RecordedEvidence, RequirementRecord } from './record.ts';
import {
  acceptedRequirements,
  evidenceShortestFirst,
  exchangeText,
  failsGate,
  firstFinding,
  gateAcceptance,
  gateToolsUsed,
  omittedCount,
  reasonText,
  runVerdictOf,
  shownVerdict,
  verdictOf,
  verdictReasonShown,
  type GateAcceptance,
  type RequirementVerdictName,
} from './requirement-outcomes.ts';
import { optionalInputs, recordsGiven } from './record.ts';
import { signatureText, UNSIGNED_RECORD, type RecordSignature } from './attestation.ts';
import type { Counterexample } from '../run-protocol/index.ts';
import { reproductionText } from '../run-protocol/reproduction.ts';

type ShownVerdict = RequirementVerdictName | GateAcceptance['kind'];

const VERDICT_COLUMNS: { verdict: ShownVerdict; heading: string }[] = [
  { verdict: 'passed', heading: 'passed' },
  { verdict: 'failed', heading: 'failed' },
  { verdict: 'warning', heading: 'warned' },
  { verdict: 'waived', heading: 'waived' },
  { verdict: 'known failure', heading: 'known (baseline)' },
  { verdict: 'not-run', heading: 'not run' },
];
const VERDICT_WORDS: Record<string, string> = {
  passed: 'passed',
  failed: 'failed',
  warning: 'warning',
  waived: 'waived',
  'known failure': 'known failure',
  'not-run': 'not run',
};

/** The verdict as a CSS class name. */
function verdictClass(verdict: ShownVerdict): string {
  return verdict.replace(/ /g, '-');
}

/** Text as HTML content or attribute value. */
function escape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Inline code spans of the catalogue's texts (`meta.pages`) as <code>. */
function richText(value: string): string {
  return escape(value).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * INFO requirements record observations: "passed" would claim more than they check. A failure the gate accepts shows
 * how.
 */
function verdictWord(record: CertificationRecord, requirement: RequirementRecord): string {
  const verdict = shownVerdict(record, requirement);
  if (requirement.level === 'INFO' && verdict === 'passed') return 'recorded';
  return VERDICT_WORDS[verdict] ?? verdict;
}

function badge(record: CertificationRecord, requirement: RequirementRecord): string {
  const blocking = failsGate(record, requirement) ? ' blocking' : '';
  return `<span class="badge ${escape(verdictClass(shownVerdict(record, requirement)))}${blocking}">${escape(verdictWord(record, requirement))}</span>`;
}

function anchor(requirement: RequirementRecord): string {
  return `evidence-${requirement.id}`;
}

// The record's members this page lays out itself, as people read them; a member a newer record
// adds is still shown, as a nested list of its names and values.
const LAID_OUT = new Set([
  'format',
  'kit',
  'contract',
  'environment',
  'spec',
  'target',
  'selection',
  'inputs',
  'failLevel',
  'startedAt',
  'finishedAt',
  'durationMs',
  'runStatus',
  'verdict',
  'verdictReason',
  'notRun',
  'gate',
  'cases',
  'tally',
  'requirements',
  'generated',
  'generationOff',
]);
const LAID_OUT_WITHIN: Record<string, Set<string>> = {
  kit: new Set(['name', 'version', 'commit']),
  contract: new Set(['sha256']),
  environment: new Set(['node', 'playwright', 'platform']),
  spec: new Set(['title', 'version']),
  target: new Set(['baseUrl', 'embedded', 'faults', 'choices']),
  selection: new Set(['whole', 'grep', 'grepInvert', 'shard', 'filters', 'readOnly', 'requirements']),
  inputs: new Set(['forbiddenToken', 'records', 'legacyHeader', 'ca', 'headers']),
  gate: new Set(['result', 'reason', 'allowPartial', 'waived', 'expiredWaivers', 'baseline']),
};

/** A member's name as words: `operationBudgetMs` → `operation budget ms`. */
export function nameAsWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

/** A value of the record a newer kit added: scalars as text, lists and objects as nested lists, names as words. */
function nestedValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value))
    return value.length === 0
      ? 'none'
      : `<ul class="nested">${value.map((v) => `<li>${nestedValue(v)}</li>`).join('')}</ul>`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `<dl class="nested">${entries.map(([k, v]) => `<dt>${escape(nameAsWords(k))}</dt><dd>${nestedValue(v)}</dd>`).join('')}</dl>`;
  }
  return escape(scalarText(value));
}

function moreFacts(record: CertificationRecord): [string, string][] {
  const fields = record as unknown as Record<string, unknown>;
  const within = Object.entries(LAID_OUT_WITHIN).flatMap(([member, known]) => {
    const value = fields[member];
    if (value === null || typeof value !== 'object') return [];
    // A format 3 record names each kind of record as a member of inputs: laid out with the others.
    const laidOut = member === 'inputs' ? new Set([...known, ...Object.keys(recordsGiven(record.inputs))]) : known;
    const added = Object.entries(value as Record<string, unknown>).filter(([k]) => !laidOut.has(k));
    return added.map(([k, v]): [string, unknown] => [`${member} ${k}`, v]);
  });
  const top = Object.entries(fields).filter(([k]) => !LAID_OUT.has(k));
  const fact = (value: unknown) => `<span class="more-fact">${nestedValue(value)}</span>`;
  return [...within, ...top].map(([term, value]) => [escape(nameAsWords(term)), fact(value)]);
}

function list(items: string[]): string {
  return items.map((item) => `<code>${escape(item)}</code>`).join(', ');
}

function targetFact(record: CertificationRecord): string {
  const { target } = record;
  const lines = [`<code id="target">${escape(target.baseUrl)}</code>`];
  if (target.embedded) lines.push("the kit's reference server, started for this run");
  if (target.faults.length > 0)
    lines.push(`with fault${target.faults.length === 1 ? '' : 's'} ${list(target.faults)} on`);
  if (target.choices.length > 0)
    lines.push(`with choice${target.choices.length === 1 ? '' : 's'} ${list(target.choices)} on`);
  return lines.join('<br>');
}

function checkedByFact(record: CertificationRecord): string {
  const { kit, contract, environment } = record;
  const lines = [
    `${escape(kit.name)} ${escape(kit.version)}${kit.commit ? ` (commit <code>${escape(kit.commit)}</code>)` : ''}`,
  ];
  if (contract.sha256)
    lines.push(
      `contract SHA-256 <code class="hash" title="${escape(contract.sha256)}">${escape(contract.sha256.slice(0, 12))}…</code>`,
    );
  lines.push(
    `Node ${escape(environment.node)}, Playwright ${escape(environment.playwright)}, ${escape(environment.platform)}`,
  );
  return lines.join('<br>');
}

function selectionFact(record: CertificationRecord): string {
  const selection = record.selection as CertificationRecord['selection'] & { requirements?: string[] };
  const lines: string[] = [];
  if (selection.whole) lines.push('every case of the suite');
  if (selection.requirements?.length)
    lines.push(`the cases that can judge ${list(selection.requirements)} (--requirement)`);
  else if (selection.grep !== undefined)
    lines.push(`the cases whose titles match <code>${escape(selection.grep)}</code> (--grep)`);
  if (selection.grepInvert !== undefined)
    lines.push(`without those matching <code>${escape(selection.grepInvert)}</code> (--grep-invert)`);
  if (selection.shard) lines.push(`shard ${selection.shard.current} of ${selection.shard.total}`);
  if (selection.filters?.length) lines.push(`Playwright filters ${list(selection.filters)}`);
  if (selection.readOnly) lines.push('read-only: no request that could create a record was sent');
  return lines.join('<br>');
}

function inputsFact(record: CertificationRecord): string {
  const inputs = optionalInputs(record.inputs);
  const given = inputs.filter((input) => input.given).map((input) => input.name);
  const missing = inputs.filter((input) => !input.given).map((input) => input.name);
  const lines = [
    given.length > 0 ? `given: ${given.join(', ')}` : 'none of the optional inputs',
    ...(missing.length > 0 ? [`not given: ${missing.join(', ')}`] : []),
  ];
  if (record.inputs.headers.length > 0)
    lines.push(`extra headers ${list(record.inputs.headers)} (values never recorded)`);
  return lines.join('<br>');
}

function gateFact(record: CertificationRecord): string {
  const { gate } = record;
  const lines = [`<strong>${escape(gate.result)}</strong>: ${escape(gate.reason)}`];
  for (const { requirement, acceptance } of acceptedRequirements(record))
    lines.push(`<code>${escape(requirement.id)}</code> ${escape(acceptance.why)}`);
  if (gate.expiredWaivers.length > 0) lines.push(`waiver expired for ${list(gate.expiredWaivers)}`);
  if (gate.baseline)
    lines.push(
      `baseline <code>${escape(gate.baseline.file)}</code>: ${gate.baseline.newlyFailing.length} newly failing, ${gate.baseline.knownFailures.length} known`,
    );
  if (gate.allowPartial) lines.push('--allow-partial: a partial run passes');
  return lines.join('<br>');
}

/** An ISO instant as people read it: `2026-01-01 09:30:12 UTC`. */
function timeText(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
}

function sameDay(a: string, b: string): boolean {
  return a.slice(0, 10) === b.slice(0, 10);
}

/** Two columns, a name and its value in words, per row: the page's short tables. */
function factsTable(id: string, facts: [string, string][]): string {
  const rows = facts.map(([term, value]) => `<tr><th scope="row">${term}</th><td>${value}</td></tr>`);
  return `<table class="facts" id="${id}"><tbody>${rows.join('')}</tbody></table>`;
}

function secondsText(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** What generation was asked for, in words. */
function generationSettingsFact(generated: GeneratedRecord): string {
  const budget = `at most ${budgetText(generated)}`;
  return `${generated.inputs} random inputs per operation after the boundary phase, from seed ${generated.seed}; ${budget}`;
}

/** Generation's time budgets: `120 s per operation, 300 s in all`. */
function budgetText(generated: GeneratedRecord): string {
  return `${secondsText(generated.operationBudgetMs)} per operation, ${secondsText(generated.totalBudgetMs)} in all`;
}

function runFacts(record: CertificationRecord): string {
  const { total, passed, failed, notRun } = record.cases;
  const generation: [string, string][] = record.generated
    ? [['Generated inputs', `${escape(generationSettingsFact(record.generated))} (<a href="#generated">below</a>)`]]
    : record.generationOff
      ? [['Generated inputs', 'off (run --generate 0)']]
      : [];
  const facts: [string, string][] = [
    ['Target', targetFact(record)],
    ['Specification', `${escape(record.spec.title)} ${escape(record.spec.version)}`],
    ['Checked by', checkedByFact(record)],
    ['Selection', selectionFact(record)],
    ['Optional inputs', inputsFact(record)],
    [
      'Fails the run',
      `${escape(record.failLevel)} findings${record.failLevel === 'SHOULD' ? ' and MUST findings' : ''}`,
    ],
    [
      'Run',
      `${escape(timeText(record.startedAt))} to ${escape(sameDay(record.startedAt, record.finishedAt) ? timeText(record.finishedAt).slice(11) : timeText(record.finishedAt))} (${(record.durationMs / 1000).toFixed(1)} s), ended ${escape(record.runStatus)}`,
    ],
    ['Cases', `${total}: ${passed} passed, ${failed} failed, ${notRun} not run`],
    ['Gate', gateFact(record)],
    ...generation,
    ...moreFacts(record),
  ];
  return factsTable('run-facts', facts);
}

function tallyTable(record: CertificationRecord): string {
  // The baseline's column only when the run had one.
  const columns = VERDICT_COLUMNS.filter((c) => c.verdict !== 'known failure' || record.gate.baseline !== undefined);
  const rows = LEVELS.map((level) => {
    const ofLevel = record.requirements.filter((r) => r.level === level);
    const cells = columns.map(({ verdict }) => {
      const n = ofLevel.filter((r) => shownVerdict(record, r) === verdict).length;
      return `<td class="number${n > 0 ? ` ${verdictClass(verdict)}` : ' zero'}">${n}</td>`;
    });
    return `<tr><th scope="row">${level}</th>${cells.join('')}<td class="number">${ofLevel.length}</td></tr>`;
  });
  return `<div class="scroll"><table id="tally"><thead><tr><th>Level</th>${columns.map((c) => `<th>${c.heading}</th>`).join('')}<th>total</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
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
    ? `<div class="curl"><pre id="${id}"><code>${escape(wrappedCurl(evidence.curl))}</code></pre><button type="button" class="copy" data-copy="${id}">Copy curl</button></div>`
    : '';
  return `<li class="finding"><p class="message">${escape(evidence.message)}</p><table class="exchange">${rows
    .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
    .map(([name, value]) => `<tr><th scope="row">${name}</th><td><code>${escape(value)}</code></td></tr>`)
    .join('')}</table>${curl}</li>`;
}

function requirementEvidence(
  record: CertificationRecord,
  requirement: RequirementRecord,
  index: number,
  open: boolean,
): string {
  const reason = reasonText(requirement, record);
  const omitted = omittedCount(requirement);
  const items = evidenceShortestFirst(requirement).map((e, i) => evidenceItem(e, `curl-${index}-${i}`));
  // The first finding is open; the others wait one click away, so one requirement never buries the rest.
  const rest =
    items.length > 1
      ? `<li class="rest"><details><summary>${items.length - 1} more finding${items.length === 2 ? '' : 's'}</summary><ol class="findings" start="2">${items.slice(1).join('')}</ol></details></li>`
      : '';
  return `<details class="requirement ${escape(verdictClass(shownVerdict(record, requirement)))}" id="${anchor(requirement)}"${open ? ' open' : ''}><summary>${badge(record, requirement)} <strong>${escape(requirement.id)}</strong> <span class="level">${requirement.level}, section ${escape(requirement.section)}</span> <span class="text">${richText(requirement.text)}</span></summary>${
    reason ? `<p class="reason">${escape(reason)}</p>` : ''
  }${items.length > 0 ? `<ol class="findings">${items[0]}${rest}</ol>` : ''}${omitted > 0 ? `<p class="omitted">${omitted} more finding${omitted === 1 ? '' : 's'} counted in conformance.json.</p>` : ''}</details>`;
}

function firstEvidenceCell(record: CertificationRecord, requirement: RequirementRecord): string {
  const first = firstFinding(requirement);
  const acceptance = gateAcceptance(record, requirement);
  const accepted = acceptance ? `<span class="accepted-why">${escape(acceptance.why)}</span> ` : '';
  if (!first) return escape(reasonText(requirement, record) ?? '');
  const exchange = exchangeText(first);
  const more = requirement.evidence.length + omittedCount(requirement) - 1;
  return `${accepted}<a href="#${anchor(requirement)}">${escape(first.message)}</a>${exchange ? ` <span class="exchange-line">${escape(exchange)}</span>` : ''}${more > 0 ? ` <span class="more">+${more}</span>` : ''}`;
}

function requirementsTable(record: CertificationRecord): string {
  const rows = record.requirements.map(
    (r) =>
      `<tr class="${escape(verdictClass(shownVerdict(record, r)))}" data-requirement="${escape(r.id)}"><td class="id"><code>${escape(r.id)}</code></td><td class="col-level" data-label="Level">${r.level}</td><td class="col-section" data-label="Section">${escape(r.section)}</td><td class="text">${richText(r.text)}</td><td class="col-verdict">${badge(record, r)}</td><td class="number col-cases" data-label="Cases">${r.cases}${(r.regressionCases ?? []).map((name) => `<br><small class="regression">regression: ${escape(name)}</small>`).join('')}</td><td class="number col-judged" data-label="Judged">${r.judged ?? ''}</td><td class="number col-broken" data-label="Broken">${r.broken ?? ''}</td><td class="evidence">${firstEvidenceCell(record, r)}</td></tr>`,
  );
  return `<div class="scroll"><table id="requirements"><thead><tr><th>Requirement</th><th>Level</th><th>Section</th><th>Text</th><th>Verdict</th><th>Cases</th><th title="exchanges a check that can break it judged">Judged</th><th title="of those, the ones that broke it">Broken</th><th>First finding or reason</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

const STYLE = `
:root { color-scheme: light; --failed: #b3261e; --passed: #1e7b34; --warning: #9a6700; --waived: #5b4bb7; --not-run: #5f6368; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
main { max-width: 1200px; margin: 0 auto; padding: 0 1.5rem 3rem; }
.banner { padding: 1.5rem; color: #fff; }
.banner { padding-left: 0; padding-right: 0; }
.banner > div { max-width: 1200px; margin: 0 auto; padding: 0 1.5rem; }
.banner.passed { background: var(--passed); } .banner.failed { background: var(--failed); } .banner.incomplete { background: var(--warning); } .banner.accepted { background: var(--waived); }
#signature { display: inline-block; margin-top: .35rem; padding: .2rem .6rem; border-radius: 4px; font-weight: 600; background: rgba(0, 0, 0, .25); }
#gate { margin-top: .5rem; padding: .35rem .6rem; background: rgba(255, 255, 255, .15); border-radius: 4px; display: inline-block; }
.banner h1 { margin: 0; font-size: 2rem; letter-spacing: .04em; }
.banner p { margin: .25rem 0 0; font-size: 1.05rem; }
.banner #checked-by { font-size: .95rem; opacity: .9; }
h2 { margin: 2rem 0 .75rem; font-size: 1.2rem; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table.facts { width: auto; max-width: 100%; margin-bottom: .75rem; } table.facts td { overflow-wrap: anywhere; }
table.facts th { font-weight: 600; color: #57606a; background: #f6f8fa; white-space: nowrap; }
#generated-operations { width: auto; margin-bottom: .75rem; }
#checked-by code, #record-target code { color: inherit; }
dl.nested { display: grid; grid-template-columns: max-content 1fr; gap: 0 .8rem; margin: 0; } ul.nested { margin: 0; padding-left: 1.1rem; }
.scroll { overflow-x: auto; }
.accepted-why { color: var(--waived); font-weight: 600; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid var(--line); padding: .35rem .55rem; text-align: left; vertical-align: top; }
thead th { background: #eef1f4; }
#tally { width: auto; } td.number { text-align: right; font-variant-numeric: tabular-nums; } td.zero { color: #8c959f; }
td.failed { color: var(--failed); font-weight: 700; } td.warning { color: var(--warning); font-weight: 700; } td.waived, td.known-failure { color: var(--waived); font-weight: 700; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-size: 12px; font-weight: 600; color: #fff; background: var(--not-run); white-space: nowrap; }
.badge.passed { background: var(--passed); } .badge.failed { background: var(--failed); } .badge.warning { background: var(--warning); } .badge.waived, .badge.known-failure { background: var(--waived); }
td.id { width: 13rem; }
#requirements td.text { min-width: 16rem; } #requirements td.evidence { min-width: 14rem; overflow-wrap: anywhere; }
.exchange td code { overflow-wrap: anywhere; }
li.rest { list-style: none; } li.rest summary { color: #0969da; }
tr.failed td:first-child { border-left: 4px solid var(--failed); } tr.warning td:first-child { border-left: 4px solid var(--warning); } tr.waived td:first-child, tr.known-failure td:first-child { border-left: 4px solid var(--waived); }
.exchange-line, .more, .level { color: #57606a; font-size: 13px; }
details.requirement { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .75rem; padding: .5rem .9rem; }
details.requirement.failed { border-left: 5px solid var(--failed); } details.requirement.warning { border-left: 5px solid var(--warning); } details.requirement.waived, details.requirement.known-failure { border-left: 5px solid var(--waived); }
details summary { cursor: pointer; }
.findings { padding-left: 1.2rem; } .finding { margin: .75rem 0; } .finding .message { margin: 0 0 .35rem; font-weight: 600; }
.exchange { width: auto; margin-bottom: .4rem; } .exchange th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
.curl { display: flex; gap: .5rem; align-items: flex-start; }
.curl pre { flex: 1; min-width: 0; margin: 0; padding: .5rem .7rem; background: #1f2328; color: #f6f8fa; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; }
button.copy { font: inherit; font-size: 13px; padding: .3rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; white-space: nowrap; }
button.copy.copied { background: #dafbe1; }
.none { color: #57606a; }
@media (max-width: 640px) {
  main { padding: 0 .75rem 2rem; } .banner { padding: 1rem 0; } .banner > div { padding: 0 .75rem; } .banner h1 { font-size: 1.6rem; }
  #requirements thead { display: none; }
  #requirements, #requirements tbody, #requirements tr, #requirements td { display: block; width: auto; min-width: 0; }
  #requirements tr { border: 1px solid var(--line); border-radius: 6px; margin-bottom: .6rem; padding: .4rem .6rem; background: #fff; }
  #requirements td { border: none; padding: .1rem 0; }
  #requirements td.col-level, #requirements td.col-section, #requirements td.col-cases, #requirements td.col-verdict { display: inline-block; margin-right: .8rem; text-align: left; }
  #requirements td[data-label]::before { content: attr(data-label) " "; color: #57606a; }
  #requirements tr.failed td:first-child, #requirements tr.warning td:first-child, #requirements tr.waived td:first-child, #requirements tr.known-failure td:first-child { border-left: none; }
  #requirements tr.failed { border-left: 4px solid var(--failed); } #requirements tr.warning { border-left: 4px solid var(--warning); } #requirements tr.waived, #requirements tr.known-failure { border-left: 4px solid var(--waived); }
  .exchange tr { display: block; border-bottom: 1px solid var(--line); } .exchange th, .exchange td { display: block; border: none; padding: .15rem .4rem; }
  table.facts th, table.facts td { display: block; border: none; padding: .1rem .4rem; }
  table.facts th { white-space: normal; }
  .curl { flex-direction: column; align-items: stretch; } .curl pre { width: 100%; }
  .exchange { width: 100%; }
}
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

/** The banner's colour: the verdict's, but a failed run whose every failure the gate accepts shows as accepted. */
function bannerClass(record: CertificationRecord): string {
  const verdict = runVerdictOf(record);
  return verdict === 'failed' && record.gate.result === 'pass' ? 'accepted' : verdict;
}

/** A curl line over several lines, one option each, continued with a backslash (the shell reads it as one). */
export function wrappedCurl(curl: string): string {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < curl.length; i++) {
    const char = curl[i];
    if (quote) {
      current += char;
      if (char === '\\' && quote === '"' && i + 1 < curl.length) current += curl[++i];
      else if (char === quote) quote = undefined;
    } else if (char === ' ' && /^(-H|--data-binary|-d|--data) /.test(curl.slice(i + 1))) {
      parts.push(current);
      current = '';
    } else {
      if (char === '"' || char === "'") quote = char;
      current += char;
    }
  }
  parts.push(current);
  return parts.join(' \\\n  ');
}

/** A minimal input as the report shows it: its message, request, answer, shrinking and sends, and its curl line. */
function counterexampleHtml(example: Counterexample): string {
  const path = example.path.length > 300 ? `${example.path.slice(0, 300)}…` : example.path;
  const answered = `${example.status ?? 'no answer'}, shrunk in ${example.shrinks} steps, ${reproductionText(example)}`;
  const curl = `<pre style="white-space: pre-wrap; word-break: break-all">${escape(example.curl)}</pre>`;
  const request = `<code>${escape(example.method)} ${escape(path)}</code>`;
  return `${escape(example.message)} (${request} → ${escape(answered)})${curl}`;
}

/** Each operation generation ran for: inputs sent, how long, and why it stopped early, if it did. */
function generatedOperationsTable(generated: GeneratedRecord): string {
  const rows = generated.operations.map((o) => {
    const sent = `${o.inputs.sent} (${o.inputs.valid} valid, ${o.inputs.invalid} invalid)`;
    const cells = [
      `<code>${escape(o.operation)}</code>`,
      escape(sent),
      secondsText(o.durationMs),
      escape(o.stopped ?? 'no'),
    ];
    return `<tr><td>${cells[0]}</td><td class="number">${cells[1]}</td><td class="number">${cells[2]}</td><td>${cells[3]}</td></tr>`;
  });
  const head = '<tr><th>Operation</th><th>Requests sent</th><th>Time</th><th>Stopped early</th></tr>';
  return `<table id="generated-operations"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The body of the HTML report's section on generated inputs: its settings, each operation, each requirement judged. */
export function generatedHtml(generated: GeneratedRecord): string {
  const rows = generatedRows(generated).map(({ operation, requirement }) => {
    const example = requirement.counterexample;
    const detail = example === undefined ? '' : counterexampleHtml(example);
    return `<tr class="${requirement.verdict}"><td><code>${escape(operation.operation)}</code></td><td><code>${escape(requirement.id)}</code></td><td>${requirement.verdict}</td><td class="number">${requirement.inputs}</td><td>${detail}</td></tr>`;
  });
  const settings = factsTable('generation-settings', [
    ['Inputs', `${generated.inputs} random inputs per operation, after the boundary phase`],
    ['Seed', `${generated.seed} (<code>--seed ${generated.seed}</code> draws the same inputs again)`],
    ['Time allowed', budgetText(generated)],
  ]);
  const head = '<tr><th>Operation</th><th>Requirement</th><th>Verdict</th><th>Inputs</th><th>Minimal input</th></tr>';
  const judged = `<table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
  return `<p>${escape(generatedSummaryLine(generated))}.</p>${settings}${generatedOperationsTable(generated)}${judged}`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${title}</h2>${body}</section>`;
}

/** The header's lines under the verdict: the target, and whether a signature vouches for the record. */
function targetAndSignature(record: CertificationRecord, signature: RecordSignature): string {
  const signed = signature.signed ? 'signed' : 'unsigned';
  return `<p id="record-target">Target <code>${escape(record.target.baseUrl)}</code>${record.target.embedded ? ' (the embedded reference server)' : ''}</p><p id="signature" class="${signed}">${escape(signatureText(signature).replace(/^./, (c) => c.toUpperCase()))}</p>`;
}

/** The header's line on what checked the target: the kit, the specification and the contract's digest. */
function checkedByLine(record: CertificationRecord): string {
  const { kit, spec, contract } = record;
  const commit = kit.commit ? ` (commit <code>${escape(kit.commit.slice(0, 12))}</code>)` : '';
  const sha = contract.sha256;
  const digest = sha ? `, contract SHA-256 <code title="${escape(sha)}">${escape(sha.slice(0, 12))}…</code>` : '';
  const checked = `${escape(kit.name)} ${escape(kit.version)}${commit} against ${escape(spec.title)} ${escape(spec.version)}`;
  return `<p id="checked-by">Checked by ${checked}${digest}</p>`;
}

/** The header: the verdict and why, the gate when it had a say, the signature, the target, and what checked it. */
function verdictHeader(record: CertificationRecord, signature: RecordSignature): string {
  const verdict = runVerdictOf(record);
  const { result, reason } = record.gate;
  const gate = gateToolsUsed(record)
    ? `<p id="gate">Gate: <strong>${escape(result.toUpperCase())}</strong>: ${escape(reason)}</p>`
    : '';
  const heading = `<h1>${escape(verdict.toUpperCase())}</h1><p id="verdict-reason">${escape(verdictReasonShown(record))}</p>`;
  const lines = `${targetAndSignature(record, signature)}${checkedByLine(record)}`;
  return `<header id="verdict" class="banner ${escape(bannerClass(record))}"><div>${heading}${gate}${lines}</div></header>`;
}

/**
 * What needs attention: what fails the gate first, then what the gate accepts, then warnings; catalogue order in each.
 */
function attentionOrder(record: CertificationRecord, requirements: RequirementRecord[]): RequirementRecord[] {
  const accepted = (r: RequirementRecord) => gateAcceptance(record, r) !== undefined || verdictOf(r) !== 'warning';
  const rank = (r: RequirementRecord) => (failsGate(record, r) ? 0 : accepted(r) ? 1 : 2);
  return [...requirements].sort((a, b) => rank(a) - rank(b));
}

export function certificationHtml(record: CertificationRecord, signature: RecordSignature = UNSIGNED_RECORD): string {
  const verdict = runVerdictOf(record);
  const needsAttention = (r: RequirementRecord) =>
    failsGate(record, r) || ['failed', 'warning', 'waived'].includes(verdictOf(r));
  const attention = attentionOrder(record, record.requirements.filter(needsAttention));
  const observations = record.requirements.filter((r) => r.level === 'INFO' && r.evidence.length > 0);
  let index = 0;
  const details = (requirements: RequirementRecord[], open: boolean) =>
    requirements.length > 0
      ? requirements.map((r) => requirementEvidence(record, r, index++, open)).join('')
      : '<p class="none">None.</p>';
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
${verdictHeader(record, signature)}
<main>
${section('attention', 'Needs attention', details(attention, true))}
${section('summary', 'Requirements by level', tallyTable(record))}
${section('run', 'The run', runFacts(record))}
${section('all', 'Every requirement', requirementsTable(record))}
${section('observations', 'Observations', details(observations, false))}
${record.generated ? section('generated', 'Generated inputs', generatedHtml(record.generated)) : ''}
${record.generationOff ? section('generated', 'Generated inputs', `<p>Generation was ${escape(record.generationOff)}.</p>`) : ''}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
