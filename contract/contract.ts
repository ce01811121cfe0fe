// The contract: schemas/openapi.yaml and schemas/requirements.yaml, loaded and compiled once
// per process. Everything else in the kit asks this module what the API promises.
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expandCatalogue, requirementApplies, type CatalogueFile } from './catalogue.ts';
import { DEFAULT_LEGACY_HEADER } from './credentials.ts';
import { SCHEMA_JUDGE } from './judges.ts';
import { PARSE_CACHE_DIR, parseYamlCached } from './parse-cache.ts';
import { inlineRefs } from './resolve.ts';
import { compileCached, validatorFolder } from './validator-cache.ts';
import type { Finding, Location, Requirement, SchemaFindingRoute } from './types.ts';
import { successBody } from './members.ts';
import { LIST_ROLES, OPERATION_ROLES, type Operation, type OperationRole } from './operation.ts';

export const MEDIA_TYPE = 'application/vnd.api+json';
export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));

type Schema = Record<string, unknown>;

export { LIST_ROLES, OPERATION_ROLES, type Operation, type OperationRole } from './operation.ts';
const ALL_ROLES: readonly string[] = [...OPERATION_ROLES, ...LIST_ROLES];

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

const extensionKeywords = [
  'x-recommended-pattern',
  'x-values-seen',
  'x-values-not-shown',
  'x-names-not-shown',
  'x-maximum-not-shown',
  'x-replaced-by',
  'x-record',
];

/**
 * `full`: every error, each carrying the failing value and schema (the messages need them);
 * `quick`: stops at the first error and builds no message, so a valid message costs one pass
 * and a broken one stops where it breaks (validate.ts reads the full errors of a bounded part).
 * strict: unknown keywords and ambiguous types are errors.
 */
const AJV_OPTIONS = {
  full: { strict: true, allErrors: true, verbose: true },
  quick: { strict: true, allErrors: false, messages: false },
} as const;

/** `code.source` keeps the generated code, for the validator cache (validator-cache.ts) to write. */
export function createAjv(errors: 'full' | 'quick' = 'full', code: { source?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...AJV_OPTIONS[errors], code });
  addFormats.default(ajv);
  ajv.addVocabulary(extensionKeywords);
  return ajv;
}

/** Everything createAjv configures an instance with, naming its validators in the validator cache. */
function ajvSettings(errors: 'full' | 'quick'): string {
  return JSON.stringify({
    errors,
    options: AJV_OPTIONS[errors],
    formats: 'ajv-formats (all, full)',
    vocabulary: extensionKeywords,
  });
}

/** Shapes of schema violation whose requirement is remembered (Contract.requirementFor). */
const ROUTED_SHAPES_KEPT = 10_000;

export class Contract {
  readonly document: Schema;
  readonly version: string;
  readonly basePath = '/v3';
  readonly schemas: Record<string, Schema>;
  readonly requirements: Requirement[];
  /** The catalogue's requirements this contract leaves out: it lacks what they apply to (`appliesWhen`). */
  readonly leftOut: Requirement[];
  readonly operations: Operation[];
  readonly namedOperations: Record<string, string[]>;
  /** Statuses any operation may answer for conditions the spec leaves open (x-generic-statuses). */
  readonly genericStatuses: Set<number>;
  readonly legacyHeader: string;
  private readonly requirementsById: Map<string, Requirement>;
  private readonly requirementsByJudge = new Map<string, Set<string>>();
  /** Every schemaFindings route of the catalogue, in file order. */
  readonly schemaFindingRoutes: readonly CompiledRoute[];
  /** The schemas of the contract a validator is asked for; each is compiled on its first use, once. */
  private readonly validatedSchemas = new Set<Schema>();
  private readonly validators = new Map<Schema, ValidateFunction>();
  private readonly quickValidators = new Map<Schema, ValidateFunction>();
  /**
   * Every member name a schema of the contract names (properties, required): the members validation cannot leave out.
   */
  readonly namedMembers = new Set<string>();
  private readonly routedShapes = new Map<string, Requirement>();
  /**
   * Violations routed as they came (array indices as they were), up to ROUTED_SHAPES_KEPT, by
   * pointer: only the pointer is hashed, and the rest of the violation (strings the caller holds
   * already) is compared, instead of a key joining them being built and hashed per violation.
   */
  private readonly routedViolations = new Map<
    string,
    { violation: Omit<SchemaViolation, 'pointer'>; requirement: Requirement }[]
  >();
  private routedViolationsKept = 0;
  private readonly ajv: Ajv2020;
  private readonly quickAjv: Ajv2020;
  /** Where compiled validators are kept across processes (validator-cache.ts), when they are. */
  private readonly validatorFolder: string | undefined;

