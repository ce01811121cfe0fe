// Create AttributeConfig and Create Highlight (sections 4.2, 4.3; docs/certification.md §5). Created resources
// live in memory for the life of the process. Conditions for 404 and 409 are not shown; this
// server's are: an unknown owner or collection item → 404, a customId already used → 409.
import { MEDIA_TYPE, type Operation } from '../contract/index.ts';
import { REFERENCE_FIXTURES } from './defaults.ts';
import type { ComposedHooks } from './hooks.ts';
import type { ObjectIdGenerator } from './object-id.ts';
import { CONDITION_CODES, conditionProblem, errorReply } from './problems.ts';
import type { Creation, Reply, RequestContext } from './types.ts';

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The request's `data` member; validation has already made sure it is an object. */
function sentData(context: RequestContext): Json {
  return objectOf(objectOf(context.document)?.data) ?? {};
}

interface UnknownRecord {
  pointer: string;
  detail: string;
}

export class CreatedResources {
  private readonly attributeConfigs = new Map<string, Json>();
  private readonly customIds = new Set<string>();
  private readonly highlights = new Map<string, Json>();

  constructor(private readonly hooks: ComposedHooks, private readonly newId: ObjectIdGenerator) {}

  createAttributeConfig(operation: Operation, context: RequestContext): Reply {
    const data = sentData(context);
    const attributes = objectOf(data.attributes) ?? {};
    const customId = attributes.customId;
    if (typeof customId === 'string' && this.customIds.has(customId)) {
      return errorReply(409, [conditionProblem(409, CONDITION_CODES.duplicateCustomId, 'an AttributeConfig with this customId already exists; customIds are unique', { pointer: '/data/attributes/customId' })]);
    }
    // inUse is the server's to say (section 2.3: responses only); one sent by a client is ignored.
    const resource = { id: this.newId(), type: operation.resourceType, attributes: { ...attributes, inUse: false }, relationships: data.relationships ?? {} };
    if (typeof customId === 'string') this.customIds.add(customId);
    this.attributeConfigs.set(resource.id, resource);
    return this.createdReply({ status: 201, document: { data: resource } }, context);
  }

  createHighlight(operation: Operation, context: RequestContext): Reply {
    const data = sentData(context);
    const unknown = unknownRecord(data);
    if (unknown) return errorReply(404, [conditionProblem(404, CONDITION_CODES.recordNotFound, unknown.detail, { pointer: unknown.pointer })]);
    const resource = { id: this.newId(), type: operation.resourceType, attributes: data.attributes ?? {}, relationships: data.relationships ?? {} };
    this.highlights.set(resource.id, resource);
    return this.createdReply({ status: 201, document: { data: resource } }, context);
  }

  private createdReply(creation: Creation, context: RequestContext): Reply {
    const { status, document } = this.hooks.created(creation, context);
    return { status, contentType: MEDIA_TYPE, document };
  }
}

/** The first record a Highlight refers to that does not exist (REFERENCE_FIXTURES holds those that do). */
function unknownRecord(data: Json): UnknownRecord | undefined {
  const ownerId = objectOf(objectOf(objectOf(data.relationships)?.owner)?.data)?.id;
  if (ownerId !== undefined && ownerId !== REFERENCE_FIXTURES.ownerUserId) {
    return { pointer: '/data/relationships/owner/data/id', detail: 'no User with this id exists' };
  }
  const collectionItemId = objectOf(data.attributes)?.collectionItemId;
  if (collectionItemId !== undefined && collectionItemId !== REFERENCE_FIXTURES.collectionItemId) {
    return { pointer: '/data/attributes/collectionItemId', detail: 'no collection item with this id exists' };
  }
  return undefined;
}
