// The contract: schemas/openapi.yaml and schemas/requirements.yaml, loaded and compiled once
// per process. Everything else in the kit asks this module what the API promises.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { DEFAULT_LEGACY_HEADER } from './credentials.ts';
import { inlineRefs } from './resolve.ts';
import type { Finding, Location, Requirement, SchemaFindingRoute } from './types.ts';
import type { QueryParameter } from './query.ts';

export const MEDIA_TYPE = 'application/vnd.api+json';
export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));

type Schema = Record<string, unknown>;

export interface Operation {
  operationId: string;
  method: string;
  pathTemplate: string;
  parameters: QueryParameter[];
  /** Resolved request body schema, when the operation takes a body. */
  requestBody?: Schema;
  /** The resource type a create operation's `data.type` must be. */
  resourceType?: string;
  statuses: number[];
  /** Resolved response body schemas by status; a listed status without a body maps to null. */
  responseBodies: Map<number, Schema | null>;
}

/** A schemaFindings entry of the catalogue, compiled, with the requirement it routes to. */
export interface CompiledRoute extends SchemaFindingRoute {
  requirement: Requirement;
  statusPattern?: RegExp;
  pointerPattern?: RegExp;
}

/** Where a schema violation was found: what the catalogue's routes match on. */
export interface SchemaViolation {
  operation: string;
  location: 'request' | 'response';
  status?: number;
  keyword: string;
  pointer: string;
}

export interface SchemaCompiler {
  compile(schema: Schema): ValidateFunction;
}

const extensionKeywords = ['x-recommended-pattern', 'x-values-seen', 'x-values-not-shown', 'x-replaced-by'];

/**
 * `full`: every error, each carrying the failing value and schema (the messages need them);
 * `quick`: stops at the first error and builds no message, so a valid message costs one pass
 * and a broken one stops where it breaks (validate.ts reads the full errors of a bounded part).
 */
export function createAjv(errors: 'full' | 'quick' = 'full'): Ajv2020 {
  // strict: unknown keywords and ambiguous types are errors.
  const ajv = new Ajv2020(errors === 'full' ? { strict: true, allErrors: true, verbose: true } : { strict: true, allErrors: false, messages: false });
  addFormats.default(ajv);
  ajv.addVocabulary(extensionKeywords);
  return ajv;
}

/** Shapes of schema violation whose requirement is remembered (Contract.requirementFor). */
const ROUTED_SHAPES_KEPT = 10_000;

export class Contract {
  readonly document: Schema;
  readonly version: string;
  readonly basePath = '/v3';
  readonly schemas: Record<string, Schema>;
  readonly requirements: Requirement[];
  readonly operations: Operation[];
  readonly namedOperations: Record<string, string[]>;
  /** Statuses any operation may answer for conditions the spec leaves open (x-generic-statuses). */
  readonly genericStatuses: Set<number>;
  readonly legacyHeader: string;
  private readonly requirementsById: Map<string, Requirement>;
  /** Every schemaFindings route of the catalogue, in file order. */
  readonly schemaFindingRoutes: readonly CompiledRoute[];
  private readonly validators = new Map<Schema, ValidateFunction>();
  private readonly quickValidators = new Map<Schema, ValidateFunction>();
  /** Every member name a schema of the contract names (properties, required): the members validation cannot leave out. */
  readonly namedMembers = new Set<string>();
  private readonly routedShapes = new Map<string, Requirement>();
  private readonly ajv = createAjv('full');
  private readonly quickAjv = createAjv('quick');