  /**
   * `parse` reads a YAML text given its file's name (`openapi`, `requirements`); loadContract's
   * goes through a cache. `validatorCache`: the cache folder keeping the compiled validators
   * (loadContract's); none by default.
   */
  constructor(
    openapiText: string,
    requirementsText: string,
    parse: (name: string, text: string) => unknown = (_name, text) => parseYaml(text),
    validatorCache?: string,
  ) {
    this.validatorFolder = validatorCache === undefined ? undefined : validatorFolder(openapiText, validatorCache);
    this.ajv = createAjv('full', { source: this.validatorFolder !== undefined });
    this.quickAjv = createAjv('quick', { source: this.validatorFolder !== undefined });
    const raw = parse('openapi', openapiText) as Schema;
    this.document = inlineRefs(raw);
    this.version = String((this.document.info as Schema).version);
    const components = (this.document.components ?? {}) as Schema;
    this.schemas = (components.schemas ?? {}) as Record<string, Schema>;
    const legacy = ((components.securitySchemes ?? {}) as Record<string, Schema>).LegacySessionAuth;
    this.legacyHeader = typeof legacy?.name === 'string' ? legacy.name : DEFAULT_LEGACY_HEADER;
    this.genericStatuses = new Set(((raw['x-generic-statuses'] as Schema | undefined)?.statuses ?? []) as number[]);
    this.namedOperations = ((raw['x-named-operations'] as Schema | undefined)?.groups ?? {}) as Record<
      string,
      string[]
    >;
    const operations = readOperations(this.document);
    const catalogue = expandCatalogue(parse('requirements', requirementsText) as CatalogueFile, (operationId) =>
      listItemType(operations.find((o) => o.operationId === operationId)),
    );
    this.requirements = catalogue.requirements.filter((requirement) => requirementApplies(requirement, operations));
    this.leftOut = catalogue.requirements.filter((requirement) => !this.requirements.includes(requirement));
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
    for (const requirement of this.requirements) {
      for (const judge of judgesOf(requirement)) {
        const bound = this.requirementsByJudge.get(judge) ?? new Set<string>();
        this.requirementsByJudge.set(judge, bound.add(requirement.id));
      }
    }
    // A role the operation's x-requirements name keeps its requirement; the templates it takes fill the others.
    for (const operation of operations)
      operation.roles = { ...catalogue.roles.get(operation.operationId), ...operation.roles };
    this.operations = operations;
    this.checkRoles();
    this.collectSchemas();
  }

  /**
   * The requirements the catalogue binds to a judge by name (`judgedBy`; the schema validation for
   * `schemaFindings`). A check also judges the requirements operations name for its roles:
   * requirementsBoundTo in contract/checks/index.ts has both.
   */
  requirementsJudgedBy(judge: string): ReadonlySet<string> {
    return this.requirementsByJudge.get(judge) ?? NONE;
  }

