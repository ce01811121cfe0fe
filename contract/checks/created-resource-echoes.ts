// Judges the roles attributesEcho and relationshipsEcho: a created resource echoes what was sent (section 4.3).
import type { Contract, Operation } from '../contract.ts';
import { isDeepStrictEqual } from 'node:util';
import { escapeToken } from '../resolve.ts';
import { showValue } from '../messages.ts';
import { namesShownAt, serverAttributes } from '../members.ts';
import type { Finding } from '../types.ts';
import { asObject, type CheckVerdict, type ExchangeCheck, isRequestProblem, jsonBody, type Json } from './exchange.ts';

export const createdResourceEchoes: ExchangeCheck = {
  name: 'createdResourceEchoes',
  roles: ['attributesEcho', 'relationshipsEcho'],
  appliesTo: (x) =>
    (x.operation?.roles.attributesEcho !== undefined || x.operation?.roles.relationshipsEcho !== undefined) &&
    x.response.status === 201,
  run(contract, x, options, verdict) {
    // The answer to a request it must refuse is judged under what the request broke (invalidAnswered2xx).
    if (x.requestFindings.some(isRequestProblem)) return [];
    const operation = x.operation!;
    const sent = asObject(jsonBody(x.request)?.data);
    const created = jsonBody(x.response)?.data;
    const echo = contract.requirementOf(operation, 'attributesEcho')?.id;
    const relationshipsEcho = contract.requirementOf(operation, 'relationshipsEcho')?.id;
    if (created === null || typeof created !== 'object' || Array.isArray(created)) {
      for (const requirement of [echo, relationshipsEcho])
        if (requirement !== undefined)
          verdict.cannotJudge(requirement, 'the 201 answer held no data object', 'response');
      return [];
    }
    const findings: Finding[] = [];
    const createdAttributes = asObject((created as Json).attributes);
    const values = options.includeValues !== false;
    const shown = (value: unknown) => (values ? showValue(value) : undefined);
    const serverSet = new Set(serverAttributes(operation).map((m) => m.name));
    const sentAttributes =
      echo === undefined ? [] : Object.entries(asObject(sent.attributes)).filter(([name]) => !serverSet.has(name));
    for (const [name, value] of sentAttributes) {
      if (sameJson(createdAttributes[name], value)) continue;
      const message = values
        ? `attribute ${name} was sent as ${showValue(value)} but came back as ${showValue(createdAttributes[name])}`
        : `attribute ${name} did not come back as it was sent`;
      findings.push(
        contract.finding(echo!, 'response', {
          pointer: `/data/attributes/${name}`,
          message,
          expected: shown(value),
          actual: shown(createdAttributes[name]),
        }),
      );
    }
    if (sentAttributes.length > 0 && findings.length === 0) verdict.held(echo!, 'response');
    if (relationshipsEcho !== undefined)
      findings.push(
        ...relationshipLinkageFindings(
          contract,
          relationshipsEcho,
          echoedRelationships(operation, sent.relationships),
          (created as Json).relationships,
          shown,
          verdict,
        ),
      );
    return findings;
  },
};

/** Deep equality that survives pathologically deep documents (a stack overflow counts as unequal). */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return isDeepStrictEqual(a, b);
  } catch {
    return false;
  }
}

const shownRelationshipNames = new WeakMap<Operation, { names: ReadonlySet<string> | undefined }>();

/**
 * The relationships sent whose echo is judged: those the request schema names, when it marks other
 * names not shown (x-names-not-shown: a server may echo, ignore or refuse those); else all.
 */
function echoedRelationships(operation: Operation, sent: unknown): Json {
  let shown = shownRelationshipNames.get(operation);
  if (!shown)
    shownRelationshipNames.set(
      operation,
      (shown = {
        names: operation.requestBody ? namesShownAt(operation.requestBody, '/data/relationships') : undefined,
      }),
    );
  const names = shown.names;
  return names === undefined
    ? asObject(sent)
    : Object.fromEntries(Object.entries(asObject(sent)).filter(([name]) => names.has(name)));
}

/**
 * Section 4.3: the created resource's relationships are those of the request. What a relationship
 * links to (`data`) is held; `links` and `meta` are optional members a server may add or drop.
 */
function relationshipLinkageFindings(
  contract: Contract,
  requirement: string,
  sent: unknown,
  created: unknown,
  shown: (value: unknown) => string | undefined,
  verdict: CheckVerdict,
): Finding[] {
  const createdRelationships = asObject(created);
  return Object.entries(asObject(sent)).flatMap(([name, relationship]) => {
    const linkage = asObject(relationship);
    // A relationship sent without `data` has no linkage to echo: nothing is judged of it, so nothing held.
    if (!('data' in linkage)) return [];
    const came = asObject(createdRelationships[name]).data;
    if (sameJson(came, linkage.data)) {
      verdict.held(requirement, 'response');
      return [];
    }
    const pointer = `/data/relationships/${escapeToken(name)}/data`;
    return [
      contract.finding(requirement, 'response', {
        pointer,
        message: `relationship ${name} of the created resource does not link to what was sent`,
        expected: shown(linkage.data),
        actual: shown(came),
      }),
    ];
  });
}
