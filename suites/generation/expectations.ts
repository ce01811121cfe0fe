// What a generated input may be answered, as the fixed cases read the specification (rule zero:
// never fail a target for a choice the specification leaves open). The contract says whether the
// input is valid; an invalid one is refused as the matching fixed case expects (400, or 409 for a
// wrong `data.type`) under the requirement serving it breaks. A valid one is served, unless it is
// open: it holds a place whose encoding or meaning the specification does not show (OPEN_PLACES).
// An open input may be refused with any 4xx; when it is answered, every check still judges the
// answer but those that read the open place itself (the page arithmetic reads `page[limit]` and
// `page[offset]` as numbers; the echo reads each attribute as sent): the envelope, the media type,
// integers, meta arithmetic and the echo of every member the specification names hold whatever an
// include name or a relationship of another name means. A create may also be refused for what its
// conditions leave open: which attributes are required, records that do not exist (404),
// conflicts (409). Any input may be answered a status the contract lists as generic
// (x-generic-statuses: 414, 431, ...).
import { isDeepStrictEqual } from 'node:util';
import {
  exchangeChecks,
  MEDIA_TYPE,
  mergeAllOf,
  parseQuery,
  parseQueryPairs,
  querySchema,
  refusableFindings,
  requirementsBoundTo,
  validateRequest,
  type Contract,
  type Finding,
  type Operation,
  type OperationRole,
} from '../../contract/index.ts';
import { rejectionStatuses, successStatuses } from '../operations.ts';

type Schema = Record<string, unknown>;

export interface Expectation {
  valid: boolean;
  /**
   * The input holds a place whose encoding or meaning the specification does not show: any 4xx
   * may refuse it, and what reads that place (`relaxed`) does not judge its answer.
   */
  open: boolean;
  /** The open places it holds (OPEN_PLACES names). */
  openPlaces: string[];
  /** The requirements whose checks read an open place of this input: its answer does not judge them. */
  relaxed: string[];
  /** The requirement an answer outside `statuses` breaks. */
  requirement: string;
  statuses: number[];
  /** What the input is, for messages: `a valid input`, `an input whose /data/type breaks the contract`. */
  described: string;
}

/** Section 5: a permitted credential is answered neither 401 nor 403, whatever the input. */
const CREDENTIAL_STATUSES = [401, 403];

/**
 * Whether the value at one place, under its merged schema, is what the walk looks for; an object's extra member names
 * are asked with `name`.
 */
type PlaceTest = (schema: Schema, value: unknown) => boolean;

/** True when `test` holds at some place of `value` the schema describes: the value itself, an item, a member. */
function somePlace(schema: Schema, value: unknown, test: PlaceTest): boolean {
  if (value === undefined) return false;
  const merged = mergeAllOf(schema);
  if (test(merged, value)) return true;
  if (Array.isArray(value))
    return (
      typeof merged.items === 'object' &&
      merged.items !== null &&
      value.some((item) => somePlace(merged.items as Schema, item, test))
    );
  if (value === null || typeof value !== 'object') return false;
  const properties = (merged.properties ?? {}) as Record<string, Schema>;
  const additional =
    typeof merged.additionalProperties === 'object' ? (merged.additionalProperties as Schema) : undefined;
  return Object.entries(value).some(([name, member]) => {
    const memberSchema = properties[name] ?? additional;
    return memberSchema !== undefined && somePlace(memberSchema, member, test);
  });
}

/**
 * A place marked `x-values-not-shown`, or a list of such values (however many: how an empty one is written is not shown
 * either).
 */
const valueNotShownAt: PlaceTest = (schema, value) =>
  schema['x-values-not-shown'] === true ||
  (Array.isArray(value) &&
    typeof schema.items === 'object' &&
    schema.items !== null &&
    mergeAllOf(schema.items as Schema)['x-values-not-shown'] === true);

/** A value other than those the specification shows for a place whose full set it does not show (`x-values-seen`). */
const valueNotSeenAt: PlaceTest = (schema, value) => {
  const seen = schema['x-values-seen'];
  return Array.isArray(seen) && !seen.some((v) => isDeepStrictEqual(v, value));
};

/**
 * A member name an object does not define where the specification does not show its other names (`x-names-not-shown`).
 */
const nameNotShownAt: PlaceTest = (schema, value) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || schema['x-names-not-shown'] !== true)
    return false;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.keys(value).some((name) => !(name in properties));
};

/**
 * A number that is not a whole number a double holds exactly: fractional page members are not shown, and past 2^53 a
 * number cannot be read back as sent.
 */
