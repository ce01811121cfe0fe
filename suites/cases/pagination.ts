// List NotificationGroups, pagination (sections 4.1, 8, 9; docs/certification.md §4): page bounds answered 400;
// single pages whose data and meta agree (checked by the contract on every answer: length,
// pages, offset echo, page number, deprecated members); and a full walk of every filter value at
// several limits that meets each item exactly once, with one total on every page.
import { NO_ANSWER, type Answer, type ConformanceCase } from '../case.ts';
import { brokenRequirements, filterValues, listOperation as operation } from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

const [first] = filterValues();
const list = (page: string) => `filter[type]=${first}${page}`;

/** Requirements the contract checks on every list page; a walk exercises all of them. */
const PAGE_CHECKS = [
  'NG-META-TOTAL',
  'NG-META-OFFSET-ECHO',
  'NG-META-PAGES',
  'NG-PAGE-LENGTH',
  'NG-META-INTEGERS',
  'RES-INTEGER-FORM',
  'NG-META-LIMIT-EFFECTIVE',
  'NG-META-PAGE-NUMBER',
  'NG-META-DEPRECATED-AGREE',
  'NG-META-DEPRECATED-PRESENT',
  'NG-RESPONSE-SHAPE',
  'NG-ITEM-SHAPE',
  'RES-ID-STRING',
  'RES-ID-OBJECTID',
];

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
function walkStopped(conformance: ConformanceCase, reason: string): undefined {
  conformance.cannotJudge('NG-PAGE-WALK', reason);
  return undefined;
}

/**
 * Walks every page of one filter value at one requested limit; each answer is checked by the
 * contract as it comes. A server may cap the limit (section 8 does not show the maximum), so the
 * next offset follows the limit `meta` reports when it is lower.
 */
async function pageWalk(conformance: ConformanceCase, value: string, limit: number): Promise<WalkState | undefined> {
  const state: WalkState = { seen: new Map(), pages: 0 };
  let offset = 0;
  while (state.pages < MAX_WALK_PAGES) {
    const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: `filter[type]=${value}&page[limit]=${limit}&page[offset]=${offset}` });
    if (!conformance.expectStatus(answer, [200], 'NG-FILTER-ACCEPTED')) return walkStopped(conformance, `a page of the walk was answered ${answer.status === NO_ANSWER ? 'not at all' : answer.status}`);
    const data = (answer.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) return walkStopped(conformance, 'a page of the walk held no data array');
    state.pages++;
    for (const item of data) {
      const key = JSON.stringify((item as { id?: unknown } | null)?.id);
      state.seen.set(key, (state.seen.get(key) ?? 0) + 1);
    }
    const meta = metaOf(answer);
    if (typeof meta?.total === 'number') {
      if (state.total === undefined) state.total = meta.total;
      else if (meta.total !== state.total) {
        conformance.fail('NG-META-TOTAL', answer, { pointer: '/meta/total', message: `meta.total is ${meta.total} on the page at offset ${offset}, ${state.total} on the first page`, expected: String(state.total), actual: String(meta.total) });
      } else conformance.held('NG-META-TOTAL', answer);
    }
    const reported = Number.isInteger(meta?.limit) && (meta!.limit as number) >= 1 && (meta!.limit as number) < limit ? (meta!.limit as number) : limit;
    // A page shorter than the limit before the end shows a cap `meta.limit` does not report
    // (NG-META-LIMIT-EFFECTIVE warns of that): the walk goes on from what was served.
    const effective = state.total !== undefined && data.length > 0 && data.length < reported && offset + data.length < state.total ? data.length : reported;
    // With a total, the walk ends past it; without, at the first short page (docs/certification.md §4).
    const done = state.total !== undefined ? offset + effective >= state.total : data.length < effective;
    if (done) return state;
    offset += effective;
  }
  return state;
}

export const paginationCases: SuiteCase[] = [
  ...rejectedPages.map((c): SuiteCase => ({
    title: `${c.title} → 400`,
    requirements: brokenRequirements(operation, { query: list(c.page) }),
    covers: ['ERR-SOURCE-PARAMETER', 'ERR-ENVELOPE'],
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: list(c.page) });
      conformance.expectStatus(answer, [400]);
    },
  })),
  ...servedPages.map((c): SuiteCase => ({
    title: `${c.title} → 200, data and meta agreeing`,
    requirements: ['NG-PAGE-LENGTH'],
    covers: PAGE_CHECKS,
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: list(c.page) });
      conformance.expectStatus(answer, [200]);
    },
  })),
  // The maximum page size is not shown (section 8): a cap, or a 400, are both fine; what is served must add up.
  {
    title: `a large page[limit] (${LARGE_LIMIT}) → capped or served, or 400`,
    requirements: ['NG-LIMIT-CAP'],
    covers: ['NG-META-LIMIT-EFFECTIVE', 'NG-PAGE-LENGTH'],
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: list(`&page[limit]=${LARGE_LIMIT}&page[offset]=0`) });
      if (!conformance.expectStatus(answer, [200, 400], 'NG-FILTER-ACCEPTED')) return;
      const data = (answer.json as { data?: unknown[] } | undefined)?.data;
      const served = answer.status === 400 ? 'answered 400' : `served ${Array.isArray(data) ? data.length : 'no'} items, meta.limit ${String(metaOf(answer)?.limit ?? 'absent')}`;
      conformance.observe('NG-LIMIT-CAP', answer, `page[limit]=${LARGE_LIMIT}: ${served}`);
    },
  },
  // Fractional page members are not shown (section 8): whatever the answer, it is only recorded.
  ...['&page[limit]=2.5&page[offset]=0', '&page[limit]=10&page[offset]=1.5'].map((page): SuiteCase => ({
    title: `a fractional page member (${page.slice(1)}) → recorded`,
    requirements: ['NG-PAGE-FRACTIONAL'],
    async run(conformance) {
      const answer = await conformance.send({ operation, credentials: conformance.credentials.session, query: list(page) });
      if (conformance.expectStatus(answer, [200, 400], 'NG-FILTER-ACCEPTED')) conformance.observe('NG-PAGE-FRACTIONAL', answer, `${page.slice(1)} was answered ${answer.status}`);
    },
  })),
  ...filterValues().flatMap((value) =>
    WALK_LIMITS.map((limit): SuiteCase => ({
      title: `walk filter[type]=${value} at page[limit]=${limit}: every item exactly once`,
      requirements: ['NG-PAGE-WALK'],
      covers: PAGE_CHECKS,
      async run(conformance) {
        const state = await pageWalk(conformance, value, limit);
        if (!state) return;
        const repeated = [...state.seen].filter(([, count]) => count > 1);
        if (repeated.length > 0) {
          const shown = repeated.slice(0, 5).map(([id, count]) => `${id} ${count} times`).join(', ');
          conformance.fail('NG-PAGE-WALK', undefined, { message: `walking ${value} at limit ${limit} met ${repeated.length} item(s) more than once: ${shown}`, expected: 'each item once', actual: shown });
        }
        conformance.held('NG-PAGE-WALK');
        if (state.pages === MAX_WALK_PAGES) return;
        const met = [...state.seen.values()].reduce((sum, count) => sum + count, 0);
        if (state.total !== undefined && met !== state.total) {
          conformance.fail('NG-PAGE-WALK', undefined, { message: `walking ${value} at limit ${limit} met ${met} items in ${state.pages} pages; meta.total is ${state.total}`, expected: String(state.total), actual: String(met) });
        }
      },
    })),
  ),
];
