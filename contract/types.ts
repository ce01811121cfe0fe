// The shapes every part of the kit shares: levels, requirements, findings and exchanges.
import type { Utf8Reading } from './json-text.ts';

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export type Location = 'request' | 'response' | 'exchange';

export interface SchemaFindingRoute {
  operation?: string;
  location?: 'request' | 'response';
  status?: string;
  keyword?: string;
  pointer?: string;
}

export interface Requirement {
  id: string;
  level: Level;
  section: string;
  text: string;
  /**
   * For a MUST: the statement of the specification that makes it one (section and a paraphrase).
   * A requirement resting only on a convention or an open choice is SHOULD or INFO and has none.
   */
  basis?: string;
  schemaFindings?: SchemaFindingRoute[];
  /**
   * For a requirement on what a client sends: the requirement a server breaks by answering such a
   * request 2xx; this requirement itself when absent.
   */
  acceptedBreaks?: string;
  /**
   * For a requirement on refusing a request that breaks it: the statuses besides 400 that refuse
   * such a request for what it holds (409 for another resource type, 415 for another media type).
   * Any other refusal the contract names (a 404, a 429) says nothing either way.
   */
  refusedWith?: number[];
  /** The parts of the kit that can judge it; both when absent (requirements.yaml). */
  checkedBy?: ('suite' | 'proxy')[];
  /**
   * The checks that can break it, besides the schema validation its `schemaFindings` route to: an
   * exchange check's name (contract/checks/) or one of JUDGES_OUTSIDE_CHECKS.
   */
  judgedBy?: string[];
  /** What a run that judged it on no exchange reports, and whether that is the target's legal choice. */
  notExercised?: NotExercisedPolicy;
  /**
   * What the contract must have for the requirement to apply: without it no exchange can judge the requirement, and
   * the contract leaves it out (a revision removing the only list takes the query-parameter rules with it).
   */
  appliesWhen?: ContractFeature;
}

/**
 * `queryParameters`: some operation takes a query parameter. `integerMembers`: some response body has a member typed
 * `integer`.
 */
export type ContractFeature = 'queryParameters' | 'integerMembers';

export interface NotExercisedPolicy {
  /** Why, in a vendor's words: "no answer was 401". */
  reason: string;
  /**
   * True when only an answer the target may legally never give exercises it: not judging it leaves the run complete.
   */
  byTargetChoice?: boolean;
}

/** A requirement a check that can break it judged on one exchange: it held unless a finding names it. */
export interface Judged {
  requirement: string;
  location: Location;
}

/** A requirement a check that can break it met on one exchange but could not judge, with why. */
export interface Unjudged extends Judged {
  reason: string;
}

/** Everything judging one exchange showed: what broke, what was judged, what could not be. */
export interface Assessment {
  findings: Finding[];
  judged: Judged[];
  unjudged: Unjudged[];
}

/** One finding shape everywhere: suite, proxy, reference server tests and reports. */
export interface Finding {
  requirement: string;
  level: Level;
  location: Location;
  /** RFC 6901 pointer into the body, or a query parameter name such as `page[limit]`. */
  pointer: string;
  message: string;
  expected?: string;
  actual?: string;
}

export type Headers = Record<string, string | string[] | undefined>;

export interface HttpRequest {
  method: string;
  /** Path with or without the query string; the base path is stripped by the router. */
  path: string;
  headers: Headers;
  /** Raw body text, when there is one. */
  bodyText?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  bodyText?: string;
  /**
   * Whether the body's bytes were UTF-8, when they were read as bytes; absent when only their text was seen (a HAR's
   * text).
   */
  utf8?: Utf8Reading;
}

export interface ValidateOptions {
  /** When false, messages describe values by JSON type only (for logs of production traffic). */
  includeValues?: boolean;
  /**
   * The message had a body the caller did not keep (too large to buffer): its media type is judged, its content is not.
   */
  bodyOmitted?: boolean;
  /**
   * Schema errors of one shape described one by one; past it they are counted into one finding (default
   * FINDING_LIMITS.perRule).
   */
  listedPerShape?: number;
}
