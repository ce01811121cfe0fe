// The choice catalogue, the mirror of the faults: each choice is another legal reading of one
// place the specification leaves open ("not shown", an optional member, a convention, a SHOULD),
// as data (name, section, the open place, what changes, which warnings it may draw, which choices
// it cannot be on with) plus small hooks at the pipeline's named points (types.ts). A run of the
// suite against the reference server with any choice on, or with every compatible choice at
// once, passes: rule zero, where the specification is open the kit does not fail a server.
import { randomUUID } from 'node:crypto';
import {
  bodyMembers,
  includeNames,
  isListOperation,
  listOperations,
  loadContract,
  namesShownAt,
  requiredMetaMembers as metaMembersRequired,
  resolvePointer,
  servedFilterMember,
  unescapeToken,
  type Contract,
  type Operation,
  type OperationRole,
} from '../contract/index.ts';
import {
  changeCreated,
  changeCreatedWhere,
  changeErrors,
  creates,
  withoutMember,
  withStatus,
  type OperationsHaving,
} from './hook-helpers.ts';
import { conditionProblem, isErrorDocument } from './problems.ts';
import type { Problem, RequestContext, ServerHooks, SeedItem } from './types.ts';

export interface ChoiceDefinition {
  /** kebab-case, e.g. `list-meta-omitted`. */
  name: string;
  /** The section of the specification whose open place the choice reads. */
  section: string;
  /** What the specification leaves open there, in a few words. */
  openPlace: string;
  /** What the server does differently, in one sentence. */
  description: string;
  /** The SHOULD (or INFO) requirements the choice may draw a warning or an observation from; it fails none. */
  warns: string[];
  /** Choices it cannot be on together with (the relation is symmetric; either side may name it). */
  conflictsWith: string[];
  /**
   * Requirements the suite cannot check against this reading, reported not run as the target's choice (the run still
   * passes).
   */
  leavesNotRun?: string[];
  /** For a choice made of others: their names, whose hooks it runs in this order. */
  combines?: string[];
}

/**
 * A requirement a choice names: an id, or `{ role }`, the requirement each operation the choice
 * applies to names for that role in its `x-requirements` (a list's `limitCap`, say).
 */
type RequirementRef = string | { role: OperationRole };

/**
 * A choice as the catalogue writes it: its requirements by id or by role; `appliesTo` the kind of
 * operation it reads (every list, every create operation), `having` those of them with what its
 * hooks change, `operations` the ones its hooks are written for. A choice none of whose
 * operations the contract holds does not apply.
 */
interface Choice extends Omit<ChoiceDefinition, 'warns' | 'leavesNotRun'> {
  warns: RequirementRef[];
  leavesNotRun?: RequirementRef[];
  appliesTo?: 'lists' | 'creations';
  having?: OperationsHaving;
  operations?: string[];
  hooks: ServerHooks[];
}

/** A choice of the catalogue the contract gives nothing to read: its operations are gone. */
export class InapplicableChoiceError extends Error {
  constructor(
    readonly name: string,
    readonly reason: string,
  ) {
    super(`choice "${name}" does not apply to this contract: ${reason}`);
    this.name = 'InapplicableChoiceError';
  }
}

export class UnknownChoiceError extends Error {
  constructor(
    readonly unknown: string[],
    readonly valid: string[],
  ) {
    super(
      `unknown choice${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid choices: ${valid.join(', ')}`,
    );
    this.name = 'UnknownChoiceError';
  }
}

type Json = Record<string, unknown>;

// --- Hook helpers ---------------------------------------------------------------------------

