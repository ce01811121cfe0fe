// The error envelope (sections 4, 7; docs/certification.md §3), one error of each listed kind per operation: a
// 400, 401 and 403 answer carries `{"errors": [...]}` with at least one error object whose members
// are strings, `status` the HTTP status, in application/vnd.api+json; a query problem names its
// parameter and a body problem points into the request document (SHOULD). The contract checks
// every error answer of every other case the same way; these cases make sure each kind occurs.
import { bodyMembers, SAMPLE_OF_TYPE, withValueAt, wrongTypes, type Operation } from '../../contract/index.ts';
import type { Fixtures } from '../../targets/target.ts';
import type { CredentialHeaders, ConformanceCase } from '../case.ts';
import { rejectionBase } from '../documents.ts';
import {
  brokenRequirements,
  NO_FORBIDDEN_TOKEN,
  operations,
  refusedParameterQuery,
  uniqueTag,
  validInput,
  type OperationInput,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

const ENVELOPE = ['ERR-ENVELOPE', 'ERR-OBJECT-MEMBERS', 'ERR-STATUS-STRING', 'MEDIA-TYPE-RESPONSE'];

/** A 400 the answer can point at: a wrongly typed attribute, or a filter value that does not exist. */
function pointedProblem(operation: Operation, fixtures: Fixtures): OperationInput {
  if (operation.requestBody === undefined) return { query: refusedParameterQuery(operation) };
  const attribute = bodyMembers(operation).find(
    (m) => m.pointer.startsWith('/data/attributes/') && m.types.includes('string'),
  )!;
  return {
    document: withValueAt(
      rejectionBase(operation, fixtures, uniqueTag()),
      attribute.pointer,
      SAMPLE_OF_TYPE[wrongTypes(attribute)[0]],
    ),
  };
}

interface EnvelopeKind {
  status: number;
  /** The requirement the status itself answers to. */
  statusRequirement: (operation: Operation) => string;
  covers: (operation: Operation) => string[];
  credentials: (headers: CredentialHeaders) => Record<string, string> | undefined;
  input: (operation: Operation, conformance: ConformanceCase) => OperationInput;
  title: string;
}

const envelopeKinds: EnvelopeKind[] = [
  {
    status: 400,
    title: 'an invalid input',
    statusRequirement: (o) => brokenRequirements(o, pointedProblem(o, {}))[0],
    covers: (o) => [o.requestBody === undefined ? 'ERR-SOURCE-PARAMETER' : 'ERR-SOURCE-POINTER'],
    credentials: (h) => h.session,
    input: (o, c) => pointedProblem(o, c.target.fixtures),
  },
  {
    status: 401,
    title: 'no credentials',
    statusRequirement: () => 'AUTH-401-NO-CREDENTIALS',
    covers: () => ['AUTH-WWW-AUTHENTICATE'],
    credentials: (h) => h.none,
    input: (o, c) => validInput(o, c.target.fixtures),
  },
  {
    status: 403,
    title: 'the forbidden credential',
    statusRequirement: () => 'AUTH-403-FORBIDDEN',
    covers: () => [],
    credentials: (h) => h.forbidden,
    input: (o, c) => validInput(o, c.target.fixtures),
  },
];

export const errorEnvelopeCases: SuiteCase[] = operations.flatMap((operation) =>
  envelopeKinds.map((c): SuiteCase => ({
    title: `${operation.operationId}: ${c.title} → ${c.status} with an error document`,
    requirements: ENVELOPE.slice(0, 1),
    covers: [...ENVELOPE.slice(1), ...c.covers(operation), c.statusRequirement(operation)],
    async run(conformance) {
      const credentials = c.credentials(conformance.credentials);
      if (credentials === undefined) conformance.skip(NO_FORBIDDEN_TOKEN);
      const answer = await conformance.send({
        operation,
        credentials: credentials!,
        ...c.input(operation, conformance),
      });
      conformance.expectStatus(answer, [c.status], c.statusRequirement(operation));
    },
  })),
);