const inexactNumberAt: PlaceTest = (_schema, value) => typeof value === 'number' && !Number.isSafeInteger(value);

/** A number whose largest allowed value is not shown (`x-maximum-not-shown`). */
const numberPastUnshownMaximumAt: PlaceTest = (schema, value) =>
  schema['x-maximum-not-shown'] === true && typeof value === 'number';

/** A generated request as the open places read it. */
export interface HeldInput {
  operation: Operation;
  query: string | undefined;
  /** The query object or the parsed document, as the contract reads it. */
  value: unknown;
  /** The request's findings below MUST: forms only a convention makes wrong. */
  conventionFindings: Finding[];
}

/** What an open place lets a target do: refuse the input with any 4xx, or with 400 besides its success. */
type Refusal = 'any 4xx' | 'also 400';

/**
 * A kind of place the specification does not show, as an input can hold it: what shows it (a
 * marker of the contract's schemas, or what else), how such an input may be refused, and the roles
 * whose checks read the place itself, so that a reading of it the specification leaves open can
 * change their verdict; every other check judges the answer. `open-places.test.ts` fails when an
 * entry relaxes a role whose check reads nothing of its place.
 */
export interface OpenPlace {
  name: string;
  /** The marker of the contract's schemas that shows the place, when one does. */
  marker?: string;
  refusal: Refusal;
  relaxes: readonly OperationRole[];
  holds(input: HeldInput): boolean;
}

/**
 * The roles of the page arithmetic that read `page[limit]` or `page[offset]` from the request (contract/checks/
 * list-page-arithmetic.ts).
 */
const PAGE_READING_ROLES: readonly OperationRole[] = [
  'pageLength',
  'metaOffsetEcho',
  'metaPageNumber',
  'metaLimitEffective',
];

const schemaOf = (operation: Operation): Schema => operation.requestBody ?? querySchema(operation);
const holdsAt = (test: PlaceTest) => (input: HeldInput) => somePlace(schemaOf(input.operation), input.value, test);

/** A query number written other than in plain decimal digits: the one form every reading of a query agrees on. */
const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)$/;

/**
 * A query value that is a number written another way (`1e1`, `10.0`, `+5`, `010`): how a query writes numbers is not
 * shown, so a server may read it otherwise.
 */
function holdsNumberInAnotherForm(query: string | undefined): boolean {
  return parseQueryPairs(query ?? '').some(
    ({ value }) => value.trim() !== '' && Number.isFinite(Number(value)) && !PLAIN_DECIMAL.test(value),
  );
}

/**
 * A finding below MUST on how the request writes `page` (a bare `page=`, a scalar, a fraction): the page a server reads
 * from it is not shown.
 */
const isPageFormFinding = (operation: Operation) => (finding: Finding) =>
  finding.requirement === operation.roles.pageShape || finding.requirement === operation.roles.pageFractional;

export const OPEN_PLACES: readonly OpenPlace[] = [
  // Which include names exist, and what permission numbers mean, is not shown: no check reads the
  // meaning of an include name or a permission; the echo reads the number as sent, whatever it means.
  {
    name: 'a value whose meaning is not shown',
    marker: 'x-values-not-shown',
    refusal: 'any 4xx',
    relaxes: [],
    holds: holdsAt(valueNotShownAt),
  },
  {
    name: 'a value other than those seen',
    marker: 'x-values-seen',
    refusal: 'any 4xx',
    relaxes: [],
    holds: holdsAt(valueNotSeenAt),
  },
  // The echo reads only the relationships the specification names (`owner`), whatever else is sent.
  {
    name: 'a member name not shown',
    marker: 'x-names-not-shown',
    refusal: 'any 4xx',
    relaxes: [],
    holds: holdsAt(nameNotShownAt),
  },
  // A cap on the page size is judged as one (meta.limit reports it, SHOULD), not relaxed.
  {
    name: 'a number past a maximum not shown',
    marker: 'x-maximum-not-shown',
    refusal: 'also 400',
    relaxes: [],
    holds: holdsAt(numberPastUnshownMaximumAt),
  },
  {
    name: 'a number no double holds exactly as a whole number',
    refusal: 'any 4xx',
    relaxes: [...PAGE_READING_ROLES, 'attributesEcho'],
    holds: holdsAt(inexactNumberAt),
  },
  {
    name: 'a query number written other than in decimal digits',
    refusal: 'any 4xx',
    relaxes: PAGE_READING_ROLES,
    holds: (input) => !input.operation.requestBody && holdsNumberInAnotherForm(input.query),
  },
  {
    name: 'a page written in a form only a convention refuses',
    refusal: 'any 4xx',
    relaxes: PAGE_READING_ROLES,
    holds: (input) => input.conventionFindings.some(isPageFormFinding(input.operation)),
  },
  {
    name: 'another parameter written in a form only a convention refuses',
    refusal: 'any 4xx',
    relaxes: [],
    holds: (input) => input.conventionFindings.some((f) => !isPageFormFinding(input.operation)(f)),
  },
];

