// The shapes the reference server's request pipeline passes between its stages, and the hook
// points a fault or a choice may attach to. Each is data plus hooks at these named points; the
// pipeline itself never asks which fault or choice is on.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { CredentialReading, Finding, Operation, Scheme } from '../contract/index.ts';

/** The stages of the pipeline, in the order they run on an unfaulted server. */
export const STAGE_ORDER = ['credentials', 'route', 'method', 'size', 'mediaType', 'validate', 'handle'] as const;
export type StageName = (typeof STAGE_ORDER)[number];

export interface Tokens {
  sessionToken: string;
  pat: string;
  forbiddenToken: string;
}

export type CredentialDecision =
  | { outcome: 'permitted'; scheme: Scheme }
  | { outcome: 'forbidden'; scheme: Scheme }
  /** `code` is the requirement id the 401 enforces. */
  | { outcome: 'unauthenticated'; code: string; detail: string };

export interface CredentialContext {
  reading: CredentialReading;
  /** The raw Authorization value, when there is one. */
  authorization: string | undefined;
  tokens: Tokens;
}

/** One error object's content before it is written: a finding or a server condition. */
export interface Problem {
  code: string;
  title: string;
  detail: string;
  pointer?: string;
  parameter?: string;
}

/** A reply before it is written: a document to serialize, or JSON already serialized. */
export interface Reply {
  status: number;
  contentType: string;
  headers?: Record<string, string>;
  document?: unknown;
  json?: string | Buffer;
}

export interface RequestContext {
  readonly request: IncomingMessage;
  readonly method: string;
  /** Origin-form request target: path and query as sent. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  operation?: Operation;
  bodyText: string;
  /** The parsed request body, once validation has parsed it. */
  document?: unknown;
  /** The parsed and coerced query of the operation. */
  query: Record<string, unknown>;
  /** The request findings the server acted on. */
  findings: Finding[];
  /** Findings a fault told the server to overlook. */
  overlooked: Finding[];
  /** The server's own decision on the credentials, and the one it acted on (after fault hooks). */
  serverDecision?: CredentialDecision;
  credentialDecision?: CredentialDecision;
}

/** Where a page's items come from: `start` into the filtered list, `length` items. */
export interface PageWindow {
  start: number;
  length: number;
}

/** What a list request asked for, with the effective limit and the filtered list's size. */
export interface PageRequest {
  offset: number;
  limit: number;
  total: number;
}

/** A list item as a seed hook sees it: loose, so a fault can give a member the wrong type. */
export interface SeedItem {
  id: unknown;
  type: unknown;
  attributes: Record<string, unknown>;
  relationships: unknown;
}

export interface Creation {
  status: number;
  /** Undefined: the answer has no body. */
  document?: { data?: Record<string, unknown>; meta?: Record<string, unknown>; [member: string]: unknown };
}

/** The page a list request asks for, before the items are picked: `limit` after the default and the cap. */
export interface PageAsked {
  offset: number;
  limit: number;
}

/** The named points of the pipeline a fault or a choice may attach to. Each transforms what it is given. */
export interface ServerHooks {
  /** Pipeline: the order of the stages. */
  stageOrder?: (order: StageName[]) => StageName[];
  /** Stage credentials: the decision on the request's credentials. */
  credentials?: (decision: CredentialDecision, context: CredentialContext) => CredentialDecision;
  /** Stage validate: the request findings the server acts on. */
  findings?: (findings: Finding[], context: RequestContext) => Finding[];
  /** Stage validate, for a request with no findings: problems the server answers 400 for all the same. */
  rejections?: (problems: Problem[], context: RequestContext) => Problem[];
  /** Seed: each item of the list `operation` as the server sends it (applied once, when the server is built). */
  seedItem?: (item: SeedItem, operation: Operation) => SeedItem;
  /**
   * Seed: the items one value of the list's filter matches (none when it is filtered on nothing), in the order they are
   * served.
   */
  seedList?: (items: SeedItem[], filterValue: string | undefined, operation: Operation) => SeedItem[];
  /** List: the filter members applied besides the one the items are grouped by, each name with the value sent. */
  listFilter?: (members: Record<string, string>, operation: Operation) => Record<string, string>;
  /** List: the page asked for, from the query (default page size and cap already applied). */
  pageRequest?: (page: PageAsked, query: Record<string, unknown>) => PageAsked;
  /** List: the items a page holds. */
  pageWindow?: (window: PageWindow, page: PageRequest) => PageWindow;
  /** List: `meta` before the deprecated members are derived from it. */
  listMeta?: (meta: Record<string, unknown>, page: PageRequest) => Record<string, unknown>;
  /**
   * List: the `included` member for the requested include names: the server's resources for the
   * names its contract defines (undefined: omitted).
   */
  included?: (included: unknown, names: string[]) => unknown;
  /** List: the top-level members after `data` (`included`, `meta`, ...), deprecated meta members derived. */
  listMembers?: (members: Record<string, unknown>, page: PageRequest) => Record<string, unknown>;
  /** Create: the status and document of a successful creation. */
  created?: (creation: Creation, context: RequestContext) => Creation;
  /** Every reply, just before it is written. */
  reply?: (reply: Reply, context: RequestContext) => Reply;
}
