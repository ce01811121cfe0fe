// Regression cases: exchanges that once broke a requirement, kept as data in a target file's
// `regressionCases` list (the vendor's repository keeps them, not generated test code). Each names
// the request (method, path under the base URL, the credential scheme, never a token), the
// requirement it must not break again, and why it is kept. `replay --save-cases` appends to the
// list, and so does `run --save-cases` with the inputs its generation found (those name their
// operation); `run` executes each case before the rest of the suite, under its requirement.
import { existsSync, writeFileSync } from 'node:fs';
import { Document, isMap, isSeq, parseDocument } from 'yaml';
import { loadContract } from '../contract/index.ts';
import { TargetError } from './target.ts';
import { parseTargetDocument, readTargetText, type TargetFile } from './target-file.ts';

/** The credential a case sends, by scheme (section 5): the run's own token in it, or none. */
export const CASE_CREDENTIALS = ['session', 'pat', 'legacy', 'none'] as const;
export type CaseCredentials = (typeof CASE_CREDENTIALS)[number];

export interface RegressionRequest {
  method: string;
  /** Under the base URL, query included: `/notification-groups?filter[type]=portal`. */
  path: string;
  credentials: CaseCredentials;
  /** Other headers the request carried (never a credential). */
  headers?: Record<string, string>;
  /** The body, as sent. */
  body?: string;
}

export interface RegressionCase {
  /** What the case is, in a few words; it is part of the test's title. */
  name: string;
  /** The requirement the request must not break again (an id of the catalogue). */
  requirement: string;
  /** Why it is kept: where and when it was seen, what was wrong. */
  why: string;
  /** Set on an input generation found (run --save-cases): the operation it is an input of, judged as generation is. */
  operation?: string;
  request: RegressionRequest;
}

/**
 * The regression cases of a target file (none when the file has no list); an unknown requirement id is a usage error.
 */
export function readRegressionCases(path: string, requirementIds: readonly string[]): RegressionCase[] {
  const text = readTargetText(path);
  return parseRegressionCases(text, path, requirementIds);
}

export function parseRegressionCases(
  text: string,
  source: string,
  requirementIds: readonly string[],
): RegressionCase[] {
  return targetFileRegressionCases(
    { path: source, document: parseTargetDocument(text, source) as Record<string, unknown> },
    requirementIds,
  );
}

/**
 * The regression cases of a target file read once; an unknown requirement id, or an operation the contract does not
 * hold, is a usage error.
 */
export function targetFileRegressionCases(
  file: TargetFile,
  requirementIds: readonly string[],
  operationIds: readonly string[] = loadContract().operations.map((o) => o.operationId),
): RegressionCase[] {
  const { document, path: source } = file;
  // The file was checked against targets/target.schema.json when it was read.
  const cases = (document.regressionCases ?? []) as RegressionCase[];
  const unknown = cases.filter((c) => !requirementIds.includes(c.requirement)).map((c) => c.requirement);
  if (unknown.length > 0)
    throw new TargetError(
      `target file ${source}: regression case for ${[...new Set(unknown)].join(', ')}, which is no requirement of the catalogue (see las-conformance contract)`,
    );
  const gone = cases.filter((c) => c.operation !== undefined && !operationIds.includes(c.operation));
  if (gone.length > 0)
    throw new TargetError(
      `target file ${source}: regression case "${gone[0].name}" is an input of ${gone[0].operation}, which is no operation of the contract (see las-conformance contract)`,
    );
  const names = cases.map((c) => c.name);
  const repeated = names.filter((name, i) => names.indexOf(name) !== i);
  if (repeated.length > 0)
    throw new TargetError(`target file ${source}: more than one regression case named "${repeated[0]}"`);
  return cases;
}

/**
 * Appends cases to the file's `regressionCases` list (the file is created when missing; its other
 * keys and comments are kept). A case whose requirement, method, path and body the list already
 * holds is left out. Returns the cases added.
 */
export function saveRegressionCases(
  path: string,
  cases: readonly RegressionCase[],
  requirementIds: readonly string[],
): RegressionCase[] {
  const text = existsSync(path) ? readTargetText(path) : '';
  // A new file is a block mapping, as a person writes one (`parseDocument('{}')` would be a flow one).
  const document: Document = text.trim() === '' ? new Document({}) : parseDocument(text);
  if (document.errors.length > 0)
    throw new TargetError(`target file ${path} is not valid YAML: ${document.errors[0].message.split('\n')[0]}`);
  if (!isMap(document.contents)) throw new TargetError(`target file ${path} is not a YAML mapping`);
  const existing = text.trim() === '' ? [] : parseRegressionCases(text, path, requirementIds);
  const held = new Set(existing.map(caseKey));
  const names = new Set(existing.map((c) => c.name));
  const added: RegressionCase[] = [];
  for (const c of cases) {
    if (held.has(caseKey(c))) continue;
    const named = { ...c, name: uniqueName(c.name, names) };
    names.add(named.name);
    held.add(caseKey(named));
    added.push(named);
  }
  if (added.length === 0) return [];
  if (!isSeq(document.get('regressionCases'))) document.set('regressionCases', document.createNode([]));
  const list = document.get('regressionCases');
  // An empty `regressionCases: []` is a flow sequence: the cases appended to it are written one key a line.
  if (isSeq(list)) list.flow = false;
  for (const c of added) document.addIn(['regressionCases'], document.createNode(c));
  const written = document.toString({ lineWidth: 0 });
  // The file must still be a target file: checked before it is written.
  parseRegressionCases(written, path, requirementIds);
  writeFileSync(path, written);
  return added;
}

function caseKey(c: RegressionCase): string {
  return JSON.stringify([c.requirement, c.request.method, c.request.path, c.request.body ?? null]);
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  let n = 2;
  while (taken.has(`${name} (${n})`)) n += 1;
  return `${name} (${n})`;
}
