// Every list of the contract (sections 4.1, 8; docs/certification.md §4), each served from items
// seeded from its own item schema, grouped by the member its filter is served by, narrowed by
// every other member sent (an item whose attribute of the member's name holds another value is
// left out), and paged as section 8 reads `page`; each include name the contract defines brings
// its seeded resource in `included`. Each seeded item is serialized once when the server is built;
// a page is the join of its items' JSON and a small meta object.
import {
  deprecatedMetaMembers,
  FILTER_PARAMETER,
  filterMembers,
  INCLUDE_PARAMETER,
  listOperations,
  MEDIA_TYPE,
  pageMembers,
  PAGE_PARAMETER,
  scalarText,
  type Contract,
  type Finding,
  type Operation,
} from '../contract/index.ts';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './defaults.ts';
import type { ComposedHooks } from './hooks.ts';
import { filterGroups, seededFilter, seedIncludedResources, seedListItems } from './seed.ts';
import type { PageRequest, Reply, SeedItem } from './types.ts';

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** What the query asks for: members that are numbers are used, others take their defaults. */
export function requestedPage(query: Json): { offset: number; limit: number } {
  const page = objectOf(query[PAGE_PARAMETER]);
  const limit = typeof page?.limit === 'number' ? page.limit : DEFAULT_PAGE_LIMIT;
  const offset = typeof page?.offset === 'number' ? page.offset : 0;
  return { offset, limit: Math.min(limit, MAX_PAGE_LIMIT) };
}

/**
 * Fractional page members are not shown (docs/certification.md §4; the list's `pageFractional`
 * requirement): this server answers them, and numbers too large to be whole (past 2^53 - 1, where
 * `9007199254740993` reads as `9007199254740992` and could not be echoed in `meta.offset` as
 * sent), with 400.
 */
export function fractionalPageFindings(contract: Contract, operation: Operation, query: Json): Finding[] {
  const page = objectOf(query[PAGE_PARAMETER]);
  const requirement = operation.roles.pageFractional;
  if (!page || requirement === undefined) return [];
  return pageMembers(operation)
    .filter((member) => typeof page[member] === 'number' && !Number.isSafeInteger(page[member]))
    .map((member) =>
      contract.finding(requirement, 'request', {
        pointer: `page[${member}]`,
        message: `page[${member}] must be a whole number of at most ${Number.MAX_SAFE_INTEGER}, got ${String(page[member])}`,
        expected: 'an integer',
        actual: String(page[member]),
      }),
    );
}

/** Pages kept serialized; the seed never changes, so a page is built once per query shape. */
const MAX_CACHED_PAGES = 2048;

/** A seeded item as it is served, and the attributes the filter members are matched against. */
interface ServedItem {
  json: string;
  attributes: Json;
}

/** One list of the contract, served from its seed. */
export class ReferenceList {
  private readonly itemsByFilter = new Map<string | undefined, ServedItem[]>();
  private readonly includedByName: Map<string, Json>;
  /** The filter members besides the grouping one, which narrow a group when sent. */
  private readonly narrowingMembers: string[];
  private readonly pages = new Map<string, Buffer>();
  private readonly deprecatedMembers: Array<[name: string, replacement: string | undefined]>;
  private readonly totalWithoutFilters: number;
  private readonly filterMember: string | undefined;

  constructor(
    contract: Contract,
    readonly operation: Operation,
    listIndex: number,
    private readonly hooks: ComposedHooks,
  ) {
    const lists = seedListItems(contract, operation, listIndex);
    this.filterMember = seededFilter(operation)?.name;
    const groups = filterGroups(operation);
    const serialize = (items: SeedItem[], value: string | undefined) =>
      hooks
        .seedList(
          items.map((item) => hooks.seedItem(item, operation)),
          value,
          operation,
        )
        .map((item) => ({ json: JSON.stringify(item), attributes: objectOf(item.attributes) ?? {} }));
    for (const value of groups) this.itemsByFilter.set(value, serialize(lists.get(value) ?? [], value));
    // Only a fault that lets a missing filter through ever reads the unfiltered list of a filtered one.
    if (this.filterMember !== undefined)
      this.itemsByFilter.set(
        undefined,
        groups.flatMap((value) => this.itemsByFilter.get(value) ?? []),
      );
    this.totalWithoutFilters = this.itemsByFilter.get(undefined)?.length ?? 0;
    this.deprecatedMembers = deprecatedMetaMembers(operation).map(({ name, replacement }) => [name, replacement]);
    this.narrowingMembers = filterMembers(operation)
      .map((m) => m.name)
      .filter((name) => name !== this.filterMember);
    this.includedByName = seedIncludedResources(contract, operation, listIndex);
  }

