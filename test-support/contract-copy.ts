// A copy of schemas/ changed as a contributor changes it when the specification grows or shrinks:
// path items and components added, requirements joined to the catalogue, path items removed with
// the components and requirements only they had. The proofs point the process-wide contract at
// such a copy (useSchemaDirectory) and run the kit against it with no change to its code.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { isTemplateUse, type TemplateUse } from '../contract/catalogue.ts';
import { SCHEMA_DIR } from '../contract/contract.ts';
import type { Requirement } from '../contract/types.ts';

/** What changes: path items added or removed, components added, requirements joined. */
export interface ContractChange {
  removedPaths?: string[];
  paths?: Record<string, unknown>;
  components?: { schemas: Record<string, unknown> };
  /** Joined to the catalogue before the entries of its first create operation. */
  requirements?: (Requirement | TemplateUse)[];
}

/** An operation of a path item as parsed: the members this file reads. */
interface OperationYaml {
  operationId?: string;
  'x-requirements'?: Record<string, string>;
}
/** openapi.yaml as parsed: the members this file reads and changes. */
interface OpenApiYaml {
  paths: Record<string, Record<string, OperationYaml>>;
  components: { schemas: Record<string, unknown> };
}
type CatalogueEntry = Requirement | TemplateUse;

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/** The component names `value` refers to, and those they refer to in turn. */
function referencedComponents(
  value: unknown,
  schemas: Record<string, unknown>,
  found = new Set<string>(),
): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedComponents(item, schemas, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
      const name = key === '$ref' && typeof member === 'string' ? COMPONENT_REF.exec(member)?.[1] : undefined;
      if (name === undefined) referencedComponents(member, schemas, found);
      else if (!found.has(name)) {
        found.add(name);
        referencedComponents(schemas[name], schemas, found);
      }
    }
  }
  return found;
}

/** Takes out a path item, the components only it used and the requirements only its operations had. */
function removePath(openapi: OpenApiYaml, catalogue: { requirements: CatalogueEntry[] }, path: string): void {
  const item = openapi.paths[path] as Record<string, OperationYaml> | undefined;
  if (item === undefined) throw new Error(`openapi.yaml has no path ${path} to remove`);
  const removed = Object.values(item);
  const ids = new Set(removed.map((operation) => String(operation.operationId)));
  const named = new Set(removed.flatMap((operation) => Object.values(operation['x-requirements'] ?? {}).map(String)));
  // Named for one of their roles, taking templates for one of them, or routed only from them.
  const onlyTheirs = (r: CatalogueEntry) =>
    isTemplateUse(r)
      ? ids.has(r.operation)
      : named.has(r.id) ||
        (r.schemaFindings !== undefined &&
          r.schemaFindings.every((route) => route.operation !== undefined && ids.has(route.operation)));
  const schemas = openapi.components.schemas;
  const usedBefore = referencedComponents(openapi.paths, schemas);
  // Components no path uses (the generic documents) stay, with all they refer to.
  const generic = Object.keys(schemas)
    .filter((name) => !usedBefore.has(name))
    .map((name) => schemas[name]);
  delete openapi.paths[path];
  const usedAfter = referencedComponents([openapi.paths, generic], schemas);
  for (const name of usedBefore) if (!usedAfter.has(name)) delete schemas[name];
  catalogue.requirements = catalogue.requirements.filter((r) => !onlyTheirs(r));
}

/**
 * Whether a catalogue entry is `entry` (the same id, or the same operation's templates): a checkout that already holds
 * an addition (`npm run contract:change -- add`) gets no second copy of its requirements.
 */
function sameEntry(entry: CatalogueEntry): (other: CatalogueEntry) => boolean {
  return (other) =>
    isTemplateUse(entry)
      ? isTemplateUse(other) && other.operation === entry.operation
      : !isTemplateUse(other) && other.id === entry.id;
}

/** Writes a copy of schemas/ (openapi.yaml and requirements.yaml) with `change` made, and returns its directory. */
export function contractCopy(change: ContractChange): string {
  const openapi = parseYaml(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8')) as OpenApiYaml;
  const catalogue = parseYaml(readFileSync(join(SCHEMA_DIR, 'requirements.yaml'), 'utf8')) as {
    requirements: CatalogueEntry[];
  };
  const creating = Object.values(openapi.paths).flatMap((item) => (item.post ? [String(item.post.operationId)] : []));
  const routedFromCreate = (r: CatalogueEntry) =>
    !isTemplateUse(r) &&
    r.schemaFindings?.some((route) => route.operation !== undefined && creating.includes(route.operation));
  const at = catalogue.requirements.findIndex(routedFromCreate);
  const joined = (change.requirements ?? []).filter((entry) => !catalogue.requirements.some(sameEntry(entry)));
  catalogue.requirements.splice(at < 0 ? catalogue.requirements.length : at, 0, ...joined);
  for (const path of change.removedPaths ?? []) removePath(openapi, catalogue, path);
  Object.assign(openapi.paths, change.paths ?? {});
  Object.assign(openapi.components.schemas, change.components?.schemas ?? {});
  const directory = mkdtempSync(join(tmpdir(), 'las-contract-copy-'));
  writeFileSync(join(directory, 'openapi.yaml'), stringifyYaml(openapi));
  writeFileSync(join(directory, 'requirements.yaml'), stringifyYaml(catalogue));
  return directory;
}

/** The path items of the shipped contract, in its order: each holds operations the specification specifies. */
export function specifiedPaths(): string[] {
  return Object.keys((parseYaml(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8')) as OpenApiYaml).paths);
}