function objectOf(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The value at `pointer` in `document`, or undefined when there is none. */
function valueAt(document: unknown, pointer: string): unknown {
  try {
    return resolvePointer(document, pointer);
  } catch {
    return undefined;
  }
}

/** The pointer of a missing member when its parent is there, else of the nearest ancestor that is (so it resolves). */
function nearestPointer(document: unknown, pointer: string): string {
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  if (parent === '' || objectOf(valueAt(document, parent))) return pointer;
  return nearestPointer(document, parent);
}

function operationIs(context: RequestContext, operationId: string): boolean {
  return context.operation?.operationId === operationId;
}

/**
 * The last allowed value of a list's served filter member, when it has two or more (so the others still match items).
 */
function lastFilterValue(operation: Operation): string | undefined {
  const values = servedFilterMember(operation)?.values ?? [];
  return values.length >= 2 ? values[values.length - 1] : undefined;
}

/** Each create operation's successful creation, changed alike. */
function changeEveryCreated(change: (data: Json, context: RequestContext) => Json): ServerHooks[] {
  return [{ created: changeCreatedWhere(creates, change) }];
}

/** The requirements on a created resource's body, for every create operation of the contract (x-requirements). */
function createdBodyRequirements(): string[] {
  const contract = loadContract();
  const roles = ['responseShape', 'serverAttributes', 'attributesEcho', 'relationshipsEcho'] as const;
  return contract.operations
    .filter(creates)
    .flatMap((operation) => roles.flatMap((role) => contract.requirementOf(operation, role)?.id ?? []));
}

/** Rejects a valid request of one operation for the problems `find` names (400). */
function rejectWhen(operationId: string, find: (context: RequestContext) => Problem[]): ServerHooks {
  return {
    rejections: (problems, context) => (operationIs(context, operationId) ? [...problems, ...find(context)] : problems),
  };
}

/** A 24-digit ObjectId written as a UUID-shaped string: still unique, no longer an ObjectId. */
function uuidShaped(id: unknown): unknown {
  if (typeof id !== 'string' || id.length !== 24) return id;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}00000000`;
}

/** The members the meta of some list of the contract requires. */
function requiredMetaMembers(): string[] {
  return [...new Set(listOperations(loadContract()).flatMap(metaMembersRequired))];
}

/** Rejects a valid request of every operation `applies` picks for the problems `find` names (400). */
function rejectWhere(
  applies: (operation: Operation) => boolean,
  find: (context: RequestContext) => Problem[],
): ServerHooks {
  return {
    rejections: (problems, context) =>
      context.operation !== undefined && applies(context.operation) ? [...problems, ...find(context)] : problems,
  };
}

function changeMeta(change: (meta: Json) => Json): ServerHooks['listMembers'] {
  return (members) => (objectOf(members.meta) ? { ...members, meta: change(members.meta as Json) } : members);
}

const valuesSeen = new WeakMap<Operation, { pointer: string; values: unknown[] }[]>();

/** Members of the request body whose values the specification shows without giving the full set (section 2.3). */
function membersWithValuesSeen(operation: Operation): { pointer: string; values: unknown[] }[] {
  let members = valuesSeen.get(operation);
  if (!members) {
    members = bodyMembers(operation).flatMap((m) =>
      m.valuesSeen ? [{ pointer: m.pointer, values: m.valuesSeen }] : [],
    );
    valuesSeen.set(operation, members);
  }
  return members;
}

const relationshipNamesOf = new WeakMap<Operation, string[]>();

/** The relationships an operation's request schema names (Highlight: `owner`). */
function namedRelationships(operation: Operation): string[] {
  let names = relationshipNamesOf.get(operation);
  if (!names) {
    names = bodyMembers(operation).flatMap((m) => {
      const token = /^\/data\/relationships\/([^/]+)$/.exec(m.pointer)?.[1];
      return token === undefined ? [] : [unescapeToken(token)];
    });
    relationshipNamesOf.set(operation, names);
  }
  return names;
}

/**
 * A created resource with `relationship(name)` for each relationship its operation names that the request did not send.
 */
function withUnsentRelationships(
  relationship: (name: string, data: Json) => Json,
): (data: Json, context: RequestContext) => Json {
  return (data, context) => {
    const sent = objectOf(objectOf(objectOf(context.document)?.data)?.relationships) ?? {};
    const unsent = namedRelationships(context.operation!).filter((name) => !(name in sent));
    if (unsent.length === 0) return data;
    return {
      ...data,
      relationships: {
        ...(objectOf(data.relationships) ?? {}),
        ...Object.fromEntries(unsent.map((name) => [name, relationship(name, data)])),
      },
    };
  };
}

/** Links a server may give a relationship of a created resource (section 2.1: `self` and `related`, strings). */
function relationshipLinks(name: string, data: Json): Json {
  const base = `/v3/${String(data.type).toLowerCase()}s/${String(data.id)}`;
  return { self: `${base}/relationships/${name}`, related: `${base}/${name}` };
}

const ATTRIBUTE_CONFIG_REQUIRED = ['/data/attributes/target', '/data/attributes/type', '/data/attributes/label'];
const HIGHLIGHT_REQUIRED = ['/data/attributes/collectionItemId', '/data/attributes/range', '/data/relationships/owner'];

function missingMembers(pointers: string[]): (context: RequestContext) => Problem[] {
  return (context) =>
    pointers
      .filter((pointer) => valueAt(context.document, pointer) === undefined)
      .map((pointer) =>
        conditionProblem(400, 'member-required', `${pointer} is required by this server`, {
          pointer: nearestPointer(context.document, pointer),
        }),
      );
}

// --- The catalogue --------------------------------------------------------------------------

const SINGLE: Choice[] = [
  // Lists: the document (section 4.1)
  {
    name: 'list-meta-omitted',
    section: '4.1',
    openPlace: '`meta` is an optional member of the 200 document',
    description: 'The list document has no `meta`: `data` alone (and `included` when there is one).',
    warns: [],
    // What only `meta` shows: nothing judges it against this reading.
    leavesNotRun: [
      { role: 'metaIntegers' },
      'RES-INTEGER-FORM',
      { role: 'metaTotal' },
      { role: 'metaOffsetEcho' },
      { role: 'metaPages' },
      { role: 'metaLimitEffective' },
      { role: 'metaPageNumber' },
      { role: 'metaDeprecatedAgree' },
    ],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ listMembers: (members) => withoutMember(members, 'meta') }],
  },
  {
    name: 'meta-required-members-only',
    section: '4.1, 9',
    openPlace: '`totalWithoutFilters` is optional and the deprecated members may be left out',
    description:
      '`meta` holds only `total`, `pages`, `page`, `offset` and `limit`: no `totalWithoutFilters`, no deprecated members.',
    warns: [],
    leavesNotRun: [{ role: 'metaDeprecatedAgree' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [
      {
        listMembers: changeMeta((meta) =>
          Object.fromEntries(Object.entries(meta).filter(([name]) => requiredMetaMembers().includes(name))),
        ),
      },
    ],
  },
  {
    name: 'included-always-empty',
    section: '4.1',
    openPlace: '`included` is optional, and which include names exist is not shown',
    description:
      'Every list document carries `included: []`, whether or not `include` was given. A list whose contract defines its include names is warned for not honouring them.',
    // Where the contract defines include names, their meaning is no longer open: the list should honour them.
    warns: [{ role: 'includeHonoured' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ included: () => [] }],
  },
  {
    name: 'unknown-include-rejected',
    section: '4.1',
    openPlace: 'which include names exist is not shown',
    description:
      'A list request with an `include` name its contract does not define (any name, where it defines none) is answered 400, naming `include` in `source.parameter`.',
    warns: [],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [
      rejectWhere(isListOperation, (context) => {
        const defined = includeNames(context.operation!);
        const names = (Array.isArray(context.query.include) ? context.query.include : []).filter(
          (name) => !defined.includes(String(name)),
        );
        return names.length === 0
          ? []
          : [
              conditionProblem(400, 'unknown-include', `no related resource is named ${names.map(String).join(', ')}`, {
                parameter: 'include',
              }),
            ];
      }),
    ],
  },
  {
    name: 'page-size-capped-at-20',
    section: '8',
    openPlace: 'the maximum page size is not shown',
    description: 'A `page[limit]` above 20 is served as 20, and `meta.limit` reports 20.',
    warns: [{ role: 'limitCap' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ pageRequest: (page) => ({ ...page, limit: Math.min(page.limit, 20) }) }],
  },
  {
    name: 'page-size-capped-at-7-unreported',
    section: '8',
    openPlace: 'the maximum page size is not shown',
    description:
      'A page holds at most 7 items, and `meta.limit` reports the limit asked for, not the cap: a client sees the cap only as a short page before the end.',
    warns: [{ role: 'limitCap' }, { role: 'metaLimitEffective' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ pageWindow: (window) => ({ start: window.start, length: Math.min(window.length, 7) }) }],
  },
  {
    name: 'default-page-size-5',
    section: '8',
    openPlace: 'the default page size is not shown',
    description: 'Without `page`, a page holds 5 items (`meta.limit` 5) instead of 10.',
    warns: [],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ pageRequest: (page, query) => (query.page === undefined ? { ...page, limit: 5 } : page) }],
  },
  {
    name: 'page-numbering-from-zero',
    section: '4.1',
    openPlace: 'how `meta.page` numbers pages is not shown',
    description: '`meta.page` (and `meta.currentPage`) counts from 0: floor(offset / limit).',
    warns: [{ role: 'metaPageNumber' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ listMeta: (meta, page) => ({ ...meta, page: Math.floor(page.offset / page.limit) }) }],
  },
  {
    name: 'fractional-page-members-truncated',
    section: '8',
    openPlace: 'how a fractional `page` member is treated is not shown',
    description:
      'A fractional `page[limit]` or `page[offset]` is served, truncated to a whole number, instead of answered 400.',
    warns: [{ role: 'pageFractional' }],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [
      {
        findings: (findings, context) =>
          findings.filter((f) => f.requirement !== context.operation?.roles.pageFractional),
        pageRequest: (page) => ({ offset: Math.trunc(page.offset), limit: Math.max(1, Math.trunc(page.limit)) }),
      },
    ],
  },
  {
    name: 'scalar-page-ignored',
    section: '4.1',
    openPlace: 'how `page` is written in the query is not shown',
    description:
      'A bare or scalar `page` (`page=`, `page=3`) is ignored: the list is served with its default page instead of answered 400.',
    warns: [],
    conflictsWith: [],
    appliesTo: 'lists',
    hooks: [
      { findings: (findings, context) => findings.filter((f) => f.requirement !== context.operation?.roles.pageShape) },
    ],
  },
  {
    name: 'last-filter-value-matches-nothing',
    section: '4.1',
    openPlace: "which items a list's filter matches is the service's data",
    description:
      "The last allowed value of each list's filter member matches no item: an empty `data`, `meta.total` 0 and `meta.pages` 0.",
    warns: [],
    appliesTo: 'lists',
    having: {
      what: 'a filter member with two allowed values or more',
      has: (operation) => lastFilterValue(operation) !== undefined,
    },
    conflictsWith: [],
    hooks: [
      {
        seedList: (items, value, operation) =>
          value !== undefined && value === lastFilterValue(operation) ? [] : items,
      },
    ],
  },
  {
    name: 'empty-result-one-page',
    section: '4.1',
    openPlace: 'how many pages an empty result has is not shown',
    description:
      'An empty result reports `meta.pages` 1 instead of 0 (the reference server has one only with `last-filter-value-matches-nothing`, so the two meet in a run of compatible choices).',
    warns: [],
    appliesTo: 'lists',
    conflictsWith: [],
    hooks: [{ listMeta: (meta, page) => (page.total === 0 ? { ...meta, pages: 1 } : meta) }],
  },

  // Resources (sections 2.1, 2.2, 4.2, 4.3)
  {
    name: 'ids-not-object-ids',
    section: '2.1',
    openPlace: 'an ObjectId in the 24-hex-digit form is a convention (SHOULD)',
    description:
      'Every resource id the server makes (list items, created resources) is a UUID-shaped string instead of an ObjectId.',
    warns: ['RES-ID-OBJECTID'],
    conflictsWith: [],
    hooks: [
      { seedItem: (item: SeedItem) => ({ ...item, id: uuidShaped(item.id) }) },
      ...changeEveryCreated((data) => ({ ...data, id: uuidShaped(data.id) })),
    ],
  },
  {
    name: 'empty-relationships-omitted',
    section: '2.2, 4.2, 4.3',
    openPlace: '`relationships` is not among the required members of a resource',
    description:
      'A resource with no relationships (the items of a list whose item schema names none, a resource created without any) has no `relationships` member instead of `{}`.',
    warns: [],
    conflictsWith: [],
    hooks: [
      { seedItem: (item: SeedItem) => withoutMember(item as unknown as Json, 'relationships') as unknown as SeedItem },
      ...changeEveryCreated((data) =>
        objectOf(data.relationships) && Object.keys(data.relationships as Json).length === 0
          ? withoutMember(data, 'relationships')
          : data,
      ),
    ],
  },

  {
    name: 'unsent-relationships-null',
    section: '2.1',
    openPlace:
      "a relationship's `data` may be null, and what a created resource carries for a relationship it was not sent is not shown",
    description:
      'A created resource carries each relationship its operation names but the request did not send, with `data: null` (a Highlight created without an owner has `relationships.owner.data` null).',
    warns: [],
    conflictsWith: ['unsent-relationships-links-only'],
    hooks: changeEveryCreated(withUnsentRelationships(() => ({ data: null }))),
  },
  {
    name: 'unsent-relationships-links-only',
    section: '2.1',
    openPlace: 'no member of a relationship object is required',
    description:
      'A created resource carries each relationship its operation names but the request did not send as a relationship object with `links` only, no `data` (a Highlight created without an owner has `relationships.owner.links`).',
    warns: [],
    conflictsWith: [],
    hooks: changeEveryCreated(withUnsentRelationships(relationshipLinks)),
  },
  {
    name: 'undefined-relationships-dropped',
    section: '2.4, 4.3',
    openPlace:
      'which relationships a resource has besides those the specification defines is not shown (x-names-not-shown)',
    description:
      'A created resource keeps only the relationships its request schema names (a Highlight its `owner`): one of another name is ignored, not echoed.',
    warns: [],
    conflictsWith: [],
    hooks: changeEveryCreated((data, context) => {
      const relationships = objectOf(data.relationships);
      const shown = context.operation?.requestBody
        ? namesShownAt(context.operation.requestBody, '/data/relationships')
        : undefined;
      if (!relationships || !shown) return data;
      return {
        ...data,
        relationships: Object.fromEntries(Object.entries(relationships).filter(([name]) => shown.has(name))),
      };
    }),
  },
  {
    name: 'relationship-links-added',
    section: '2.1, 4.3',
    openPlace: "a relationship object's `links` and `meta` are optional, and the specification gives no duty for them",
    description:
      'Each relationship of a created resource carries `links.self` and `links.related` (and `meta.createdBy: "server"`) besides the `data` sent, in place of any `links` and `meta` sent.',
    warns: [],
    conflictsWith: [],
    hooks: changeEveryCreated((data) => {
      const relationships = objectOf(data.relationships);
      if (!relationships) return data;
      const linked = Object.entries(relationships).map(([name, value]) => [
        name,
        { ...(objectOf(value) ?? {}), links: relationshipLinks(name, data), meta: { createdBy: 'server' } },
      ]);
      return { ...data, relationships: Object.fromEntries(linked) };
    }),
  },

  // Create AttributeConfig and Create Highlight (sections 2.3, 2.4, 4.2, 4.3)
  {
    name: 'created-answered-202-without-body',
    section: '4.2, 4.3',
    openPlace: '202 Accepted is listed and its body is not shown',
    description:
      "A valid create request is answered 202 Accepted with no body instead of 201 with the created resource, so the requirements on the created resource are reported not run as the target's choice; the run still passes.",
    warns: ['CREATE-202-ACCEPTED'],
    conflictsWith: [],
    leavesNotRun: createdBodyRequirements(),
    hooks: [
      {
        created: (creation, context) =>
          context.operation !== undefined && creates(context.operation) && creation.status === 201
            ? { status: 202 }
            : creation,
      },
    ],
  },
  {
    name: 'wrong-data-type-answered-400',
    section: '4.2, 4.3',
    openPlace: 'a `data.type` of another resource is 400 or 409 (JSON:API convention)',
    description: 'A request whose only problem is a `data.type` of another resource is answered 400 instead of 409.',
    warns: [],
    conflictsWith: [],
    hooks: [
      {
        reply: (reply, context) =>
          reply.status === 409 && context.findings.length > 0 ? withStatus(reply, 400) : reply,
      },
    ],
  },
  {
    name: 'in-use-in-request-rejected',
    section: '2.3',
    openPlace: '`inUse` appears in responses only; what a server does with one in a request is not shown',
    description:
      'A Create AttributeConfig request that sends `attributes.inUse` is answered 400 instead of ignoring it.',
    warns: [],
    operations: ['createAttributeConfig'],
    conflictsWith: [],
    hooks: [
      rejectWhen('createAttributeConfig', (context) =>
        valueAt(context.document, '/data/attributes/inUse') === undefined
          ? []
          : [
              conditionProblem(400, 'read-only-attribute', 'inUse is set by the server', {
                pointer: '/data/attributes/inUse',
              }),
            ],
      ),
    ],
  },
  {
    name: 'permission-numbers-refused',
    section: '2.3',
    openPlace: 'the meaning of permission numbers is not shown',
    description:
      'An AttributeConfig whose `editPermission` or `viewPermission` is not 0 is answered 400, naming the member: this server knows permission 0 only.',
    warns: [],
    operations: ['createAttributeConfig'],
    // The complete document is refused; the minimal one sends no attribute to echo.
    leavesNotRun: ['AC-ATTRIBUTES-ECHO'],
    // Without `source.pointer` such a refusal cannot be told from a refused valid document.
    conflictsWith: ['error-objects-status-and-detail-only'],
    hooks: [
      rejectWhen('createAttributeConfig', (context) =>
        ['/data/attributes/editPermission', '/data/attributes/viewPermission'].flatMap((pointer) => {
          const value = valueAt(context.document, pointer);
          return value === undefined || value === 0
            ? []
            : [
                conditionProblem(
                  400,
                  'unknown-permission',
                  `${pointer.split('/').pop()} ${JSON.stringify(value)} is not a permission this server knows`,
                  { pointer },
                ),
              ];
        }),
      ),
    ],
  },
  {
    name: 'values-seen-only',
    section: '2.3',
    openPlace: 'the full allowed-value sets of `target`, `type` and `clickBehavior` are not shown',
    description:
      'An AttributeConfig whose `target`, `type` or `settings.link.clickBehavior` is not the value the specification shows (User, boolean, newWindow) is answered 400.',
    warns: [],
    operations: ['createAttributeConfig'],
    conflictsWith: [],
    hooks: [
      rejectWhen('createAttributeConfig', (context) =>
        membersWithValuesSeen(context.operation!).flatMap(({ pointer, values }) => {
          const value = valueAt(context.document, pointer);
          return value === undefined || values.includes(value)
            ? []
            : [
                conditionProblem(400, 'unsupported-value', `${pointer} must be one of ${values.join(', ')}`, {
                  pointer,
                }),
              ];
        }),
      ),
    ],
  },
  {
    name: 'attributes-required-by-server',
    section: '2.3, 2.4',
    openPlace: 'which attributes are required is not shown',
    description:
      'An AttributeConfig without `target`, `type` or `label`, or a Highlight without `collectionItemId`, `range` or an owner, is answered 400.',
    warns: [],
    operations: ['createAttributeConfig', 'createHighlight'],
    conflictsWith: [],
    hooks: [
      rejectWhen('createAttributeConfig', missingMembers(ATTRIBUTE_CONFIG_REQUIRED)),
      rejectWhen('createHighlight', missingMembers(HIGHLIGHT_REQUIRED)),
    ],
  },
  {
    name: 'attributes-echoed-with-defaults',
    section: '4.2, 4.3',
    openPlace: 'which attributes a created resource carries beyond those sent is not shown',
    description:
      'A created resource carries the attributes sent plus server defaults for those left out (AttributeConfig `required`, `editPermission`, `viewPermission`; Highlight `summary`).',
    warns: [],
    operations: ['createAttributeConfig', 'createHighlight'],
    conflictsWith: [],
    hooks: [
      {
        created: changeCreated('createAttributeConfig', (data) => ({
          ...data,
          attributes: { required: false, editPermission: 0, viewPermission: 0, ...(data.attributes as Json) },
        })),
      },
      {
        created: changeCreated('createHighlight', (data) => ({
          ...data,
          attributes: { summary: '', ...(objectOf(data.attributes) ?? {}) },
        })),
      },
    ],
  },
  {
    name: 'owner-links-and-meta-ignored',
    section: '2.1, 4.3',
    openPlace: 'the specification gives a server no duty for `links` and `meta` of a request relationship',
    description:
      'A Create Highlight request whose `relationships.owner` has `links` or `meta` of any JSON type is served, and the relationship echoed as sent.',
    warns: ['REQ-RELATIONSHIPS-REFUSED'],
    conflictsWith: [],
    hooks: [
      {
        findings: (findings) =>
          findings.filter((f) => !/^\/data\/relationships\/owner\/(links|meta)(\/|$)/.test(f.pointer)),
      },
    ],
  },
  {
    name: 'request-media-type-not-checked',
    section: '4',
    openPlace: 'how a server treats request bodies of another media type is not shown',
    description:
      'A request body is read as JSON whatever its Content-Type (`application/json` included) instead of being answered 415.',
    warns: ['MEDIA-TYPE-REQUEST-415'],
    conflictsWith: [],
    hooks: [{ stageOrder: (order) => order.filter((stage) => stage !== 'mediaType') }],
  },

  // Credentials and errors (sections 5, 7)
  {
    name: 'www-authenticate-omitted',
    section: '5',
    openPlace: '`WWW-Authenticate` on 401 is HTTP convention (SHOULD)',
    description: 'A 401 answer carries no `WWW-Authenticate` header.',
    warns: ['AUTH-WWW-AUTHENTICATE'],
    conflictsWith: [],
    hooks: [
      {
        reply: (reply) =>
          reply.headers?.['www-authenticate'] === undefined
            ? reply
            : { ...reply, headers: withoutMember(reply.headers, 'www-authenticate') as Record<string, string> },
      },
    ],
  },
  {
    name: 'error-objects-status-and-detail-only',
    section: '7',
    openPlace: 'every member of an error object is optional',
    description: 'Error objects carry only `status` and `detail`: no `code`, `title` or `source`.',
    warns: ['ERR-SOURCE-PARAMETER'],
    leavesNotRun: ['ERR-SOURCE-POINTER'],
    conflictsWith: ['error-members-of-its-own', 'permission-numbers-refused'],
    hooks: [{ reply: changeErrors((error) => ({ status: (error as Json).status, detail: (error as Json).detail })) }],
  },
  {
    name: 'error-members-of-its-own',
    section: '7',
    openPlace: 'the values of `code`, and the optional `id` of an error occurrence, are not shown',
    description:
      "Error `code` values are the server's own numbering (`E400`, `E401`, ...) instead of requirement ids and condition names, and each error object carries an `id` unique to its occurrence.",
    warns: [],
    conflictsWith: [],
    hooks: [
      {
        reply: changeErrors((error) => ({
          id: randomUUID(),
          ...(error as Json),
          code: `E${String((error as Json).status)}`,
        })),
      },
    ],
  },
  {
    name: 'first-problem-only',
    section: '7',
    openPlace: 'how many error objects an error document holds is not shown (at least one)',
    description: 'A 400 answer carries one error object, for the first problem found, instead of one per problem.',
    warns: [],
    conflictsWith: [],
    hooks: [
      {
        reply: (reply) =>
          reply.status === 400 && isErrorDocument(reply.document)
            ? { ...reply, document: { ...reply.document, errors: reply.document.errors.slice(0, 1) } }
            : reply,
      },
    ],
  },
  {
    name: 'not-found-and-conflict-without-body',
    section: '7',
    openPlace: 'the error body shape for 404 and 409 is not shown',
    description: 'Every 404 and 409 answer has no body.',
    warns: ['ERR-ENVELOPE-404-409'],
    conflictsWith: [],
    hooks: [
      {
        reply: (reply) =>
          reply.status === 404 || reply.status === 409
            ? { status: reply.status, contentType: reply.contentType, headers: reply.headers }
            : reply,
      },
    ],
  },
];

/** Choices made of others: open places that only show together, or a server that reads several the same way. */
const COMBINED: Omit<ChoiceDefinition, 'warns' | 'conflictsWith'>[] = [
  {
    name: 'bare-list',
    section: '4.1, 8',
    openPlace: 'an optional `meta`, the default and the maximum page size',
    description:
      'The list has no `meta`, pages of 5 without `page`, and at most 20 items a page, so a client sees the cap only as a short page.',
    combines: ['list-meta-omitted', 'default-page-size-5', 'page-size-capped-at-20'],
  },
  {
    name: 'strict-creation',
    section: '2.3, 2.4, 4.2, 4.3',
    openPlace: 'required attributes, allowed values, `inUse` in a request, 400 or 409 for a wrong type',
    description:
      'A create request is refused for every reason the specification leaves open: attributes the server requires, values other than those shown, `inUse` sent, and a wrong `data.type` answered 400.',
    combines: [
      'attributes-required-by-server',
      'values-seen-only',
      'in-use-in-request-rejected',
      'wrong-data-type-answered-400',
    ],
  },
  {
    name: 'terse-errors',
    section: '5, 7',
    openPlace: 'optional error members, the number of error objects, 404 and 409 bodies, `WWW-Authenticate`',
    description:
      'Errors say as little as the specification allows: `status` and `detail` only, one object per answer, no body on 404 and 409, no `WWW-Authenticate`.',
    combines: [
      'error-objects-status-and-detail-only',
      'first-problem-only',
      'not-found-and-conflict-without-body',
      'www-authenticate-omitted',
    ],
  },
];

function combined(definition: (typeof COMBINED)[number]): Choice {
  const parts = definition.combines!.map((name) => SINGLE.find((c) => c.name === name)!);
  const scopes = [...new Set(parts.flatMap((p) => p.appliesTo ?? []))];
  const operations = [...new Set(parts.flatMap((p) => p.operations ?? []))];
  return {
    ...definition,
    warns: parts.flatMap((p) => p.warns),
    ...(parts.some((p) => p.leavesNotRun) ? { leavesNotRun: parts.flatMap((p) => p.leavesNotRun ?? []) } : {}),
    ...(scopes.length === 1 ? { appliesTo: scopes[0] } : {}),
    ...(operations.length > 0 ? { operations } : {}),
    // A part on beside the whole would run its hooks twice.
    conflictsWith: [...new Set([...definition.combines!, ...parts.flatMap((p) => p.conflictsWith)])],
    hooks: parts.flatMap((p) => p.hooks),
  };
}

const CATALOGUE: Choice[] = [...SINGLE, ...COMBINED.map(combined)];

/** The operations a choice reads, or why the contract holds none of them. */
function operationsOf(contract: Contract, choice: Choice): Operation[] | string {
  const inScope = (operation: Operation) =>
    choice.appliesTo === 'lists'
      ? isListOperation(operation)
      : choice.appliesTo === 'creations'
        ? creates(operation)
        : true;
  const named =
    choice.operations === undefined
      ? contract.operations
      : contract.operations.filter((o) => choice.operations!.includes(o.operationId));
  const read = named.filter(inScope);
  const which = choice.appliesTo === 'lists' ? 'list' : 'create operation';
  if (read.length === 0 && (choice.appliesTo !== undefined || choice.operations !== undefined)) {
    return choice.operations === undefined
      ? `the contract has no ${which}`
      : `the contract has none of ${choice.operations.join(', ')}`;
  }
  if (choice.having === undefined) return read;
  const having = read.filter(choice.having.has);
  return having.length > 0
    ? having
    : `no ${choice.appliesTo === undefined ? 'operation' : which} of the contract has ${choice.having.what}`;
}

/**
 * The requirement ids of `refs` for the operations a choice reads: ids the catalogue holds, and each operation's for a
 * role.
 */
function resolveRefs(contract: Contract, refs: readonly RequirementRef[], operations: Operation[]): string[] {
  const ids = refs.flatMap((ref) =>
    typeof ref === 'string'
      ? contract.requirements.some((r) => r.id === ref)
        ? [ref]
        : []
      : operations.flatMap((o) => o.roles[ref.role] ?? []),
  );
  return [...new Set(ids)];
}

interface BoundChoice {
  definition?: ChoiceDefinition;
  inapplicable?: string;
}

/** Every choice of the catalogue bound to `contract`: its definition, or why it does not apply. */
function bind(contract: Contract): Map<string, BoundChoice> {
  return new Map(
    CATALOGUE.map((choice): [string, BoundChoice] => {
      const operations = operationsOf(contract, choice);
      if (typeof operations === 'string') return [choice.name, { inapplicable: operations }];
      const {
        hooks: _hooks,
        appliesTo: _appliesTo,
        having: _having,
        operations: _operations,
        warns,
        leavesNotRun,
        ...written
      } = choice;
      return [
        choice.name,
        {
          definition: {
            ...written,
            warns: resolveRefs(contract, warns, operations),
            ...(leavesNotRun ? { leavesNotRun: resolveRefs(contract, leavesNotRun, operations) } : {}),
          },
        },
      ];
    }),
  );
}

/**
 * The choices of the catalogue that apply to `contract`, and why each other does not. A choice names in `combines` and
 * `conflictsWith` only choices that apply too: a part written for an operation the contract no longer holds is left
 * out of the whole, whose hooks for it never run.
 */
export function choicesBoundTo(contract: Contract): { choices: ChoiceDefinition[]; inapplicable: Map<string, string> } {
  const bound = [...bind(contract)];
  const applying = new Set(bound.flatMap(([name, c]) => (c.definition ? [name] : [])));
  const applyingOf = (names: readonly string[]) => names.filter((name) => applying.has(name));
  return {
    choices: bound.flatMap(([, c]) =>
      c.definition
        ? [
            {
              ...c.definition,
              conflictsWith: applyingOf(c.definition.conflictsWith),
              ...(c.definition.combines ? { combines: applyingOf(c.definition.combines) } : {}),
            },
          ]
        : [],
    ),
    inapplicable: new Map(
      bound.flatMap(([name, c]) => (c.inapplicable === undefined ? [] : [[name, c.inapplicable] as const])),
    ),
  };
}

const BOUND = choicesBoundTo(loadContract());

/** The choices that apply to the contract loaded, each with the requirements it names there. */
export const CHOICES: ChoiceDefinition[] = BOUND.choices;

export const CHOICE_NAMES: string[] = CHOICES.map((c) => c.name);

/**
 * The choices of the catalogue that do not apply to the contract loaded, each with why: `run --choice` refuses them.
 */
export const INAPPLICABLE_CHOICES: ReadonlyMap<string, string> = BOUND.inapplicable;

function definitionOf(name: string): ChoiceDefinition | undefined {
  return CHOICES.find((c) => c.name === name);
}

/**
 * Whether two different choices cannot be on together: one names the other (or a part of it) in
 * `conflictsWith`, or both hold the same part, whose hooks would then run twice.
 */
export function choicesConflict(a: string, b: string): boolean {
  if (a === b) return false;
  const parts = (name: string) => [name, ...(definitionOf(name)?.combines ?? [])];
  const declared = (x: string, y: string) => definitionOf(x)?.conflictsWith.includes(y) === true;
  return parts(a).some((x) => parts(b).some((y) => x === y || declared(x, y) || declared(y, x)));
}

/**
 * Sets of choices that can all be on at once, together holding every choice: each set takes, in
 * catalogue order, every choice not yet placed that conflicts with none already in it.
 */
export function compatibleChoiceSets(names: readonly string[] = CHOICE_NAMES): string[][] {
  const sets: string[][] = [];
  let left = [...names];
  while (left.length > 0) {
    const set: string[] = [];
    for (const name of left) if (!set.some((other) => choicesConflict(name, other))) set.push(name);
    sets.push(set);
    left = left.filter((name) => !set.includes(name));
  }
  return sets;
}

/** The hooks of the named choices, in the order given; an unknown name throws UnknownChoiceError. */
export function choiceHooks(names: readonly string[]): ServerHooks[] {
  const inapplicable = names.find((name) => INAPPLICABLE_CHOICES.has(name));
  if (inapplicable !== undefined)
    throw new InapplicableChoiceError(inapplicable, INAPPLICABLE_CHOICES.get(inapplicable)!);
  const unknown = names.filter((name) => !CHOICE_NAMES.includes(name));
  if (unknown.length > 0) throw new UnknownChoiceError(unknown, CHOICE_NAMES);
  return names.flatMap((name) => CATALOGUE.find((c) => c.name === name)!.hooks);
}