  constructor(openapiText: string, requirementsText: string) {
    const raw = parseYaml(openapiText) as Schema;
    this.document = inlineRefs(raw);
    this.version = String((this.document.info as Schema).version);
    const components = (this.document.components ?? {}) as Schema;
    this.schemas = (components.schemas ?? {}) as Record<string, Schema>;
    const legacy = ((components.securitySchemes ?? {}) as Record<string, Schema>).LegacySessionAuth;
    this.legacyHeader = String(legacy?.name ?? DEFAULT_LEGACY_HEADER);
    this.genericStatuses = new Set(((raw['x-generic-statuses'] as Schema | undefined)?.statuses ?? []) as number[]);
    this.namedOperations = ((raw['x-named-operations'] as Schema | undefined)?.groups ?? {}) as Record<string, string[]>;
    this.requirements = (parseYaml(requirementsText) as { requirements: Requirement[] }).requirements;
    this.requirementsById = new Map(this.requirements.map((r) => [r.id, r]));
    this.schemaFindingRoutes = this.requirements.flatMap((requirement) =>
      (requirement.schemaFindings ?? []).map((route) => ({
        ...route,
        requirement,
        statusPattern: route.status ? new RegExp(route.status) : undefined,
        // dotAll: a member name may hold any character, a line break included ("a\nb").
        pointerPattern: route.pointer ? new RegExp(route.pointer, 's') : undefined,
      })),
    );
    this.operations = readOperations(this.document);
    this.compileAll();
  }

  requirement(id: string): Requirement {
    const requirement = this.requirementsById.get(id);
    if (!requirement) throw new Error(`unknown requirement id ${id}`);
    return requirement;
  }

  /** The requirement a server breaks by answering 2xx to a request that breaks `requirementId`. */
  requirementBrokenByAccepting(requirementId: string): Requirement {
    return this.requirement(this.requirement(requirementId).acceptedBreaks ?? requirementId);
  }

  /** The requirement a 2xx status the operation does not list breaks. */
  successRequirement(operationId: string): Requirement {
    const requirement = this.requirements.find((r) => r.successOf === operationId);
    if (!requirement) throw new Error(`no requirement holds the success statuses of ${operationId}`);
    return requirement;
  }

  operation(operationId: string): Operation {
    const operation = this.operations.find((o) => o.operationId === operationId);
    if (!operation) throw new Error(`unknown operation ${operationId}`);
    return operation;
  }

  /** The compiled validator of a schema object taken from this contract (compiled at load). */
  validator(schema: Schema): ValidateFunction {
    const validate = this.validators.get(schema);
    if (!validate) throw new Error('schema was not compiled by this contract');
    return validate;
  }

  /** The validator of a schema that stops at its first error (see createAjv). */
  quickValidator(schema: Schema): ValidateFunction {
    const validate = this.quickValidators.get(schema);
    if (!validate) throw new Error('schema was not compiled by this contract');
    return validate;
  }

  /** The compiled validator of a named component, e.g. `NotificationGroup`. */
  componentValidator(name: string): ValidateFunction {
    const schema = this.schemas[name];
    if (!schema) throw new Error(`unknown component ${name}`);
    return this.validator(schema);
  }

  /** A finding for a requirement, its level taken from the catalogue. */
  finding(requirementId: string, location: Location, fields: { pointer?: string; message: string; expected?: string; actual?: string }): Finding {
    const { level } = this.requirement(requirementId);
    return { requirement: requirementId, level, location, pointer: fields.pointer ?? '', message: fields.message, expected: fields.expected, actual: fields.actual };
  }

  /** The requirement a schema violation breaks, per the catalogue's schemaFindings routes. */
  requirementFor(context: SchemaViolation): Requirement {
    // Items of one array break the same rule: each shape is routed once (array indices folded;
    // no route names an index). Bounded: a body's member names are the sender's to choose.
    const shape = `${context.operation} ${context.location} ${context.status} ${context.keyword} ${context.pointer.replace(/\/\d+(?=\/|$)/g, '/0')}`;
    let requirement = this.routedShapes.get(shape);
    if (requirement === undefined) {
      requirement = this.routeFor(context).requirement;
      if (this.routedShapes.size < ROUTED_SHAPES_KEPT) this.routedShapes.set(shape, requirement);
    }
    return requirement;
  }

