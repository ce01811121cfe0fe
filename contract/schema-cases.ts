// The data-driven schema cases of schemas/cases/: hand-written documents that pin the
// specification's examples, plus the systematic cases derived from each file's complete example
// and the component's schema (each required member removed, each typed member given each wrong
// JSON type, each enum and constant given a value outside it). A new schema member brings its
// cases with it. Used by the contract's tests and by the standalone-schema tests.
import { readdirSync, readFileSync } from 'node:fs';
import { MEDIA_TYPE, type Contract, type Operation } from './contract.ts';
import { schemaMembers, SAMPLE_OF_TYPE, withoutValueAt, withValueAt, wrongTypes, type BodyMember } from './members.ts';
import { hasValueAt } from './resolve.ts';
import { validateGenericRequest, validateGenericResponse, validateRequest, validateResponse } from './validate.ts';
import type { Finding } from './types.ts';

export interface SchemaCase {
  description: string;
  /** The document under test (a hand case may give `change` and `remove` instead: see CaseSource). */
  data: unknown;
  valid: boolean;
  /** Where the contract reports the violation (for an invalid case). */
  pointer?: string;
  /** The specification section the case pins. */
  spec: string;
  /** The one complete valid example of a file, the source of the generated cases. */
  complete?: true;
  /**
   * The requirement each named use routes the violation to, e.g. `{"<operationId> request":
   * "<requirement id>"}`; a status alone (`"400"`) names every use answering it, so a component many
   * operations share (an error document) names none of them (requirementRoutedFor).
   */
  requirements?: Record<string, string>;
}

export interface CaseFile {
  description: string;
  /** The component of openapi.yaml the cases are validated against. */
  schema: string;
  tests: SchemaCase[];
}

/**
 * A hand case as written: its whole `data`, or only what differs from the file's complete
 * example, as members to set (`change`: pointer → value) and to take out (`remove`: pointers).
 */
export type CaseSource = Omit<SchemaCase, 'data'> & {
  data?: unknown;
  change?: Record<string, unknown>;
  remove?: string[];
};

export interface CaseFileSource extends Omit<CaseFile, 'tests'> {
  tests: CaseSource[];
}

export const CASE_DIR = new URL('../schemas/cases/', import.meta.url);
export const CASE_FILE_SCHEMA = new URL('../schemas/case-file.schema.json', import.meta.url);

