// The generated inputs (run --generate) as the reports show them: the record's `generated`
// section gathered from each generated case's attachment, and its renderings, one entry per
// operation and requirement: a JUnit test suite of its own, an HTML section, a summary paragraph.
// Failures are evidence of their requirements in the record as well; these only add where they
// came from, the minimal input and its curl line.
import type { TestResult } from '@playwright/test/reporter';
import { GENERATION_ATTACHMENT, type GeneratedOperation, type GeneratedRequirement, type GenerationSettings } from '../run-protocol/index.ts';
import { escape } from './certification-html.ts';
import type { CertificationRecord, GeneratedRecord } from './record.ts';
import { attribute, text } from './requirements-junit.ts';

/** The GeneratedOperation a generated case attached; undefined for other cases, or one that ended before it attached. */
export function generatedOperationOf(result: TestResult): GeneratedOperation | undefined {
  const attachment = result.attachments.find((a) => a.name === GENERATION_ATTACHMENT);
  if (!attachment?.body) return undefined;
  try {
    const value = JSON.parse(attachment.body.toString('utf8')) as GeneratedOperation;
    return typeof value?.operation === 'string' && Array.isArray(value.requirements) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function generatedRecord(settings: GenerationSettings, operations: GeneratedOperation[]): GeneratedRecord {
  const ordered = [...operations].sort((a, b) => a.operation.localeCompare(b.operation));
  return { inputs: settings.inputs, seed: settings.seed, operationBudgetMs: settings.operationBudgetMs, totalBudgetMs: settings.totalBudgetMs, operations: ordered };
}

/** One row per operation and requirement. */
export function generatedRows(generated: GeneratedRecord): { operation: GeneratedOperation; requirement: GeneratedRequirement }[] {
  return generated.operations.flatMap((operation) => operation.requirements.map((requirement) => ({ operation, requirement })));
}

/** What generation was asked for and did, in one line. */
export function generatedSummaryLine(generated: GeneratedRecord): string {
  const sent = generated.operations.reduce((sum, o) => sum + o.inputs.sent, 0);
  const failed = generatedRows(generated).filter((r) => r.requirement.verdict === 'failed').length;
  const stopped = generated.operations.filter((o) => o.stopped).map((o) => `${o.operation} stopped early: ${o.stopped}`);
  return [`${generated.inputs} inputs per operation from seed ${generated.seed}, ${sent} requests sent, ${failed} requirement${failed === 1 ? '' : 's'} failed`, ...stopped].join('; ');
}

// --- JUnit --------------------------------------------------------------------------------------

/** The <testsuite> of the generated inputs: a test case per operation and requirement, a failure with the minimal input's curl line. */
export function generatedJunitSuite(record: CertificationRecord): { xml: string; tests: number; failures: number } | undefined {
  if (!record.generated) return undefined;
  const rows = generatedRows(record.generated);
  const cases = rows.map(({ operation, requirement }) => {
    const open = `    <testcase name="${attribute(`${operation.operation} · ${requirement.id}`)}" classname="generated ${attribute(operation.operation)}" time="0">`;
    const example = requirement.counterexample;
    const body = example
      ? [`      <failure message="${attribute(`${requirement.id}: ${example.message} | reproduce: ${example.curl}`)}" type="generated">${text(`${example.method} ${example.path} → ${example.status ?? 'no answer'}, shrunk in ${example.shrinks} steps\n${example.curl}`)}</failure>`]
      : [`      <system-out>${text(`${requirement.inputs} generated inputs judged`)}</system-out>`];
    return [open, ...body, '    </testcase>'].join('\n');
  });
  const failures = rows.filter((r) => r.requirement.verdict === 'failed').length;
  const xml = [`  <testsuite name="${attribute(`generated inputs (seed ${record.generated.seed})`)}" tests="${rows.length}" failures="${failures}" errors="0" skipped="0" time="0" timestamp="${attribute(record.startedAt)}">`, ...cases, '  </testsuite>'].join('\n');
  return { xml, tests: rows.length, failures };
}

// --- HTML -----------------------------------------------------------------------------------------

/** The body of the HTML report's section on generated inputs. */
export function generatedHtml(generated: GeneratedRecord): string {
  const rows = generatedRows(generated).map(({ operation, requirement }) => {
    const example = requirement.counterexample;
    const detail = example
      ? `${escape(example.message)} (<code>${escape(example.method)} ${escape(example.path.length > 300 ? `${example.path.slice(0, 300)}…` : example.path)}</code> → ${example.status ?? 'no answer'}, shrunk in ${example.shrinks} steps)<pre style="white-space: pre-wrap; word-break: break-all">${escape(example.curl)}</pre>`
      : '';
    return `<tr class="${requirement.verdict}"><td><code>${escape(operation.operation)}</code></td><td><code>${escape(requirement.id)}</code></td><td>${requirement.verdict}</td><td class="number">${requirement.inputs}</td><td>${detail}</td></tr>`;
  });
  return `<p>${escape(generatedSummaryLine(generated))}.</p><table><thead><tr><th>Operation</th><th>Requirement</th><th>Verdict</th><th>Inputs</th><th>Minimal input</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
