// Every component of openapi.yaml as a standalone JSON Schema 2020-12 document, for vendors who
// validate in another language. `npm run schemas:generate` writes them to schemas/json/; a test
// checks that the files on disk are what this module renders from openapi.yaml.
import { parse as parseYaml } from 'yaml';

type Schema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
export const SCHEMA_ID_BASE = 'https://las-conformance.dev/schemas/v3/';
const COMPONENT_REF = '#/components/schemas/';

// Keywords whose value is one schema, an array of schemas or a map of schemas (JSON Schema
// 2020-12 Core section 10 and Validation section 6). Every other keyword's value is data, so a
// `$ref` or an `example` member inside a `const` or `enum` value is left alone.
const SUBSCHEMA = new Set([
  'items',
  'not',
  'additionalProperties',
  'contains',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
const SUBSCHEMA_ARRAY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
// Schema Object keywords OpenAPI 3.1 adds to JSON Schema (OAS 3.1 section 4.8.24). `example`
// becomes the 2020-12 `examples`; the others have no meaning outside an OpenAPI document.
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'example']);

export function schemaFileName(component: string): string {
  return `${component}.schema.json`;
}

export function schemaId(component: string): string {
  return SCHEMA_ID_BASE + schemaFileName(component);
}

/** The standalone schema files of an OpenAPI document's text, by file name, in name order. */
export function renderSchemaFiles(openapiText: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of standaloneSchemas(parseYaml(openapiText) as Schema)) {
    files.set(schemaFileName(name), JSON.stringify(schema, null, 2) + '\n');
  }
  return files;
}

/** Each component of `components.schemas` as a standalone schema, by component name, in name order. */
export function standaloneSchemas(openapi: Schema): Map<string, Schema> {
  const components = ((openapi.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const standalone = new Map<string, Schema>();
  for (const name of Object.keys(components).sort()) {
    const body = sortKeys(toJsonSchema(components[name], name)) as Schema;
    standalone.set(name, { $schema: JSON_SCHEMA_DIALECT, $id: schemaId(name), title: name, ...body });
  }
  return standalone;
}

/** The `x-` keywords the standalone schemas use, which a strict validator must be told about. */
export function extensionKeywords(schemas: Iterable<Schema>): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('x-')) found.add(key);
        visit(value);
      }
    }
  };
  for (const schema of schemas) visit(schema);
  return [...found].sort();
}

function toJsonSchema(schema: unknown, component: string): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema as Schema)) {
    if (keyword === '$ref') out.$ref = rewriteRef(String(value), component);
    else if (keyword === 'example') out.examples ??= [value];
    else if (OPENAPI_ONLY.has(keyword)) continue;
    else if (SUBSCHEMA.has(keyword)) out[keyword] = toJsonSchema(value, component);
    else if (SUBSCHEMA_ARRAY.has(keyword)) out[keyword] = (value as unknown[]).map((s) => toJsonSchema(s, component));
    else if (SUBSCHEMA_MAP.has(keyword)) out[keyword] = mapValues(value as Schema, (s) => toJsonSchema(s, component));
    else out[keyword] = value;
  }
  return out;
}

/** `#/components/schemas/Relationship/properties/links` → `Relationship.schema.json#/properties/links`. */
function rewriteRef(ref: string, component: string): string {
  if (!ref.startsWith(COMPONENT_REF))
    throw new Error(`${component}: $ref ${ref} does not point into components.schemas`);
  const rest = ref.slice(COMPONENT_REF.length);
  const slash = rest.indexOf('/');
  const target = slash < 0 ? rest : rest.slice(0, slash);
  const fragment = slash < 0 ? '' : `#${rest.slice(slash)}`;
  if (target === component) return fragment || '#';
  return schemaFileName(target) + fragment;
}

function mapValues(object: Schema, transform: (value: unknown) => unknown): Schema {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, transform(value)]));
}

/** Object members in code-point order at every depth, so the output never depends on YAML order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Schema).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, member]) => [key, sortKeys(member)]));
}
