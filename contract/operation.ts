// What the contract knows of one operation, and the roles its requirements play: the types
// the rest of contract/ reads without loading the contract.
import type { QueryParameter } from './query.ts';

type Schema = Record<string, unknown>;

/**
 * The parts an operation's requirements play, named per operation in its `x-requirements`
 * (schemas/openapi.yaml), so that checks, cases and the reference server never key anything by
 * operationId. `success`: the 2xx statuses it lists; `responseShape`: its success body;
 * `serverAttributes`: attributes only the server sets in a created resource; `attributesEcho`:
 * a created resource carries the attributes sent; `relationshipsEcho`: it carries the
 * relationships sent; `pageLength`: a list page's items and meta agree. A list (a GET whose
 * success body's `data` is an array) names the rules of sections 4.1, 8 and 9 that every list
 * follows in LIST_ROLES.
 */
export const OPERATION_ROLES = [
  'success',
  'responseShape',
  'serverAttributes',
  'attributesEcho',
  'relationshipsEcho',
  'pageLength',
] as const;

/**
 * The roles a list's requirements play beside `success`, `responseShape` and `pageLength`:
 * `filterRequired` its filter's members and values; the page bounds (`pageBothMembers`,
 * `pageLimitMin`, `pageOffsetMin`, `pageNotANumber`, `pageFractional`, `pageShape`: `page` written other than as its
 * members); `includeShape`;
 * `includedShape` an `included` resource, `includeHonoured` an include name the contract defines
 * served, `filterMatch` items that agree with each filter member sent;
 * `itemShape` a data item; the meta members and their arithmetic (`metaIntegers`, `metaTotal`,
 * `metaOffsetEcho`, `metaPages`, `metaLimitEffective`, `metaPageNumber`, `metaDeprecatedAgree`,
 * `metaDeprecatedPresent`); `pageWalk` a walk over every page; `limitCap` a cap on the page size.
 */
export const LIST_ROLES = [
  'filterRequired',
  'pageBothMembers',
  'pageLimitMin',
  'pageOffsetMin',
  'pageNotANumber',
  'pageFractional',
  'pageShape',
  'includeShape',
  'includedShape',
  'includeHonoured',
  'filterMatch',
  'itemShape',
  'metaIntegers',
  'metaTotal',
  'metaOffsetEcho',
  'metaPages',
  'metaLimitEffective',
  'metaPageNumber',
  'metaDeprecatedAgree',
  'metaDeprecatedPresent',
  'pageWalk',
  'limitCap',
] as const;
export type OperationRole = (typeof OPERATION_ROLES)[number] | (typeof LIST_ROLES)[number];

export interface Operation {
  operationId: string;
  /** What the specification calls it (`summary`), e.g. `List NotificationGroups (section 4.1)`. */
  summary?: string;
  /** The requirement id of each role the operation's requirements play (`x-requirements`). */
  roles: Readonly<Partial<Record<OperationRole, string>>>;
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