/** True when `value` holds, somewhere the schema describes, a value or member name the specification does not show. */
export function holdsUnshownValue(schema: Schema, value: unknown): boolean {
  return somePlace(
    schema,
    value,
    (place, v) =>
      valueNotShownAt(place, v) || valueNotSeenAt(place, v) || nameNotShownAt(place, v) || inexactNumberAt(place, v),
  );
}

/** The requirements a 5xx answer breaks, whatever the input: those the contract binds to its check of server errors. */
export function serverErrorRequirements(contract: Contract): ReadonlySet<string> {
  const check = exchangeChecks.find((c) => c.name === 'serverError');
  if (!check) throw new Error('the contract has no serverError check, which judges 5xx answers');
  return requirementsBoundTo(contract, check);
}

/** The input as the contract reads it: the query object, or the parsed document. */
function inputValue(operation: Operation, query: string | undefined, bodyText: string | undefined): unknown {
  if (!operation.requestBody) return parseQuery(operation, query ?? '');
  try {
    return JSON.parse(bodyText ?? '');
  } catch {
    return undefined;
  }
}

/** The open places a valid input holds. */
export function openPlacesOf(input: HeldInput): OpenPlace[] {
  return OPEN_PLACES.filter((place) => place.holds(input));
}

/** The requirements an operation names for the roles the places relax. */
function relaxedRequirements(operation: Operation, places: OpenPlace[]): string[] {
  return [
    ...new Set(
      places.flatMap((place) =>
        place.relaxes.map((role) => operation.roles[role]).filter((id): id is string => id !== undefined),
      ),
    ),
  ];
}

/** What the contract says of a generated request, and what it may be answered. */
export function expectationOf(
  contract: Contract,
  operation: Operation,
  query: string | undefined,
  bodyText: string | undefined,
): Expectation {
  const findings = validateRequest(contract, operation, {
    method: operation.method,
    path: `${contract.basePath}${operation.pathTemplate}${query === undefined ? '' : `?${query}`}`,
    headers: { authorization: 'Bearer r:token', ...(bodyText === undefined ? {} : { 'content-type': MEDIA_TYPE }) },
    bodyText,
  });
  const refusable = refusableFindings(findings);
  // Any input may meet a condition HTTP defines and the specification leaves open (a URI too long, say).
  const generic = [...contract.genericStatuses];
  const success = contract.successRequirement(operation.operationId).id;
  if (refusable.length === 0) {
    const conventionFindings = findings.filter((f) => f.location === 'request' && f.level !== 'MUST');
    const places = openPlacesOf({
      operation,
      query,
      value: inputValue(operation, query, bodyText),
      conventionFindings,
    });
    const relaxed = relaxedRequirements(operation, places);
    const openPlaces = places.map((place) => place.name);
    if (places.some((place) => place.refusal === 'any 4xx')) {
      const anyBut5xx = [...new Set([...operation.statuses, ...generic])]
        .filter((status) => status < 500)
        .sort((a, b) => a - b);
      return {
        valid: true,
        open: true,
        openPlaces,
        relaxed,
        requirement: success,
        statuses: anyBut5xx,
        described: `an input holding ${openPlaces.join(', ')}`,
      };
    }
    const served = operation.requestBody
      ? operation.statuses.filter((status) => status < 500 && !CREDENTIAL_STATUSES.includes(status))
      : successStatuses(operation);
    const refusals = places.length > 0 ? rejectionStatuses([]) : [];
    return {
      valid: true,
      open: false,
      openPlaces,
      relaxed,
      requirement: success,
      statuses: [...new Set([...served, ...refusals, ...generic])],
      described: 'a valid input',
    };
  }
  const first = refusable[0];
  const statuses = [
    ...new Set([
      ...rejectionStatuses(refusable.map((f) => contract.requirementBrokenByAccepting(f.requirement).id)),
      ...generic,
    ]),
  ].sort((a, b) => a - b);
  return {
    valid: false,
    open: false,
    openPlaces: [],
    relaxed: [],
    requirement: contract.requirementBrokenByAccepting(first.requirement).id,
    statuses,
    described: `an input the contract rejects (${first.message})`,
  };
}
