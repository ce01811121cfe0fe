// Request documents the create operations must refuse (sections 4, 4.2, 4.3): every
// required member left out, a resource type where another is required (`data.type`, the owner's
// type), a body that is not an object, not JSON at all, or empty. Each is answered 400 (409 also
// for a wrong `data.type`), never 2xx or 5xx; a valid document in another media type is never 5xx.
import { bodyMembers, withoutValueAt, withValueAt, type Operation } from '../../contract/index.ts';
import { rejectionBase, type Document } from '../documents.ts';
import {
  brokenRequirements,
  createOperations,
  expectRefused,
  otherResourceType,
  rejectionStatuses,
  uniqueTag,
  validInput,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

interface DocumentCase {
  title: string;
  /** The body: a document built from the complete one, or raw text. */
  body: { change: (complete: Document) => Document } | { text: string };
}

const COVERS = ['ERR-NO-5XX', 'ERR-SOURCE-POINTER', 'ERR-ENVELOPE'];

const notObjects: { title: string; text: string }[] = [
  { title: 'an empty body', text: '' },
  { title: 'a body that is not well-formed JSON', text: '{"data": {"type": ' },
  { title: 'a JSON array as the document', text: '[]' },
  { title: 'a JSON string as the document', text: '"data"' },
  { title: 'a JSON number as the document', text: '42' },
  { title: 'JSON null as the document', text: 'null' },
];

function casesOf(operation: Operation): SuiteCase[] {
  const members = bodyMembers(operation);
  const documents: DocumentCase[] = [
    ...members
      .filter((m) => m.required)
      .map((m) => ({
        title: `without ${m.pointer}`,
        body: { change: (d: Document) => withoutValueAt(d, m.pointer) as Document },
      })),
    ...members
      .filter((m) => typeof m.const === 'string')
      .map((m) => ({
        title: `${m.pointer} "${otherResourceType(m.const)}" instead of "${String(m.const)}"`,
        body: { change: (d: Document) => withValueAt(d, m.pointer, otherResourceType(m.const)) as Document },
      })),
    ...notObjects.map((c) => ({ title: c.title, body: { text: c.text } })),
  ];
  return [
    ...documents.map((c): SuiteCase => {
      const bodyText = (tag: string, fixtures = {}) =>
        'text' in c.body ? c.body.text : JSON.stringify(c.body.change(rejectionBase(operation, fixtures, tag)));
      const requirements = brokenRequirements(operation, { bodyText: bodyText('collected') });
      const statuses = rejectionStatuses(requirements);
      return {
        title: `${operation.operationId}: ${c.title} → ${statuses.join(' or ')}`,
        requirements,
        covers: COVERS,
        async run(conformance) {
          const answer = await conformance.send({
            operation,
            credentials: conformance.credentials.session,
            bodyText: bodyText(uniqueTag(), conformance.target.fixtures),
          });
          expectRefused(conformance, operation, answer, statuses);
        },
      };
    }),
    // How a server treats another request media type is not shown: 415 is JSON:API's answer, serving it only warns, 5xx
    // fails.
    {
      title: `${operation.operationId}: a valid document sent as application/json → any answer but 5xx`,
      requirements: ['ERR-NO-5XX'],
      covers: ['MEDIA-TYPE-REQUEST-415'],
      async run(conformance) {
        await conformance.send({
          operation,
          credentials: conformance.credentials.session,
          contentType: 'application/json',
          ...validInput(operation, conformance.target.fixtures),
        });
      },
    },
  ];
}

export const requestDocumentCases: SuiteCase[] = createOperations.flatMap(casesOf);
