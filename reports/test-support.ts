// Certification records for the renderings' tests, built by buildRecord from case outcomes as the
// reporter builds them, so the tests render what a run writes.
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

export function findingOf(
  requirement: string,
  message: string,
  fields: { pointer?: string; status?: number; path?: string } = {},
): CaseFinding {
  const path = fields.path ?? '/notification-groups?filter[type]=portal';
  return {
    ...contract.finding(requirement, 'response', {
      pointer: fields.pointer ?? '/meta/pages',
      message,
      expected: '3',
      actual: '2',
    }),
    exchange: {
      method: 'GET',
      path,
      status: fields.status ?? 200,
      curl: `curl -i -g -X GET "$LAS_BASE_URL${path}" -H "authorization: Bearer r:$LAS_SESSION_TOKEN"`,
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

/** A run where NG-META-PAGES failed twice, AUTH-WWW-AUTHENTICATE warned and AUTH-403-FORBIDDEN was not run. */
export function failedRun(fields: Partial<RecordInput> = {}): CertificationRecord {
  return recordOf(
    [
      caseOutcome('AUTH-SESSION-ACCEPTED · served', ['AUTH-SESSION-ACCEPTED'], {
        status: 'failed',
        findings: [findingOf('NG-META-PAGES', 'meta.pages is 2, ceil(total 27 / limit 10) is 3')],
      }),
      caseOutcome('NG-PAGE-WALK · walk', ['NG-PAGE-WALK'], {
        status: 'failed',
        findings: [
          findingOf('NG-META-PAGES', 'meta.pages is 2, ceil(total 27 / limit 10) is 3', {
            path: '/notification-groups?filter[type]=user&page[limit]=10&page[offset]=20',
          }),
        ],
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
      r.id === 'NG-META-PAGES'
        ? ({
            ...r,
            verdict: 'waived',
            waiver: { reason: 'fixed in release 4.2', expires: '2027-03-01' },
          } as unknown as typeof r)
        : r,
    ),
  };
}

/** Generation from seed 1 in which a minimal input broke `broken` on the list, and NG-FILTER-ACCEPTED held. */
export function generatedBreaking(broken: string): GeneratedRecord {
  const path = '/notification-groups?filter[type]=portal&page[limit]=1&page[offset]=2147483648';
  const curl = `curl -i -g -X GET "$LAS_BASE_URL${path}" -H "authorization: Bearer r:$LAS_SESSION_TOKEN"`;
  const counterexample = {
    message: 'meta.pages is 0, ceil(total 27 / limit 1) is 27',
    method: 'GET',
    path,
    status: 200,
    curl,
    shrinks: 25,
  };
  const requirements = [
    { id: broken, inputs: 226, verdict: 'failed' as const, counterexample },
    { id: 'NG-FILTER-ACCEPTED', inputs: 226, verdict: 'passed' as const },
  ];
  const operation = {
    operation: 'listNotificationGroups',
    inputs: { sent: 226, valid: 120, invalid: 106 },
    durationMs: 5263,
    requirements,
  };
  return { inputs: 200, seed: 1, operationBudgetMs: 30_000, totalBudgetMs: 300_000, operations: [operation] };
}
