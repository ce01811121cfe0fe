// Certification records for the renderings' tests, built by buildRecord from case outcomes as the
// reporter builds them, so the tests render what a run writes. The run is made up: it breaks and
// warns on requirements every operation shares, so it is the same run whatever operations the
// contract holds; where it names an operation, it takes the contract's first.
import { loadContract } from '../contract/index.ts';
import type { CaseFinding } from '../run-protocol/index.ts';
import {
  buildRecord,
  type CaseOutcome,
  type CertificationRecord,
  type GeneratedRecord,
  type RecordInput,
} from './record.ts';

const contract = loadContract();

/** The MUST requirement the made-up run fails, twice. */
export const BROKEN = contract.requirement('RES-ID-STRING');
/** What its first finding says. */
export const BROKEN_MESSAGE = 'id is 7, a number';
/** The requirement of the case whose second finding breaks it too. */
export const SECOND_CASE_REQUIREMENT = 'ERR-NO-5XX';
export const SECOND_CASE = `${SECOND_CASE_REQUIREMENT} · every page`;
/** An observation the suite makes: the contract's first requirement of level INFO the suite judges. */
export const OBSERVED = contract.requirements.find(
  (r) => r.level === 'INFO' && (r.checkedBy ?? ['suite']).includes('suite'),
)!;
/** The request of a finding (made up: a rendering shows a path, whatever it is), and of the second finding. */
export const FINDING_PATH = '/records?filter[kind]=a';
export const SECOND_FINDING_PATH = `${FINDING_PATH}&page[limit]=10&page[offset]=20`;
/** The curl line of a finding of FINDING_PATH. */
export const FINDING_CURL = curlOf(FINDING_PATH);

function curlOf(path: string): string {
  return `curl -i -g -X GET "$LAS_BASE_URL${path}" -H "authorization: Bearer r:$LAS_SESSION_TOKEN"`;
}

export function findingOf(
  requirement: string,
  message: string,
  fields: { pointer?: string; status?: number; path?: string } = {},
): CaseFinding {
  const path = fields.path ?? FINDING_PATH;
  return {
    ...contract.finding(requirement, 'response', {
      pointer: fields.pointer ?? '/data/0/id',
      message,
      expected: '3',
      actual: '2',
    }),
    exchange: {
      method: 'GET',
      path,
      status: fields.status ?? 200,
      curl: curlOf(path),
    },
  };
}

/**
 * A case outcome; unless `fields` says otherwise, a case that ran judged each of its requirements, and each its
 * findings name, once.
 */
export function caseOutcome(title: string, requirements: string[], fields: Partial<CaseOutcome> = {}): CaseOutcome {
  const status = fields.status ?? 'passed';
  const ran = status !== 'skipped' && status !== 'not-started';
  const found = new Set((fields.findings ?? []).map((f) => f.requirement));
  const judged = ran ? [...new Set([...requirements, ...found])] : [];
  return {
    title,
    requirements,
    status,
    findings: [],
    exercised: judged.map((requirement) => ({ requirement, judged: 1, broken: found.has(requirement) ? 1 : 0 })),
    ...fields,
  };
}

/** Every requirement the catalogue's cases would cover, passed, unless `cases` says otherwise. */
export function recordOf(cases: CaseOutcome[], fields: Partial<RecordInput> = {}): CertificationRecord {
  const passing = contract.requirements
    .filter((r) => !cases.some((c) => c.requirements.includes(r.id)))
    .map((r) => caseOutcome(`${r.id} · holds`, [r.id]));
  return buildRecord({
    contract,
    kit: { name: 'las-conformance', version: '0.1.0' },
    target: 'http://127.0.0.1:4010/v3',
    failLevel: 'must',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    durationMs: 61_250,
    runStatus: 'failed',
    cases: [...passing, ...cases],
    ...fields,
  });
}

/** A run where BROKEN failed twice, AUTH-WWW-AUTHENTICATE warned and AUTH-403-FORBIDDEN was not run. */
export function failedRun(fields: Partial<RecordInput> = {}): CertificationRecord {
  return recordOf(
    [
      caseOutcome('AUTH-SESSION-ACCEPTED · served', ['AUTH-SESSION-ACCEPTED'], {
        status: 'failed',
        findings: [findingOf(BROKEN.id, BROKEN_MESSAGE)],
      }),
      caseOutcome(SECOND_CASE, [SECOND_CASE_REQUIREMENT], {
        status: 'failed',
        findings: [findingOf(BROKEN.id, BROKEN_MESSAGE, { path: SECOND_FINDING_PATH })],
      }),
      caseOutcome('AUTH-401-NO-CREDENTIALS · no credentials', ['AUTH-401-NO-CREDENTIALS'], {
        findings: [
          findingOf('AUTH-WWW-AUTHENTICATE', 'a 401 response should carry a WWW-Authenticate header', {
            pointer: 'WWW-Authenticate',
            status: 401,
          }),
        ],
      }),
      caseOutcome('AUTH-403-FORBIDDEN · forbidden', ['AUTH-403-FORBIDDEN'], {
        status: 'skipped',
        skipReason: 'no forbidden credential configured',
      }),
    ],
    fields,
  );
}

/** A record as newer kits write it: verdict incomplete, one requirement waived with its waiver. */
export function waivedIncompleteRun(): CertificationRecord {
  const record = failedRun();
  return {
    ...record,
    verdict: 'incomplete',
    verdictReason: 'MUST requirements were not run',
    requirements: record.requirements.map((r) =>
      r.id === BROKEN.id
        ? ({
            ...r,
            verdict: 'waived',
            waiver: { reason: 'fixed in release 4.2', expires: '2027-03-01' },
          } as unknown as typeof r)
        : r,
    ),
  };
}

/** The operation generation drew inputs for: the contract's first. */
export const GENERATED_OPERATION = contract.operations[0];

/**
 * Generation from seed 1 in which a minimal input broke `broken` on GENERATED_OPERATION, and the requirement of its
 * success statuses held.
 */
export function generatedBreaking(broken: string): GeneratedRecord {
  const path = `${FINDING_PATH}&page[limit]=1&page[offset]=2147483648`;
  const counterexample = { message: BROKEN_MESSAGE, method: 'GET', path, status: 200, curl: curlOf(path), shrinks: 25 };
  const requirements = [
    { id: broken, inputs: 226, verdict: 'failed' as const, counterexample },
    {
      id: contract.successRequirement(GENERATED_OPERATION.operationId).id,
      inputs: 226,
      verdict: 'passed' as const,
    },
  ];
  const operation = {
    operation: GENERATED_OPERATION.operationId,
    inputs: { sent: 226, valid: 120, invalid: 106 },
    durationMs: 5263,
    requirements,
  };
  return { inputs: 200, seed: 1, operationBudgetMs: 30_000, totalBudgetMs: 300_000, operations: [operation] };
}
