// What the list page check computes with: the page a request asked for, the meta it reads, and the
// verdict by role (sections 4.1, 8, 9).
import type { Contract, Operation, OperationRole } from '../contract.ts';
import { deprecatedMetaMembers, requiredMetaMembers } from '../lists.ts';
import type { Finding } from '../types.ts';
import { parseQuery, queryString } from '../validate.ts';
import type { CheckVerdict, Exchange, Json } from './exchange.ts';

export interface PageRequest {
  limit?: number;
  offset?: number;
}

export function requestedPage(x: Exchange): PageRequest {
  const page = parseQuery(x.operation!, queryString(x.request.path)).page as Json | undefined;
  if (!page || typeof page !== 'object') return {};
  return { limit: integerOrUndefined(page.limit), offset: integerOrUndefined(page.offset) };
}

function integerOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** The meta members the page arithmetic reads, when every one is an integer that can be a count or a position. */
export interface PageMeta {
  total: number;
  pages: number;
  page: number;
  offset: number;
  limit: number;
}

/** Why a list answer's meta gives the page arithmetic nothing to compute with, or undefined when it does. */
export function unusableMeta(operation: Operation, meta: Json): string | undefined {
  const notInteger = requiredMetaMembers(operation).find((k) => !Number.isInteger(meta[k]));
  if (notInteger !== undefined)
    return `meta.${notInteger} was ${meta[notInteger] === undefined ? 'absent' : 'not an integer'}`;
  return undefined;
}

/** The roles the page arithmetic judges: what a list's page and meta report adds up (sections 4.1, 8, 9). */
export const PAGE_ARITHMETIC_ROLES: OperationRole[] = [
  'pageLength',
  'metaTotal',
  'metaOffsetEcho',
  'metaPages',
  'metaLimitEffective',
  'metaPageNumber',
  'metaDeprecatedAgree',
  'metaDeprecatedPresent',
];

/**
 * What the page arithmetic found on one list answer, and what it held or could not judge there,
 * by role: each finding carries the requirement the list's operation names for the role (a role
 * it names none for is not judged).
 */
export class PageVerdict {
  readonly findings: Finding[] = [];

  constructor(
    private readonly contract: Contract,
    private readonly operation: Operation,
    private readonly verdict: CheckVerdict,
  ) {}

  fail(role: OperationRole, pointer: string, message: string, expected: unknown, actual: unknown): void {
    const id = this.operation.roles[role];
    if (id !== undefined)
      this.findings.push(
        this.contract.finding(id, 'response', { pointer, message, expected: String(expected), actual: String(actual) }),
      );
  }

  /** A finding without an expected value (what was observed, such as deprecated members sent). */
  observe(role: OperationRole, pointer: string, message: string, actual: string): void {
    const id = this.operation.roles[role];
    if (id !== undefined) this.findings.push(this.contract.finding(id, 'response', { pointer, message, actual }));
  }

  /** Marks as held each role's requirement that no finding of this answer broke. */
  holdUnlessBroken(...roles: OperationRole[]): void {
    for (const role of roles) {
      const id = this.operation.roles[role];
      if (id !== undefined && !this.findings.some((f) => f.requirement === id)) this.verdict.held(id, 'response');
    }
  }

  cannot(reason: string, ...roles: OperationRole[]): void {
    for (const role of roles) {
      const id = this.operation.roles[role];
      if (id !== undefined) this.verdict.cannotJudge(id, reason, 'response');
    }
  }
}

/**
 * meta.pages is ceil(total / limit), an empty result 0 or 1; with a limit below 1 no page count is right but for an
 * empty result.
 */
export function judgePages(meta: PageMeta, verdict: PageVerdict): void {
  if (meta.total === 0) {
    if (meta.pages !== 0 && meta.pages !== 1)
      verdict.fail(
        'metaPages',
        '/meta/pages',
        `meta.pages is ${meta.pages}; an empty result has 0 or 1 pages`,
        '0 or 1',
        meta.pages,
      );
    return;
  }
  if (meta.limit < 1) {
    verdict.fail(
      'metaPages',
      '/meta/pages',
      `meta.pages is ${meta.pages} but meta.limit is ${meta.limit}: ceil(total ${meta.total} / limit ${meta.limit}) is no page count`,
      'a meta.limit of at least 1',
      meta.limit,
    );
    return;
  }
  const pages = Math.ceil(meta.total / meta.limit);
  if (meta.pages !== pages)
    verdict.fail(
      'metaPages',
      '/meta/pages',
      `meta.pages is ${meta.pages}, ceil(total ${meta.total} / limit ${meta.limit}) is ${pages}`,
      pages,
      meta.pages,
    );
}

/** Deprecated meta members (section 9): noted when sent, and each agrees with its replacement. */
export function judgeDeprecatedMeta(operation: Operation, meta: Record<string, number>, verdict: PageVerdict): void {
  const present = deprecatedMetaMembers(operation).filter(({ name }) => name in meta);
  if (present.length === 0) {
    verdict.holdUnlessBroken('metaDeprecatedPresent');
    return;
  }
  const names = present.map(({ name }) => name).join(', ');
  verdict.observe('metaDeprecatedPresent', '/meta', `deprecated meta members sent: ${names}`, names);
  for (const { name, replacement } of present) {
    if (replacement === undefined) continue;
    if (meta[name] !== meta[replacement])
      verdict.fail(
        'metaDeprecatedAgree',
        `/meta/${name}`,
        `meta.${name} is ${meta[name]} but meta.${replacement} is ${meta[replacement]}`,
        meta[replacement],
        meta[name],
      );
    else verdict.holdUnlessBroken('metaDeprecatedAgree');
  }
}