  /** The members besides the grouping one the query sends, each with its value. */
  private narrowingSent(query: Json): Record<string, string> {
    const filter = objectOf(query[FILTER_PARAMETER]) ?? {};
    const sent = this.narrowingMembers.flatMap((name) =>
      ['string', 'number', 'boolean'].includes(typeof filter[name]) ? [[name, String(filter[name])]] : [],
    );
    return this.hooks.listFilter(Object.fromEntries(sent) as Record<string, string>, this.operation);
  }

  /** The resources of the include names the contract defines, each once, in the order asked; none asked: undefined. */
  private includedFor(names: string[]): Json[] | undefined {
    const resources = [...new Set(names)].flatMap((name): Json[] => {
      const resource = this.includedByName.get(name);
      return resource === undefined ? [] : [resource];
    });
    return resources.length === 0 ? undefined : resources;
  }

  respond(query: Json): Reply {
    const rawFilter =
      this.filterMember === undefined ? undefined : objectOf(query[FILTER_PARAMETER])?.[this.filterMember];
    const filterValue = typeof rawFilter === 'string' ? rawFilter : undefined;
    const { offset, limit } = this.hooks.pageRequest(requestedPage(query), query);
    const names = Array.isArray(query[INCLUDE_PARAMETER]) ? query[INCLUDE_PARAMETER].map(String) : [];
    const narrowing = this.narrowingSent(query);
    const key = JSON.stringify([filterValue, narrowing, limit, offset, names]);
    let json = this.pages.get(key);
    if (!json) {
      const matches = (item: ServedItem) =>
        Object.entries(narrowing).every(
          ([name, value]) => item.attributes[name] === undefined || scalarText(item.attributes[name]) === value,
        );
      const items = (this.itemsByFilter.get(filterValue) ?? []).filter(matches).map((item) => item.json);
      json = Buffer.from(this.page(items, { offset, limit, total: 0 }, names));
      if (this.pages.size >= MAX_CACHED_PAGES) this.pages.clear();
      this.pages.set(key, json);
    }
    return { status: 200, contentType: MEDIA_TYPE, json };
  }

  private page(items: string[], requested: PageRequest, names: string[]): string {
    const page: PageRequest = { ...requested, total: items.length };
    const window = this.hooks.pageWindow(
      { start: page.offset, length: Math.min(page.limit, Math.max(0, page.total - page.offset)) },
      page,
    );
    const data = items.slice(window.start, window.start + window.length);
    const meta = this.withDeprecatedMembers(this.hooks.listMeta(this.meta(page), page), data.length);
    const included = this.hooks.included(this.includedFor(names), names);
    const members = this.hooks.listMembers({ ...(included === undefined ? {} : { included }), meta }, page);
    const rest = Object.entries(members).map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`);
    return `{"data":[${data.join(',')}]${rest.join('')}}`;
  }

  private meta({ offset, limit, total }: PageRequest): Json {
    return {
      total,
      pages: Math.ceil(total / limit),
      page: Math.floor(offset / limit) + 1,
      offset,
      limit,
      totalWithoutFilters: this.totalWithoutFilters,
    };
  }

  /** Deprecated members mirror their replacements (section 9); resultCount, which has none, counts this page. */
  private withDeprecatedMembers(meta: Json, pageLength: number): Json {
    const out = { ...meta };
    for (const [name, replacement] of this.deprecatedMembers)
      out[name] = replacement === undefined ? pageLength : meta[replacement];
    return out;
  }
}

/** Every list of the contract, each with its seed, by operation. */
export function referenceLists(contract: Contract, hooks: ComposedHooks): Map<Operation, ReferenceList> {
  return new Map(
    listOperations(contract).map((operation, index) => [
      operation,
      new ReferenceList(contract, operation, index, hooks),
    ]),
  );
}