  /**
   * The judges the catalogue names for a requirement; judgesOf in contract/checks/index.ts adds the checks judging a
   * role it plays.
   */
  judgesOf(requirementId: string): string[] {
    return judgesOf(this.requirement(requirementId));
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

  /** The requirement playing `role` for an operation (its `x-requirements`), or undefined when none does. */
  requirementOf(operation: Operation | string, role: OperationRole): Requirement | undefined {
    const { roles } = typeof operation === 'string' ? this.operation(operation) : operation;
    const id = roles[role];
    return id === undefined ? undefined : this.requirement(id);
  }

  /** The requirements some operation names for `role` in its `x-requirements`. */
  requirementsInRole(role: OperationRole): string[] {
    return [...new Set(this.operations.flatMap((operation) => operation.roles[role] ?? []))];
  }

  /** The requirement a 2xx status the operation does not list breaks. */
  successRequirement(operationId: string): Requirement {
    const requirement = this.requirementOf(operationId, 'success');
    if (!requirement)
      throw new Error(`no requirement holds the success statuses of ${operationId} (x-requirements: success)`);
    return requirement;
  }

  operation(operationId: string): Operation {
    const operation = this.operations.find((o) => o.operationId === operationId);
    if (!operation) throw new Error(`unknown operation ${operationId}`);
    return operation;
  }

  /** The compiled validator of a schema object taken from this contract. */
  validator(schema: Schema): ValidateFunction {
    return this.compiled(schema, this.validators, this.ajv, 'full');
  }

  /** The validator of a schema that stops at its first error (see createAjv). */
  quickValidator(schema: Schema): ValidateFunction {
    return this.compiled(schema, this.quickValidators, this.quickAjv, 'quick');
  }

  /** Every validator, compiled now: a server compiles them before it serves, off the path of its first requests. */
  compileValidators(): void {
    for (const schema of this.validatedSchemas) {
      this.validator(schema);
      this.quickValidator(schema);
    }
  }

  /** The compiled validator of a named component, e.g. `NotificationGroup`. */
  componentValidator(name: string): ValidateFunction {
    const schema = this.schemas[name];
    if (!schema) throw new Error(`unknown component ${name}`);
    return this.validator(schema);
  }

  /** A finding for a requirement, its level taken from the catalogue. */
  finding(
    requirementId: string,
    location: Location,
    fields: { pointer?: string; message: string; expected?: string; actual?: string },
  ): Finding {
    const { level } = this.requirement(requirementId);
    return {
      requirement: requirementId,
      level,
      location,
      pointer: fields.pointer ?? '',
      message: fields.message,
      expected: fields.expected,
      actual: fields.actual,
    };
  }

  /** The requirement a schema violation breaks, per the catalogue's schemaFindings routes. */
  requirementFor(context: SchemaViolation): Requirement {
    // The same violation at the same place comes back on every exchange of a service that breaks
    // a rule: it is looked up as it is first, before its array indices are folded.
    const atPointer = this.routedViolations.get(context.pointer);
    const seen = atPointer?.find(
      ({ violation }) =>
        violation.operation === context.operation &&
        violation.location === context.location &&
        violation.status === context.status &&
        violation.keyword === context.keyword,
    );
    if (seen !== undefined) return seen.requirement;
    // Items of one array break the same rule: each shape is routed once (array indices folded;
    // no route names an index). Bounded: a body's member names are the sender's to choose.
    const shape = `${context.operation} ${context.location} ${context.status} ${context.keyword} ${context.pointer.replace(/\/\d+(?=\/|$)/g, '/0')}`;
    let requirement = this.routedShapes.get(shape);
    if (requirement === undefined) {
      requirement = this.routeFor(context).requirement;
      if (this.routedShapes.size < ROUTED_SHAPES_KEPT) this.routedShapes.set(shape, requirement);
    }
    if (this.routedViolationsKept < ROUTED_SHAPES_KEPT) {
      const kept = {
        violation: {
          operation: context.operation,
          location: context.location,
          status: context.status,
          keyword: context.keyword,
        },
        requirement,
      };
      if (atPointer) atPointer.push(kept);
      else this.routedViolations.set(context.pointer, [kept]);
      this.routedViolationsKept += 1;
    }
    return requirement;
  }

  /**
   * The requirements whose schemaFindings routes a validated document gave something to judge:
   * the route's operation, location and status match, and its pointer pattern (if any) matches a
   * pointer of the document (`pointers`, array indices folded to 0).
   */
  requirementsRoutedAt(
    operation: string,
    location: 'request' | 'response',
    status: number | undefined,
    pointers: ReadonlySet<string>,
  ): string[] {
    const routed = new Set<string>();
    for (const route of this.schemaFindingRoutes) {
      if (routed.has(route.requirement.id)) continue;
      if (route.operation && route.operation !== operation) continue;
      if (route.location && route.location !== location) continue;
      if (route.statusPattern && (status === undefined || !route.statusPattern.test(String(status)))) continue;
      if (route.pointerPattern && ![...pointers].some((pointer) => route.pointerPattern!.test(pointer))) continue;
      routed.add(route.requirement.id);
    }
    return [...routed];
  }

  /**
   * The most specific schemaFindings route that matches a schema violation (routeSpecificity);
   * catalogue order never decides. Routes of two requirements equally specific for one violation
   * are a mistake in the catalogue (contract/validate.test.ts finds them); the smaller id is taken.
   */
  routeFor(context: SchemaViolation): CompiledRoute {
    let best: CompiledRoute | undefined;
    for (const route of this.schemaFindingRoutes) {
      if (!routeMatches(route, context)) continue;
      if (best === undefined || compareRoutes(route, best) > 0) best = route;
    }
    if (best) return best;
    throw new Error(
      `no requirement routes ${context.location} ${context.keyword} at "${context.pointer}" of ${context.operation}`,
    );
  }

  /** Every operation names a success requirement, and each role an existing requirement. */
  private checkRoles(): void {
    for (const operation of this.operations) {
      for (const [role, id] of Object.entries(operation.roles)) {
        if (!ALL_ROLES.includes(role))
          throw new Error(
            `${operation.operationId}: unknown role "${role}" in x-requirements; roles: ${ALL_ROLES.join(', ')}`,
          );
        if (!this.requirementsById.has(id))
          throw new Error(
            `${operation.operationId}: x-requirements ${role} names ${id}, which schemas/requirements.yaml does not hold`,
          );
      }
      if (operation.roles.success === undefined)
        throw new Error(`${operation.operationId}: x-requirements names no success requirement`);
    }
  }

  /** Every schemaFindings route that matches a schema violation, most specific first. */
  routesMatching(context: SchemaViolation): CompiledRoute[] {
    return this.schemaFindingRoutes.filter((route) => routeMatches(route, context)).sort((a, b) => compareRoutes(b, a));
  }

  private collectSchemas(): void {
    const schemas = this.validatedSchemas;
    for (const schema of Object.values(this.schemas)) schemas.add(schema);
    for (const operation of this.operations) {
      schemas.add(querySchema(operation));
      if (operation.requestBody) schemas.add(operation.requestBody);
      for (const body of operation.responseBodies.values()) if (body) schemas.add(body);
    }
    for (const schema of schemas) collectNamedMembers(schema, this.namedMembers);
  }

  /**
   * A schema's validator from `cache`, compiled on first use: a process that only reads the
   * catalogue (a usage error, a reporter, the summary) compiles nothing, one that validates a
   * list compiles the list's schemas only. With a validator cache, a schema another process
   * compiled is read back instead.
   */
  private compiled(
    schema: Schema,
    cache: Map<Schema, ValidateFunction>,
    ajv: Ajv2020,
    errors: 'full' | 'quick',
  ): ValidateFunction {
    const known = cache.get(schema);
    if (known) return known;
    if (!this.validatedSchemas.has(schema)) throw new Error('schema is not one of this contract');
    const validate =
      this.validatorFolder === undefined
        ? ajv.compile(schema)
        : compileCached(ajv, ajvSettings(errors), schema, this.validatorFolder);
    cache.set(schema, validate);
    return validate;
  }
}

const NONE: ReadonlySet<string> = new Set();

function routeMatches(route: CompiledRoute, context: SchemaViolation): boolean {
  if (route.operation && route.operation !== context.operation) return false;
  if (route.location && route.location !== context.location) return false;
  if (route.keyword && route.keyword !== context.keyword) return false;
  if (route.statusPattern && (context.status === undefined || !route.statusPattern.test(String(context.status))))
    return false;
  if (route.pointerPattern && !route.pointerPattern.test(context.pointer)) return false;
  return true;
}

/**
 * A pointer pattern naming one member (anchored at its end, no `.*` or `.+`) is narrower than one naming a part of the
 * document.
 */
function pointerNarrowness(route: SchemaFindingRoute): number {
  if (!route.pointer) return 0;
  return route.pointer.endsWith('$') && !/\.[*+]/.test(route.pointer) ? 2 : 1;
}

/**
 * How specific a route is, most telling first: it names the failing keyword; its pointer names a
 * member, a part, or nothing; it names a status; it names an operation.
 */
export function routeSpecificity(route: SchemaFindingRoute): number[] {
  return [route.keyword ? 1 : 0, pointerNarrowness(route), route.status ? 1 : 0, route.operation ? 1 : 0];
}

/** Positive when `a` is more specific than `b`; between equals the smaller requirement id wins, so no order matters. */
function compareRoutes(a: CompiledRoute, b: CompiledRoute): number {
  const [sa, sb] = [routeSpecificity(a), routeSpecificity(b)];
  for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sa[i] - sb[i];
  return a.requirement.id < b.requirement.id ? 1 : a.requirement.id > b.requirement.id ? -1 : 0;
}

function judgesOf(requirement: Requirement): string[] {
  return [...(requirement.schemaFindings ? [SCHEMA_JUDGE] : []), ...(requirement.judgedBy ?? [])];
}

/** Adds the names every `properties` and `required` of a schema (and of its subschemas) holds. */
function collectNamedMembers(schema: unknown, names: Set<string>): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) collectNamedMembers(item, names);
    return;
  }
  const object = schema as Schema;
  if (object.properties && typeof object.properties === 'object')
    for (const name of Object.keys(object.properties)) names.add(name);
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
      if (p.required) required.push(p.name);
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
        .map((p) => ({
          name: String(p.name),
          style: p.style as string | undefined,
          schema: p.schema as Schema,
          required: p.required === true,
        }));
      const requestBody = mediaSchema(spec.requestBody as Schema | undefined);
      const responseBodies = new Map<number, Schema | null>();
      for (const [status, response] of Object.entries((spec.responses ?? {}) as Record<string, Schema>)) {
        responseBodies.set(Number(status), mediaSchema(response) ?? null);
      }
      const dataSchema = ((requestBody?.properties as Schema | undefined)?.data ?? {}) as Schema;
      const typeSchema = ((dataSchema.properties as Schema | undefined)?.type ?? {}) as Schema;
      operations.push({
        operationId: String(spec.operationId),
        ...(typeof spec.summary === 'string' ? { summary: spec.summary } : {}),
        roles: readRoles(spec['x-requirements']),
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

/** The `type` of a list operation's items (its item schema's `type` const), for the templates' `{itemType}`. */
function listItemType(operation: Operation | undefined): string | undefined {
  const data = (((operation === undefined ? undefined : successBody(operation))?.properties ?? {}) as Schema).data as
    Schema | undefined;
  const type = (((data?.items as Schema | undefined)?.properties ?? {}) as Schema).type as Schema | undefined;
  return typeof type?.const === 'string' ? type.const : undefined;
}

function readRoles(value: unknown): Operation['roles'] {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('x-requirements must map roles to requirement ids');
  return Object.fromEntries(Object.entries(value).map(([role, id]) => [role, String(id)]));
}

function mediaSchema(holder: Schema | undefined): Schema | undefined {
  const content = holder?.content as Record<string, Schema> | undefined;
  return content?.[MEDIA_TYPE]?.schema as Schema | undefined;
}

let shared: Contract | undefined;
let schemaDirectory = SCHEMA_DIR;

/**
 * Makes the process-wide contract the one in another directory holding an openapi.yaml and a
 * requirements.yaml (a copy of schemas/ with one more operation, say). Only before anything has
 * loaded the contract: every part of the kit reads the same one.
 */
export function useSchemaDirectory(directory: string): void {
  const wanted = directory.endsWith(sep) ? directory : directory + sep;
  if (shared !== undefined && wanted !== schemaDirectory)
    throw new Error(`the contract was already loaded from ${schemaDirectory}`);
  schemaDirectory = wanted;
}

/** The process-wide contract, loaded and compiled on first use. */
export function loadContract(): Contract {
  shared ??= new Contract(
    readFileSync(join(schemaDirectory, 'openapi.yaml'), 'utf8'),
    readFileSync(join(schemaDirectory, 'requirements.yaml'), 'utf8'),
    parseYamlCached,
    PARSE_CACHE_DIR,
  );
  return shared;
}
