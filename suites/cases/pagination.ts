// Each list's pagination (sections 4.1, 8, 9; docs/certification.md §4): page bounds answered 400;
// single pages whose data and meta agree (checked by the contract on every answer: length,
// pages, offset echo, page number, deprecated members); and a full walk of every filter value at
// several limits that meets each item exactly once, with one total on every page. Every
// requirement is the one the list names for its role (x-requirements).
import { PAGE_PARAMETER, type Operation, type OperationRole, type RecordIds } from '../../contract/index.ts';
import { NO_ANSWER, type Answer, type ConformanceCase } from '../case.ts';
import {
  brokenRequirements,
  filterQuery,
  filterValues,
  listOperations,
  recordsInTitles,
  roleId,
  roleIds,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

/** Roles of the requirements the contract checks on every list page; a walk exercises all of them. */
const PAGE_CHECK_ROLES: OperationRole[] = [
  'metaTotal',
  'metaOffsetEcho',
  'metaPages',
  'pageLength',
  'metaIntegers',
  'metaLimitEffective',
  'metaPageNumber',
  'metaDeprecatedAgree',
  'metaDeprecatedPresent',
  'responseShape',
  'itemShape',
];
const PAGE_CHECKS = ['RES-INTEGER-FORM', 'RES-ID-STRING', 'RES-ID-OBJECTID'];

const WALK_LIMITS = [1, 3, 10, 25];
/** A walk stops here even if the target has more: it judges the items it met. */
const MAX_WALK_PAGES = 200;
const PAST_THE_END = 100_000;
const LARGE_LIMIT = 100_000;

const rejectedPages: { title: string; page: string }[] = [
  { title: 'page[limit]=0', page: '&page[limit]=0&page[offset]=0' },
  { title: 'a negative page[limit]', page: '&page[limit]=-1&page[offset]=0' },
  { title: 'a negative page[offset]', page: '&page[limit]=10&page[offset]=-1' },
  { title: 'a page[limit] that is not a number', page: '&page[limit]=ten&page[offset]=0' },
  { title: 'a page[offset] that is not a number', page: '&page[limit]=10&page[offset]=ten' },
  { title: 'an empty page[limit]', page: '&page[limit]=&page[offset]=0' },
  { title: 'page[limit] without page[offset]', page: '&page[limit]=10' },
  { title: 'page[offset] without page[limit]', page: '&page[offset]=0' },
];

const servedPages: { title: string; page: string }[] = [
  { title: 'no page: the default page', page: '' },
  { title: 'page[limit]=1', page: '&page[limit]=1&page[offset]=0' },
  { title: 'page[offset] past the end: an empty page', page: `&page[limit]=10&page[offset]=${PAST_THE_END}` },
];

function metaOf(answer: Answer): Record<string, unknown> | undefined {
  const meta = (answer.json as { meta?: unknown } | undefined)?.meta;
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
}

interface WalkState {
  seen: Map<string, number>;
  total?: number;
  pages: number;
}

/** A walk that cannot go on judges nothing: it says why. */
function walkStopped(conformance: ConformanceCase, walk: string, reason: string): undefined {
  conformance.cannotJudge(walk, reason);
  return undefined;
}

/** The requirements of one list a walk answers to, by role. */
interface WalkRequirements {
  walk: string;
  success: string;
  total?: string;
}

/**
 * Walks every page of one filter value at one requested limit; each answer is checked by the
 * contract as it comes. A server may cap the limit (section 8 does not show the maximum), so the
 * next offset follows the limit `meta` reports when it is lower.
 */
async function pageWalk(
  conformance: ConformanceCase,
  operation: Operation,
  ids: WalkRequirements,
  value: string | undefined,
  limit: number,
): Promise<WalkState | undefined> {
  const state: WalkState = { seen: new Map(), pages: 0 };
  let offset = 0;
  while (state.pages < MAX_WALK_PAGES) {
    const answer = await conformance.send({
      operation,
      credentials: conformance.credentials.session,
      query: withPage(
        operation,
        value,
        `&${PAGE_PARAMETER}[limit]=${limit}&${PAGE_PARAMETER}[offset]=${offset}`,
        conformance.target.fixtures,
      ),
    });
    if (!conformance.expectStatus(answer, [200], ids.success))
      return walkStopped(
        conformance,
        ids.walk,
        `a page of the walk was answered ${answer.status === NO_ANSWER ? 'not at all' : answer.status}`,
      );
    const data = (answer.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) return walkStopped(conformance, ids.walk, 'a page of the walk held no data array');
    state.pages++;
    for (const item of data) {
      const key = JSON.stringify((item as { id?: unknown } | null)?.id);
      state.seen.set(key, (state.seen.get(key) ?? 0) + 1);
    }
    const meta = metaOf(answer);
    if (typeof meta?.total === 'number') {
      if (state.total === undefined) state.total = meta.total;
      else if (ids.total === undefined) {
        // The list names no requirement for one total on every page: the walk only counts.
      } else if (meta.total !== state.total) {
        conformance.fail(ids.total, answer, {
          pointer: '/meta/total',
          message: `meta.total is ${meta.total} on the page at offset ${offset}, ${state.total} on the first page`,
          expected: String(state.total),
          actual: String(meta.total),
        });
      } else conformance.held(ids.total, answer);
    }
    const reported =
      Number.isInteger(meta?.limit) && (meta!.limit as number) >= 1 && (meta!.limit as number) < limit
        ? (meta!.limit as number)
        : limit;
    // A page shorter than the limit before the end shows a cap `meta.limit` does not report
    // (the list's metaLimitEffective requirement warns of that): the walk goes on from what was served.
    const effective =
      state.total !== undefined && data.length > 0 && data.length < reported && offset + data.length < state.total
        ? data.length
        : reported;
    // With a total, the walk ends past it; without, at the first short page (docs/certification.md §4).
    const done = state.total !== undefined ? offset + effective >= state.total : data.length < effective;
    if (done) return state;
    offset += effective;
  }
  return state;
}

/**
 * The list query for `value` of the served filter member (naming `records` where a member names a record), with a page
 * part (`&page[limit]=1&page[offset]=0`).
 */
function withPage(operation: Operation, value: string | undefined, page: string, records: RecordIds = {}): string {
  return `${filterQuery(operation, value, records)}${page}`.replace(/^&/, '');
}

function paginationCasesOf(operation: Operation): SuiteCase[] {
  const values: (string | undefined)[] = filterValues(operation).length === 0 ? [undefined] : filterValues(operation);
  const [first] = values;
  const list = (page: string, records: RecordIds = {}) => withPage(operation, first, page, records);
  const success = roleId(operation, 'success')!;
  const pageLength = roleId(operation, 'pageLength');
  const covers = [...roleIds(operation, PAGE_CHECK_ROLES), ...PAGE_CHECKS];
  const walk = roleId(operation, 'pageWalk');
  const limitCap = roleId(operation, 'limitCap');
  const fractional = roleId(operation, 'pageFractional');
  const limitCovers = roleIds(operation, ['metaLimitEffective', 'pageLength']);
  const label = operation.operationId;
  return [
    ...rejectedPages.map((c): SuiteCase => ({
      title: `${label}: ${c.title} → 400`,
      requirements: brokenRequirements(operation, { query: list(c.page) }),
      covers: ['ERR-SOURCE-PARAMETER', 'ERR-ENVELOPE'],
      async run(conformance) {
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          query: list(c.page, conformance.target.fixtures),
        });
        conformance.expectStatus(answer, [400]);
      },
    })),
    ...(pageLength === undefined ? [] : servedPages).map((c): SuiteCase => ({
      title: `${label}: ${c.title} → 200, data and meta agreeing`,
      requirements: [pageLength!],
      covers,
      async run(conformance) {
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          query: list(c.page, conformance.target.fixtures),
        });
        conformance.expectStatus(answer, [200]);
      },
    })),
    // The maximum page size is not shown (section 8): a cap, or a 400, are both fine; what is served must add up.
    ...(limitCap === undefined
      ? []
      : [
          {
            title: `${label}: a large page[limit] (${LARGE_LIMIT}) → capped or served, or 400`,
            requirements: [limitCap],
            covers: limitCovers,
            async run(conformance) {
              const answer = await conformance.send({
                operation,
                credentials: conformance.credentials.session,
                query: list(`&page[limit]=${LARGE_LIMIT}&page[offset]=0`, conformance.target.fixtures),
              });
              if (!conformance.expectStatus(answer, [200, 400], success)) return;
              const data = (answer.json as { data?: unknown[] } | undefined)?.data;
              const served =
                answer.status === 400
                  ? 'answered 400'
                  : `served ${Array.isArray(data) ? data.length : 'no'} items, meta.limit ${shownLimit(metaOf(answer)?.limit)}`;
              conformance.observe(limitCap, answer, `page[limit]=${LARGE_LIMIT}: ${served}`);
            },
          } satisfies SuiteCase,
        ]),
    // Fractional page members are not shown (section 8): whatever the answer, it is only recorded.
    ...(fractional === undefined ? [] : ['&page[limit]=2.5&page[offset]=0', '&page[limit]=10&page[offset]=1.5']).map(
      (page): SuiteCase => ({
        title: `${label}: a fractional page member (${page.slice(1)}) → recorded`,
        requirements: [fractional!],
        async run(conformance) {
          const answer = await conformance.send({
            operation,
            credentials: conformance.credentials.session,
            query: list(page, conformance.target.fixtures),
          });
          if (conformance.expectStatus(answer, [200, 400], success))
            conformance.observe(fractional!, answer, `${page.slice(1)} was answered ${answer.status}`);
        },
      }),
    ),
    ...(walk === undefined ? [] : values).flatMap((value) =>
      WALK_LIMITS.map((limit): SuiteCase => ({
        title: `${label}: walk ${filterQuery(operation, value, recordsInTitles(operation)) || 'the list'} at page[limit]=${limit}: every item exactly once`,
        requirements: [walk!],
        covers,
        async run(conformance) {
          const state = await pageWalk(
            conformance,
            operation,
            { walk: walk!, success, total: roleId(operation, 'metaTotal') },
            value,
            limit,
          );
          if (!state) return;
          const repeated = [...state.seen].filter(([, count]) => count > 1);
          if (repeated.length > 0) {
            const shown = repeated
              .slice(0, 5)
              .map(([id, count]) => `${id} ${count} times`)
              .join(', ');
            conformance.fail(walk!, undefined, {
              message: `walking ${value ?? 'the list'} at limit ${limit} met ${repeated.length} item(s) more than once: ${shown}`,
              expected: 'each item once',
              actual: shown,
            });
          }
          conformance.held(walk!);
          if (state.pages === MAX_WALK_PAGES) return;
          const met = [...state.seen.values()].reduce((sum, count) => sum + count, 0);
          if (state.total !== undefined && met !== state.total) {
            conformance.fail(walk!, undefined, {
              message: `walking ${value ?? 'the list'} at limit ${limit} met ${met} items in ${state.pages} pages; meta.total is ${state.total}`,
              expected: String(state.total),
              actual: String(met),
            });
          }
        },
      })),
    ),
  ];
}

export const paginationCases: SuiteCase[] = listOperations
  .filter((operation) => operation.parameters.some((p) => p.name === PAGE_PARAMETER))
  .flatMap(paginationCasesOf);

/** The `meta.limit` a page was served with, as JSON, or `absent`. */
function shownLimit(limit: unknown): string {
  return limit === undefined ? 'absent' : JSON.stringify(limit);
}
