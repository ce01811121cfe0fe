// List NotificationGroups (section 4.1; docs/certification.md §4). Each seeded item is serialized once when the
// server is built; a page is the join of its items' JSON and a small meta object.
import { MEDIA_TYPE, successBody, type Contract, type Finding, type Operation } from '../contract/index.ts';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './defaults.ts';
import type { ComposedHooks } from './hooks.ts';
import { filterTypes, seedNotificationGroups } from './seed.ts';
import type { PageRequest, Reply, SeedItem } from './types.ts';

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** What the query asks for: members that are numbers are used, others take their defaults. */
export function requestedPage(query: Json): { offset: number; limit: number } {
  const page = objectOf(query.page);
  const limit = typeof page?.limit === 'number' ? page.limit : DEFAULT_PAGE_LIMIT;
  const offset = typeof page?.offset === 'number' ? page.offset : 0;
  return { offset, limit: Math.min(limit, MAX_PAGE_LIMIT) };
}

/**
 * Fractional page members are not shown (docs/certification.md §4, NG-PAGE-FRACTIONAL): this server answers
 * them, and numbers too large to be whole (past 2^53 - 1, where `9007199254740993` reads as
 * `9007199254740992` and could not be echoed in `meta.offset` as sent), with 400.
 */
export function fractionalPageFindings(contract: Contract, operation: Operation, query: Json): Finding[] {
  const page = objectOf(query.page);
  if (!page) return [];
  return pageMembers(operation).filter((member) => typeof page[member] === 'number' && !Number.isSafeInteger(page[member])).map((member) =>
    contract.finding('NG-PAGE-FRACTIONAL', 'request', {
      pointer: `page[${member}]`,
      message: `page[${member}] must be a whole number of at most ${Number.MAX_SAFE_INTEGER}, got ${String(page[member])}`,
      expected: 'an integer',
      actual: String(page[member]),
    }),
  );
}

/** The members of an operation's `page` parameter (limit, offset), read from its schema. */
function pageMembers(operation: Operation): string[] {
  const parameter = operation.parameters.find((p) => p.name === 'page');
  return Object.keys(((parameter?.schema as { properties?: Json } | undefined)?.properties) ?? {});
}

/** Pages kept serialized; the seed never changes, so a page is built once per query shape. */
const MAX_CACHED_PAGES = 2048;

export class NotificationGroupList {
  private readonly itemsByFilter = new Map<string | undefined, string[]>();
  private readonly pages = new Map<string, Buffer>();
  private readonly deprecatedMembers: Array<[name: string, replacement: string | undefined]>;
  private readonly totalWithoutFilters: number;

  private readonly itemSchema: unknown;

  constructor(contract: Contract, private readonly hooks: ComposedHooks) {
    this.itemSchema = contract.schemas.NotificationGroup;
    const operation = contract.operations.find((o) => this.serves(o));
    if (!operation) throw new Error('the contract has no operation listing NotificationGroups, which the reference server seeds');
    const lists = seedNotificationGroups(contract, operation);
    const serialize = (items: SeedItem[], type: string) => hooks.seedList(items.map((item) => hooks.seedItem(item)), type).map((item) => JSON.stringify(item));
    for (const type of filterTypes(operation)) this.itemsByFilter.set(type, serialize(lists.get(type) ?? [], type));
    // Only a fault that lets a missing filter through ever reads the unfiltered list.
    this.itemsByFilter.set(undefined, filterTypes(operation).flatMap((type) => this.itemsByFilter.get(type) ?? []));
    this.totalWithoutFilters = this.itemsByFilter.get(undefined)?.length ?? 0;
    const properties = (contract.schemas.ListMeta.properties ?? {}) as Record<string, Json>;
    this.deprecatedMembers = Object.entries(properties)
      .filter(([, schema]) => schema.deprecated === true)
      .map(([name, schema]) => [name, typeof schema['x-replaced-by'] === 'string' ? schema['x-replaced-by'] : undefined]);
  }

  /** Whether an operation lists NotificationGroups: its success body's `data` items are the NotificationGroup component. */
  serves(operation: Operation): boolean {
    const data = objectOf(objectOf(successBody(operation)?.properties)?.data);
    return data?.items === this.itemSchema;
  }

  respond(query: Json): Reply {
    const rawFilter = objectOf(query.filter)?.type;
    const filterType = typeof rawFilter === 'string' ? rawFilter : undefined;
    const { offset, limit } = this.hooks.pageRequest(requestedPage(query), query);
    const names = Array.isArray(query.include) ? query.include.map(String) : [];
    const key = `${filterType}|${limit}|${offset}|${names.join(',')}`;
    let json = this.pages.get(key);
    if (!json) {
      json = Buffer.from(this.page(this.itemsByFilter.get(filterType) ?? [], { offset, limit, total: 0 }, names));
      if (this.pages.size >= MAX_CACHED_PAGES) this.pages.clear();
      this.pages.set(key, json);
    }
    return { status: 200, contentType: MEDIA_TYPE, json };
  }

  private page(items: string[], requested: PageRequest, names: string[]): string {
    const page: PageRequest = { ...requested, total: items.length };
    const window = this.hooks.pageWindow({ start: page.offset, length: Math.min(page.limit, Math.max(0, page.total - page.offset)) }, page);
    const data = items.slice(window.start, window.start + window.length);
    const meta = this.withDeprecatedMembers(this.hooks.listMeta(this.meta(page), page), data.length);
    const included = this.hooks.included(undefined, names);
    const members = this.hooks.listMembers({ ...(included === undefined ? {} : { included }), meta }, page);
    const rest = Object.entries(members).map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`);
    return `{"data":[${data.join(',')}]${rest.join('')}}`;
  }

  private meta({ offset, limit, total }: PageRequest): Json {
    return { total, pages: Math.ceil(total / limit), page: Math.floor(offset / limit) + 1, offset, limit, totalWithoutFilters: this.totalWithoutFilters };
  }

  /** Deprecated members mirror their replacements (section 9); resultCount, which has none, counts this page. */
  private withDeprecatedMembers(meta: Json, pageLength: number): Json {
    const out = { ...meta };
    for (const [name, replacement] of this.deprecatedMembers) out[name] = replacement === undefined ? pageLength : meta[replacement];
    return out;
  }
}