  /** The first schemaFindings route, in catalogue order, that matches a schema violation. */
  routeFor(context: SchemaViolation): CompiledRoute {
    for (const route of this.schemaFindingRoutes) {
      if (route.operation && route.operation !== context.operation) continue;
      if (route.location && route.location !== context.location) continue;
      if (route.keyword && route.keyword !== context.keyword) continue;
      if (route.statusPattern && (context.status === undefined || !route.statusPattern.test(String(context.status)))) continue;
      if (route.pointerPattern && !route.pointerPattern.test(context.pointer)) continue;
      return route;
    }
    throw new Error(`no requirement routes ${context.location} ${context.keyword} at "${context.pointer}" of ${context.operation}`);
  }

  private compileAll(): void {
    const schemas = new Set<Schema>(Object.values(this.schemas));
    for (const operation of this.operations) {
      schemas.add(querySchema(operation));
      if (operation.requestBody) schemas.add(operation.requestBody);
      for (const body of operation.responseBodies.values()) if (body) schemas.add(body);
    }
    for (const schema of schemas) {
      this.validators.set(schema, this.ajv.compile(schema));
      this.quickValidators.set(schema, this.quickAjv.compile(schema));
      collectNamedMembers(schema, this.namedMembers);
    }
  }
}

/** Adds the names every `properties` and `required` of a schema (and of its subschemas) holds. */
function collectNamedMembers(schema: unknown, names: Set<string>): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) collectNamedMembers(item, names);
    return;
  }
  const object = schema as Schema;
  if (object.properties && typeof object.properties === 'object') for (const name of Object.keys(object.properties)) names.add(name);
  if (Array.isArray(object.required)) for (const name of object.required) names.add(String(name));
  for (const value of Object.values(object)) collectNamedMembers(value, names);
}

const querySchemas = new WeakMap<Operation, Schema>();

/** The query of an operation as one object schema: `{ filter: {...}, page: {...}, include: [...] }`. */
export function querySchema(operation: Operation): Schema {
  let schema = querySchemas.get(operation);
  if (!schema) {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const p of operation.parameters) {
      properties[p.name] = p.schema;
      if ((p as QueryParameter & { required?: boolean }).required) required.push(p.name);
    }
    schema = { type: 'object', properties, required };
    querySchemas.set(operation, schema);
  }
  return schema;
}

function readOperations(document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [pathTemplate, item] of Object.entries((document.paths ?? {}) as Record<string, Schema>)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const spec = item[method] as Schema | undefined;
      if (!spec) continue;
      const parameters = ((spec.parameters ?? []) as Schema[])
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: String(p.name), style: p.style as string | undefined, schema: p.schema as Schema, required: p.required === true }));
      const requestBody = mediaSchema(spec.requestBody as Schema | undefined);
      const responseBodies = new Map<number, Schema | null>();
      for (const [status, response] of Object.entries((spec.responses ?? {}) as Record<string, Schema>)) {
        responseBodies.set(Number(status), mediaSchema(response) ?? null);
      }
      const dataSchema = ((requestBody?.properties as Schema | undefined)?.data ?? {}) as Schema;
      const typeSchema = ((dataSchema.properties as Schema | undefined)?.type ?? {}) as Schema;
      operations.push({
        operationId: String(spec.operationId),
        method: method.toUpperCase(),
        pathTemplate,
        parameters,
        requestBody,
        resourceType: typeof typeSchema.const === 'string' ? typeSchema.const : undefined,
        statuses: [...responseBodies.keys()],
        responseBodies,
      });
    }
  }
  return operations;
}

function mediaSchema(holder: Schema | undefined): Schema | undefined {
  const content = holder?.content as Record<string, Schema> | undefined;
  return content?.[MEDIA_TYPE]?.schema as Schema | undefined;
}

let shared: Contract | undefined;

/** The process-wide contract, loaded and compiled on first use. */
export function loadContract(): Contract {
  shared ??= new Contract(
    readFileSync(new URL('openapi.yaml', `file://${SCHEMA_DIR}`), 'utf8'),
    readFileSync(new URL('requirements.yaml', `file://${SCHEMA_DIR}`), 'utf8'),
  );
  return shared;
}
