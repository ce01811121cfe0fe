// Creation (sections 2.3, 2.4, 4.2, 4.3): the complete valid document of each create operation is
// answered 201 (202 is recorded), the minimal one too or 400, and the contract checks the
// created resource: shape, id, type, inUse, attributes echoed (SHOULD), relationships as sent.
// Where a document names a record that does not exist, or repeats one already created, the
// outcome is not shown; an error answer must still be an error document (SHOULD).
import type { Operation, OperationRole } from '../../contract/index.ts';
import type { ConformanceCase } from '../case.ts';
import {
  completeDocument,
  fixtureMembers,
  minimalDocument,
  missingFixtures,
  PLACEHOLDER_FIXTURES,
  requiredFixturesMissing,
} from '../documents.ts';
import {
  contract,
  createOperations,
  noFixturesReason,
  refusedUnshownValues,
  successStatuses,
  uniqueTag,
  UNSHOWN_VALUES_REASON,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

/** The requirements each role plays for a create operation's success, read from the contract (x-requirements). */
function creationRequirements(operation: Operation): { created: string; covers: string[]; relationships?: string } {
  const id = (role: OperationRole) => contract.requirementOf(operation, role)?.id;
  const covers = (['responseShape', 'serverAttributes', 'relationshipsEcho', 'attributesEcho'] as const)
    .map(id)
    .filter((r): r is string => r !== undefined);
  return { created: id('success')!, covers, relationships: id('relationshipsEcho') };
}

const CREATED = ['RES-ID-STRING', 'RES-ID-OBJECTID', 'MEDIA-TYPE-RESPONSE', 'CREATE-202-ACCEPTED'];
/** What only a 201 body shows: a 202 answer (body not shown) leaves these not run by this case. */
const CREATED_BODY = ['RES-ID-STRING', 'RES-ID-OBJECTID'];
const ACCEPTED_REASON =
  'the target answered 202 Accepted, whose body the specification does not show, so the created resource could not be checked';
const ERROR_DOCUMENT = ['ERR-STATUS-STRING', 'ERR-OBJECT-MEMBERS', 'MEDIA-TYPE-RESPONSE'];

function skipWithoutFixtures(conformance: ConformanceCase, operation: Operation): void {
  const missing = missingFixtures(operation, conformance.target.fixtures);
  if (missing.length > 0) conformance.skip(noFixturesReason(missing));
}

function casesOf(operation: Operation): SuiteCase[] {
  const { created, covers, relationships } = creationRequirements(operation);
  const success = successStatuses(operation);
  const completeCovers = [...covers, ...CREATED];
  // A minimal document sends no relationships, so it cannot show them echoed.
  const withoutRelationships = covers.filter((id) => id !== relationships);
  const minimalCovers = [...withoutRelationships, ...CREATED];
  return [
    {
      title: `${operation.operationId}: a complete valid document → ${success.join(' or ')}`,
      requirements: [created],
      covers: completeCovers,
      async run(conformance) {
        skipWithoutFixtures(conformance, operation);
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          document: completeDocument(operation, conformance.target.fixtures, uniqueTag()),
        });
        if (refusedUnshownValues(operation, answer))
          return conformance.notShown([created, ...covers, ...CREATED_BODY], UNSHOWN_VALUES_REASON);
        conformance.expectStatus(answer, success);
        if (answer.status === 202) conformance.notShown([...covers, ...CREATED_BODY], ACCEPTED_REASON);
      },
    },
    // Which attributes are required is not shown (sections 2.3, 2.4): a server may refuse a document without them.
    {
      title: `${operation.operationId}: a minimal valid document → ${success.join(' or ')}, or 400`,
      requirements: [created],
      covers: minimalCovers,
      async run(conformance) {
        const missing = requiredFixturesMissing(operation, conformance.target.fixtures);
        if (missing.length > 0) conformance.skip(noFixturesReason(missing));
        const document = minimalDocument(operation, conformance.target.fixtures, uniqueTag());
        const answer = await conformance.send({ operation, credentials: conformance.credentials.session, document });
        conformance.expectStatus(answer, [...success, 400]);
        const shown = [...withoutRelationships, ...CREATED_BODY];
        if (answer.status === 202) conformance.notShown(shown, ACCEPTED_REASON);
        if (answer.status === 400)
          conformance.notShown(
            shown,
            'the target refused the minimal document with 400, as it may (which attributes are required is not shown), so no created resource was shown',
          );
      },
    },
    {
      title: `${operation.operationId}: the same complete document twice → served, or an error document`,
      requirements: ['ERR-ENVELOPE-404-409'],
      covers: ERROR_DOCUMENT,
      async run(conformance) {
        skipWithoutFixtures(conformance, operation);
        const document = completeDocument(operation, conformance.target.fixtures, uniqueTag());
        const first = await conformance.send({ operation, credentials: conformance.credentials.session, document });
        if (refusedUnshownValues(operation, first))
          return conformance.notShown(['ERR-ENVELOPE-404-409'], UNSHOWN_VALUES_REASON);
        if (!conformance.expectStatus(first, success, created)) return;
        const again = await conformance.send({ operation, credentials: conformance.credentials.session, document });
        conformance.expectStatus(again, [...success, 400, 404, 409], created);
      },
    },
    ...fixtureMembers(operation).map(([pointer, fixture]): SuiteCase => ({
      title: `${operation.operationId}: ${pointer} naming no record → served, or an error document`,
      requirements: ['ERR-ENVELOPE-404-409'],
      covers: ERROR_DOCUMENT,
      async run(conformance) {
        const fixtures = { ...conformance.target.fixtures, [fixture]: PLACEHOLDER_FIXTURES[fixture] };
        const answer = await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          document: completeDocument(operation, fixtures, uniqueTag()),
        });
        conformance.expectStatus(answer, [...success, 400, 404, 409], created);
      },
    })),
  ];
}

export const creationCases: SuiteCase[] = createOperations.flatMap(casesOf);
