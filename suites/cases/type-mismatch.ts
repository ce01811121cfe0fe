// Type mismatch (sections 2.1, 2.3, 2.4, 4.2, 4.3), generated from the schemas: for every typed
// member of each create operation's body, nested ones included, each JSON type the schema does
// not allow is sent in an otherwise complete document and is to be answered 400, never 5xx. The
// requirement a case answers to, and so its level, comes from the catalogue (brokenRequirements):
// serving a wrong-type attribute, `data` or owner `data` fails, serving a wrong-type member the
// specification gives a server no duty for (a relationship's links or meta) only warns. One case
// per member, one exchange per wrong type; a member added to the schema brings its case with it.
import { bodyMembers, SAMPLE_OF_TYPE, withValueAt, wrongTypes, type JsonType } from '../../contract/index.ts';
import type { Fixtures } from '../../targets/target.ts';
import { rejectionBase } from '../documents.ts';
import { brokenRequirements, createOperations, expectRefused, rejectionStatuses, uniqueTag } from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

export const typeMismatchCases: SuiteCase[] = createOperations.flatMap((operation) =>
  bodyMembers(operation).map((member): SuiteCase => {
    const types = wrongTypes(member);
    const mismatched = (type: JsonType, tag: string, fixtures: Fixtures = {}) =>
      withValueAt(rejectionBase(operation, fixtures, tag), member.pointer, SAMPLE_OF_TYPE[type]);
    const requirements = [
      ...new Set(types.flatMap((type) => brokenRequirements(operation, { document: mismatched(type, 'collected') }))),
    ];
    const statuses = rejectionStatuses(requirements);
    return {
      title: `${operation.operationId}: ${member.pointer} as ${types.join(', ')} → ${statuses.join(' or ')}`,
      requirements,
      covers: ['ERR-NO-5XX', 'ERR-SOURCE-POINTER'],
      async run(conformance) {
        for (const type of types) {
          const answer = await conformance.send({
            operation,
            credentials: conformance.credentials.session,
            document: mismatched(type, uniqueTag(), conformance.target.fixtures),
          });
          expectRefused(conformance, operation, answer, statuses, requirements[0], `${member.pointer} as ${type}`);
        }
      },
    };
  }),
);
