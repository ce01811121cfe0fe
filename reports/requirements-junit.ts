// The JUnit file CI systems should ingest: one test case per requirement of the catalogue, named
// by its id and text, with the spec section as class name and the time its cases took. A
// requirement that fails the gate is a <failure> whose message is its first finding with the
// pointer and the curl line; one not run, or one whose failure the gate accepts (a waiver, the
// --baseline), is <skipped> with the reason, so a passing gate never shows a red test (the
// accepted failure's findings stay in its output). Observations and warnings are listed once per
// message. Rendered from the certification record alone. A run that generated inputs adds a test
// suite of them, a test case per operation and requirement; a requirement fails once in the file,
// in its level's suite, so a generated input that broke it is skipped there with a pointer to
// that failure (or with the gate's reason, when the gate accepts it) and its minimal input.
import { LEVELS } from '../contract/index.ts';
import { generatedRows, type GeneratedRow } from './generated.ts';
import { reproductionText } from '../run-protocol/reproduction.ts';
import type { CertificationRecord, RequirementRecord } from './record.ts';
import {
  evidenceShortestFirst,
  failsGate,
  findingText,
  firstFinding,
  gateAcceptance,
  groupedEvidence,
  omittedCount,
  reasonText,
  shownVerdict,
  verdictOf,
  type RequirementVerdictName,
} from './requirement-outcomes.ts';

const SKIPPED: RequirementVerdictName[] = ['not-run', 'waived'];

export function requirementCaseName(requirement: RequirementRecord): string {
  return `${requirement.id} · ${requirement.text}`;
}

export function sectionClassName(requirement: RequirementRecord): string {
  return `section ${requirement.section}`;
}

/** The <failure> message: the first finding, its pointer, and the curl line that reproduces it. */
export function requirementFailureMessage(requirement: RequirementRecord): string {
  const first = firstFinding(requirement);
  if (!first) return `${requirement.id} failed`;
  return `${requirement.id}: ${findingText(first)}${first.curl ? ` | reproduce: ${first.curl}` : ''}`;
}

function evidenceDetail(requirement: RequirementRecord): string {
  const lines = evidenceShortestFirst(requirement).flatMap((e, i) => [
    `${i + 1}. ${findingText(e)}`,
    `   case: ${e.case}`,
    ...(e.curl ? [`   ${e.curl}`] : []),
  ]);
  const omitted = omittedCount(requirement);
  if (omitted > 0) lines.push(`${omitted} more finding${omitted === 1 ? '' : 's'} counted in conformance.json`);
  return lines.join('\n');
}

/** Each message once, with how many cases saw it and the first of them: observations repeat across cases. */
function groupedDetail(requirement: RequirementRecord): string {
  const total = requirement.evidence.length + omittedCount(requirement);
  const lines = groupedEvidence(requirement).flatMap(({ first, count }) => [
    `${findingText(first)}${count > 1 ? ` (seen ${count} times)` : ''}`,
    `   first in case: ${first.case}`,
  ]);
  const omitted = omittedCount(requirement);
  if (omitted > 0) lines.push(`${omitted} more counted in conformance.json`);
  return [`${total} finding${total === 1 ? '' : 's'}:`, ...lines].join('\n');
}

/** Whether a requirement is <skipped>: not run, or a failure the gate accepts. */
function skipped(record: CertificationRecord, requirement: RequirementRecord): boolean {
  return (
    !failsGate(record, requirement) &&
    (gateAcceptance(record, requirement) !== undefined || SKIPPED.includes(verdictOf(requirement)))
  );
}

function skippedMessage(record: CertificationRecord, requirement: RequirementRecord): string {
  const acceptance = gateAcceptance(record, requirement);
  // `why` names the kind itself ("waived until …", "known failure in the baseline …").
  if (acceptance) return acceptance.why;
  return `${verdictOf(requirement) === 'waived' ? 'waived' : 'not run'}: ${reasonText(requirement) ?? 'no reason recorded'}`;
}

function junitSeconds(durationMs: number | undefined): string {
  return ((durationMs ?? 0) / 1000).toFixed(3);
}

function testCase(record: CertificationRecord, requirement: RequirementRecord): string {
  const verdict = shownVerdict(record, requirement);
  const acceptance = gateAcceptance(record, requirement);
  const properties = [
    ['requirement', requirement.id],
    ['level', requirement.level],
    ['section', requirement.section],
    ['verdict', verdict],
    ...(acceptance ? [['gate', acceptance.why]] : []),
    ['cases', String(requirement.cases)],
    ...(requirement.regressionCases ?? []).map((name) => ['regression-case', name]),
    ['judged', String(requirement.judged ?? 0)],
    ['broken', String(requirement.broken ?? 0)],
  ];
  const body = [
    `      <properties>`,
    ...properties.map(([name, value]) => `        <property name="${attribute(name)}" value="${attribute(value)}"/>`),
    `      </properties>`,
  ];
  if (failsGate(record, requirement)) {
    body.push(
      `      <failure message="${attribute(requirementFailureMessage(requirement))}" type="${requirement.level}">${text(evidenceDetail(requirement))}</failure>`,
    );
  } else if (skipped(record, requirement)) {
    body.push(`      <skipped message="${attribute(skippedMessage(record, requirement))}"/>`);
    if (acceptance)
      body.push(
        `      <system-out>${text(`the failure the gate accepts (${acceptance.why}):\n${evidenceDetail(requirement)}`)}</system-out>`,
      );
  } else if (requirement.evidence.length > 0) {
    // A SHOULD warning below the fail level, or an INFO observation: shown, never a failure.
    body.push(
      `      <system-out>${text(`${verdict === 'warning' ? 'warning' : 'observation'}: ${groupedDetail(requirement)}`)}</system-out>`,
    );
  }
  return [
    `    <testcase name="${attribute(requirementCaseName(requirement))}" classname="${attribute(sectionClassName(requirement))}" time="${junitSeconds(requirement.durationMs)}">`,
    ...body,
    `    </testcase>`,
  ].join('\n');
}