/** Every case file as written, by file name, in name order. */
export function readCaseFileSources(): Map<string, CaseFileSource> {
  const names = readdirSync(CASE_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return new Map(
    names.map((name) => {
      try {
        return [name, JSON.parse(readFileSync(new URL(name, CASE_DIR), 'utf8')) as CaseFileSource];
      } catch (error) {
        throw new Error(`schemas/cases/${name}: ${(error as Error).message}`);
      }
    }),
  );
}

/** Every case file, by file name, in name order, each case's `data` whole. */
export function readCaseFiles(): Map<string, CaseFile> {
  return new Map([...readCaseFileSources()].map(([name, source]) => [name, resolveCaseFile(name, source)]));
}

/** A case file with each case's `change` and `remove` applied to a copy of the complete example's data. */
export function resolveCaseFile(name: string, source: CaseFileSource): CaseFile {
  const example = source.tests.find((c) => c.complete === true);
  const tests = source.tests.map(({ change, remove, ...rest }): SchemaCase => {
    if (change === undefined && remove === undefined) return { ...rest, data: rest.data };
    if (rest.data !== undefined)
      throw new Error(`schemas/cases/${name}: "${rest.description}" gives data and a change; give one`);
    if (!example)
      throw new Error(
        `schemas/cases/${name}: "${rest.description}" changes the complete example, but the file has none`,
      );
    let data = example.data;
    for (const pointer of remove ?? []) {
      if (!hasValueAt(data, pointer))
        throw new Error(
          `schemas/cases/${name}: "${rest.description}" removes ${pointer}, which the complete example does not have`,
        );
      data = withoutValueAt(data, pointer);
    }
    for (const [pointer, value] of Object.entries(change ?? {})) data = withValueAt(data, pointer, value);
    return { ...rest, data };
  });
  return { ...source, tests };
}

/** The hand-written cases of a file followed by those derived from its complete example. */
export function allCases(contract: Contract, file: CaseFile): SchemaCase[] {
  return [...file.tests, ...generatedCases(contract, file)];
}

export function completeExample(file: CaseFile): SchemaCase | undefined {
  return file.tests.find((c) => c.complete === true);
}

/** The systematic cases a component's schema implies for the file's complete example. */
export function generatedCases(contract: Contract, file: CaseFile): SchemaCase[] {
  const example = completeExample(file);
  if (!example) return [];
  return schemaMembers(contract.schemas[file.schema]).flatMap((member) => casesOfMember(member, example));
}

function casesOfMember(member: BodyMember, example: SchemaCase): SchemaCase[] {
  const where = member.pointer === '' ? 'the document' : member.pointer;
  const broken = (description: string, data: unknown): SchemaCase => ({
    description,
    data,
    valid: false,
    pointer: member.pointer,
    spec: example.spec,
  });
  const cases: SchemaCase[] = [];
  if (member.required && member.pointer !== '')
    cases.push(broken(`without required ${where}`, withoutValueAt(example.data, member.pointer)));
  for (const type of wrongTypes(member))
    cases.push(broken(`${where} as ${type}`, valueAt(example.data, member.pointer, SAMPLE_OF_TYPE[type])));
  if (member.enum)
    cases.push(
      broken(`${where} outside its allowed values`, valueAt(example.data, member.pointer, outsideOf(member.enum))),
    );
  if (member.const !== undefined)
    cases.push(
      broken(
        `${where} other than ${JSON.stringify(member.const)}`,
        valueAt(example.data, member.pointer, outsideOf([member.const])),
      ),
    );
  // Section 2.3: the full sets of these values are not shown, so another string is never wrong.
  if (member.valuesSeen)
    cases.push({
      description: `${where} with a value not seen in the specification`,
      data: valueAt(example.data, member.pointer, outsideOf(member.valuesSeen)),
      valid: true,
      spec: example.spec,
    });
  return cases;
}

function valueAt(document: unknown, pointer: string, value: unknown): unknown {
  return pointer === '' ? value : withValueAt(document, pointer, value);
}

/** A string none of the values is. */
function outsideOf(values: unknown[]): string {
  let candidate = 'SomethingElse';
  while (values.includes(candidate)) candidate += 'Else';
  return candidate;
}

/** One place a component is the whole body of a message the contract validates. */
export interface DocumentUse {
  /** `<operationId> request`, `<operationId> 200`, `generic 400`, ... */
  name: string;
  /** The status of the response it is the body of; none for a request. */
  status?: number;
  validate(contract: Contract, data: unknown): Finding[];
}

const requestHeaders = { authorization: 'Bearer r:case-token', 'content-type': MEDIA_TYPE };
const responseHeaders = { 'content-type': MEDIA_TYPE };

// validateGenericRequest and validateGenericResponse read JsonApiDocument for requests and 2xx
// responses and ErrorDocument for error responses.
const genericUses: Record<string, DocumentUse[]> = {
  JsonApiDocument: [
    {
      name: 'generic request',
      validate: (contract, data) =>
        validateGenericRequest(contract, {
          method: 'POST',
          path: '/v3/unspecified',
          headers: requestHeaders,
          bodyText: JSON.stringify(data),
        }),
    },
    {
      name: 'generic 200',
      status: 200,
      validate: (contract, data) =>
        validateGenericResponse(contract, { status: 200, headers: responseHeaders, bodyText: JSON.stringify(data) }),
    },
  ],
  ErrorDocument: [
    {
      name: 'generic 400',
      status: 400,
      validate: (contract, data) =>
        validateGenericResponse(contract, { status: 400, headers: responseHeaders, bodyText: JSON.stringify(data) }),
    },
  ],
};

/** Every message body the component is the schema of, found by identity in the resolved contract. */
export function documentUses(contract: Contract, component: string): DocumentUse[] {
  const schema = contract.schemas[component];
  const uses: DocumentUse[] = [];
  for (const operation of contract.operations) {
    if (operation.requestBody === schema) uses.push(requestUse(operation));
    for (const [status, body] of operation.responseBodies)
      if (body === schema) uses.push(responseUse(operation, status));
  }
  return [...uses, ...(genericUses[component] ?? [])];
}

function requestUse(operation: Operation): DocumentUse {
  return {
    name: `${operation.operationId} request`,
    validate: (contract, data) =>
      validateRequest(contract, operation, {
        method: operation.method,
        path: contract.basePath + operation.pathTemplate,
        headers: requestHeaders,
        bodyText: JSON.stringify(data),
      }),
  };
}

function responseUse(operation: Operation, status: number): DocumentUse {
  return {
    name: `${operation.operationId} ${status}`,
    status,
    validate: (contract, data) =>
      validateResponse(contract, operation, { status, headers: responseHeaders, bodyText: JSON.stringify(data) }),
  };
}

/** The requirement a case names for a use: by the use's name, else by the status it answers. */
export function requirementRoutedFor(schemaCase: SchemaCase, use: DocumentUse): string | undefined {
  const named = schemaCase.requirements ?? {};
  return named[use.name] ?? (use.status === undefined ? undefined : named[String(use.status)]);
}
