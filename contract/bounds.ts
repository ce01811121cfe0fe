// Bounds on what one exchange can produce. A body of a few hundred kilobytes can break one rule
// hundreds of thousands of times (an array of 200,000 wrong items); whoever reports findings
// (the proxy's log, the reference server's 400 document) lists a bounded number of them and
// says how many more there were, so one request can never write an unbounded answer or log.
import type { Finding } from './types.ts';

/** Findings listed per exchange: per rule and direction, and in all. */
export const FINDING_LIMITS = { perRule: 10, total: 100 } as const;

/** A finding standing for others of its rule and direction that were not listed. */
export interface SummaryFinding extends Finding {
  /** How many findings this one stands for beyond itself. */
  omitted: number;
}

export interface FindingLimits {
  perRule: number;
  total: number;
}

/** The number of findings a listed finding stands for: itself, and those it summarizes. */
export function occurrences(finding: Finding): number {
  return 1 + ((finding as Partial<SummaryFinding>).omitted ?? 0);
}

/**
 * The items to list: the first `perRule` of each key, at most `total` in all, then one summary
 * per key for the rest, made by `summarize` from the first item left out and how many items
 * were left out (`weight` says how many one item stands for). Linear, no recursion or spread,
 * whatever the number of items.
 */
export function boundList<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  summarize: (first: T, count: number) => T,
  limits: FindingLimits = FINDING_LIMITS,
  weight: (item: T) => number = () => 1,
): T[] {
  if (items.length <= limits.perRule && items.length <= limits.total) return items as T[];
  const listed: T[] = [];
  const listedPerKey = new Map<string, number>();
  const omitted = new Map<string, { first: T; count: number }>();
  for (const item of items) {
    const key = keyOf(item);
    const count = listedPerKey.get(key) ?? 0;
    if (count < limits.perRule && listed.length < limits.total) {
      listed.push(item);
      listedPerKey.set(key, count + 1);
      continue;
    }
    const entry = omitted.get(key);
    if (entry) entry.count += weight(item);
    else omitted.set(key, { first: item, count: weight(item) });
  }
  for (const { first, count } of omitted.values()) listed.push(summarize(first, count));
  return listed;
}

/** The findings to list (boundList by rule and direction), each summary a SummaryFinding: "and N more". */
export function boundFindings(findings: readonly Finding[], limits: FindingLimits = FINDING_LIMITS): Finding[] {
  return boundList(findings, ruleAndDirection, summaryFinding, limits, occurrences);
}

/** Rules and directions whose key is kept (the catalogue has a few dozen rules, three directions). */
const RULE_KEYS_KEPT = 1000;
const ruleKeys = new Map<string, Map<string, string>>();

/**
 * A finding's rule and direction as one string, for keying maps by them. Each key is made once and
 * reused: a key joined anew for every finding would be built and hashed anew on every exchange.
 */
export function ruleAndDirection(finding: Pick<Finding, 'requirement' | 'location'>): string {
  let byDirection = ruleKeys.get(finding.requirement);
  if (byDirection === undefined) {
    if (ruleKeys.size >= RULE_KEYS_KEPT) return `${finding.requirement} ${finding.location}`;
    ruleKeys.set(finding.requirement, (byDirection = new Map<string, string>()));
  }
  let key = byDirection.get(finding.location);
  if (key === undefined) byDirection.set(finding.location, (key = `${finding.requirement} ${finding.location}`));
  return key;
}

function summaryFinding(first: Finding, count: number): SummaryFinding {
  return {
    requirement: first.requirement,
    level: first.level,
    location: first.location,
    pointer: '',
    message: `and ${count} more ${first.requirement} finding${count === 1 ? '' : 's'} in this ${first.location}, not listed (the first at ${first.pointer || 'the document'})`,
    omitted: count - 1,
  };
}

/** Schema errors read per message: past it, a message is known to be broken and no more is said. */
export const SCHEMA_ERRORS_DESCRIBED = 1000;
/**
 * Schema errors per message described in a full sentence; the rest are located and routed only (no more are ever
 * listed).
 */
export const SCHEMA_ERRORS_WORDED = 2 * FINDING_LIMITS.perRule;

/**
 * Characters kept of any text that reaches a finding (pointer, message, expected, actual): a
 * member name or a query key is the sender's to choose, and a megabyte of it must not be copied
 * into every finding, log line, refusal and dashboard page.
 */
export const FINDING_TEXT_MAX = { pointer: 256, message: 512, value: 256 } as const;

/**
 * The text itself when within `max` characters; else its head and its tail around one "…", `max` characters in all (the
 * tail keeps a pointer's last member).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  return `${text.slice(0, max - tail - 1)}…${text.slice(text.length - tail)}`;
}

/** The finding with each of its texts cut to FINDING_TEXT_MAX; the same object when none is longer. */
export function cutFinding<F extends Finding>(finding: F): F {
  const { pointer, message, expected, actual } = finding;
  if (
    pointer.length <= FINDING_TEXT_MAX.pointer &&
    message.length <= FINDING_TEXT_MAX.message &&
    (expected ?? '').length <= FINDING_TEXT_MAX.value &&
    (actual ?? '').length <= FINDING_TEXT_MAX.value
  )
    return finding;
  return {
    ...finding,
    pointer: cutText(pointer, FINDING_TEXT_MAX.pointer),
    message: cutText(message, FINDING_TEXT_MAX.message),
    ...(expected === undefined ? {} : { expected: cutText(expected, FINDING_TEXT_MAX.value) }),
    ...(actual === undefined ? {} : { actual: cutText(actual, FINDING_TEXT_MAX.value) }),
  };
}