function counts(record: CertificationRecord, requirements: RequirementRecord[]) {
  return {
    tests: requirements.length,
    failures: requirements.filter((r) => failsGate(record, r)).length,
    skipped: requirements.filter((r) => skipped(record, r)).length,
    durationMs: requirements.reduce((sum, r) => sum + (r.durationMs ?? 0), 0),
  };
}

function countAttributes(c: ReturnType<typeof counts>): string {
  return `tests="${c.tests}" failures="${c.failures}" errors="0" skipped="${c.skipped}"`;
}

/** junit.xml: a test suite per level, a test case per requirement, in catalogue order. */
export function requirementsJunit(record: CertificationRecord): string {
  const seconds = (record.durationMs / 1000).toFixed(3);
  const suites = LEVELS.map((level) => record.requirements.filter((r) => r.level === level))
    .filter((requirements) => requirements.length > 0)
    .map((requirements) => {
      const level = requirements[0].level;
      return [
        `  <testsuite name="${level} requirements" ${countAttributes(counts(record, requirements))} time="${junitSeconds(counts(record, requirements).durationMs)}" timestamp="${attribute(record.startedAt)}">`,
        ...requirements.map((r) => testCase(record, r)),
        `  </testsuite>`,
      ].join('\n');
    });
  const name = `${record.kit.name} ${record.kit.version}: ${record.spec.title} ${record.spec.version} at ${record.target.baseUrl}, verdict ${record.verdict}`;
  const all = counts(record, record.requirements);
  const generated = generatedJunitSuite(record);
  const total = generated
    ? { ...all, tests: all.tests + generated.tests, skipped: all.skipped + generated.skipped }
    : all;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${attribute(name)}" ${countAttributes(total)} time="${seconds}">`,
    ...suites,
    ...(generated ? [generated.xml] : []),
    `</testsuites>`,
    '',
  ].join('\n');
}

interface GeneratedSuite {
  xml: string;
  tests: number;
  skipped: number;
}

/** Where a requirement's one <failure> is in junit.xml: its test case in its level's suite. */
function failureCountedAt(requirement: RequirementRecord): string {
  const suite = `${requirement.level} requirements`;
  return `counted once, as the failure of ${requirementCaseName(requirement)} in the suite ${suite}`;
}

/**
 * Why a generated test case whose input broke its requirement is skipped: the gate's reason, or
 * where the failure is counted; undefined when the record does not count it as a failure.
 */
function generatedSkipReason(record: CertificationRecord, id: string): string | undefined {
  const requirement = record.requirements.find((r) => r.id === id);
  if (!requirement) return undefined;
  const acceptance = gateAcceptance(record, requirement);
  if (acceptance) return acceptance.why;
  return failsGate(record, requirement) ? failureCountedAt(requirement) : undefined;
}

/**
 * A generated test case's body: what it judged, or the minimal input that broke its requirement,
 * skipped with the one reason the requirement's own test case gives.
 */
function generatedCaseBody(record: CertificationRecord, row: GeneratedRow): string[] {
  const example = row.requirement.counterexample;
  if (!example) return [`      <system-out>${text(`${row.requirement.inputs} generated inputs judged`)}</system-out>`];
  const reason = generatedSkipReason(record, row.requirement.id);
  const answer = `${example.method} ${example.path} → ${example.status ?? 'no answer'}`;
  const input = `${example.message}\n${answer}, shrunk in ${example.shrinks} steps, ${reproductionText(example)}\n${example.curl}`;
  const skipped = reason ? [`      <skipped message="${attribute(reason)}"/>`] : [];
  return [...skipped, `      <system-out>${text(input)}</system-out>`];
}

/**
 * The <testsuite> of the generated inputs: a test case per operation and requirement; a broken
 * one is skipped, its failure counted in its level's suite.
 */
export function generatedJunitSuite(record: CertificationRecord): GeneratedSuite | undefined {
  if (!record.generated) return undefined;
  const rows = generatedRows(record.generated);
  const cases = rows.map((row) => {
    const name = `${row.operation.operation} · ${row.requirement.id}`;
    const classname = `generated ${row.operation.operation}`;
    const open = `    <testcase name="${attribute(name)}" classname="${attribute(classname)}" time="0">`;
    return [open, ...generatedCaseBody(record, row), '    </testcase>'].join('\n');
  });
  const broken = rows.filter((r) => r.requirement.counterexample && generatedSkipReason(record, r.requirement.id));
  const skipped = broken.length;
  const name = `generated inputs (seed ${record.generated.seed})`;
  const counts = `tests="${rows.length}" failures="0" errors="0" skipped="${skipped}"`;
  const open = `  <testsuite name="${attribute(name)}" ${counts} time="0" timestamp="${attribute(record.startedAt)}">`;
  return { xml: [open, ...cases, '  </testsuite>'].join('\n'), tests: rows.length, skipped };
}

// Characters XML 1.0 cannot hold at all, even escaped.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Text as XML content. */
function text(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text as an XML attribute value. */
function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
