// Every requirement is bound to what can break it (`judgedBy` in requirements.yaml, and the schema
// validation for `schemaFindings`), and nothing judges a requirement it is not bound to.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  assessChecks,
  checkExchange,
  Contract,
  exchangeChecks,
  judgesOf,
  JUDGES_OUTSIDE_CHECKS,
  MEDIA_TYPE,
  requirementsBoundFor,
  requirementsBoundTo,
  SCHEMA_DIR,
  validateRequest,
  type Requirement,
} from './index.ts';
import { isTemplateUse, type TemplateUse } from './catalogue.ts';
import { grownContract } from '../test-support/grown-contract.ts';
import { contract, create, credentials, itWith, list, listQuery } from './test-support.ts';

const openapiText = readFileSync(`${SCHEMA_DIR}openapi.yaml`, 'utf8');
const requirementsText = readFileSync(`${SCHEMA_DIR}requirements.yaml`, 'utf8');

/**
 * A contract whose catalogue is changed by `change`, and its openapi.yaml by `changeOpenapi` (the shipped ones are left
 * alone).
 */
function contractWith(
  change: (requirements: Requirement[]) => Requirement[],
  changeOpenapi: (text: string) => string = (text) => text,
): Contract {
  const catalogue = parseYaml(requirementsText) as { requirements: Requirement[]; templates?: unknown[] };
  return new Contract(
    changeOpenapi(openapiText),
    stringifyYaml({ ...catalogue, requirements: change(catalogue.requirements) }),
  );
}

/** The checks that judge by role, with the roles each judges. */
const checksByRole = exchangeChecks.filter((check) => (check.roles ?? []).length > 0);

/** An operation naming a requirement for the echo of the relationships sent. */
const echoing = contract.operations.find((o) => o.roles.relationshipsEcho !== undefined);

const anyOperation = contract.operations[0];
const unauthorizedWithoutHeader = {
  operation: anyOperation,
  request: {
    method: anyOperation.method,
    path: `${contract.basePath}${anyOperation.pathTemplate}`,
    headers: credentials,
  },
  response: { status: 401, headers: { 'content-type': MEDIA_TYPE }, bodyText: '{"errors":[{"status":"401"}]}' },
  requestFindings: [],
};

describe('the binding of requirements to their judges', () => {
  const checkNames = exchangeChecks.map((check) => check.name);

  it('gives every requirement of the catalogue a judge that can break it', () => {
    expect(contract.requirements.filter((r) => judgesOf(contract, r.id).length === 0).map((r) => r.id)).toEqual([]);
  });

  it('says, for every requirement the suite judges, what a run that exercised it nowhere reports', () => {
    const suiteJudged = contract.requirements.filter((r) => !r.checkedBy || r.checkedBy.includes('suite'));
    expect(suiteJudged.filter((r) => r.notExercised === undefined).map((r) => r.id)).toEqual([]);
  });

  it('names only judges the kit has', () => {
    const known = new Set([...checkNames, ...JUDGES_OUTSIDE_CHECKS]);
    const unknown = contract.requirements.flatMap((r) =>
      (r.judgedBy ?? []).filter((name) => !known.has(name)).map((name) => `${r.id}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("binds every exchange check and every judge outside the checks to a requirement (a check for a role only a later contract names, in the proof's grown contract)", () => {
    const unbound = (within: Contract) =>
      exchangeChecks.filter((check) => requirementsBoundTo(within, check).size === 0).map((check) => check.name);
    expect(unbound(contract).filter((name) => unbound(grownContract()).includes(name))).toEqual([]);
    expect(JUDGES_OUTSIDE_CHECKS.filter((name) => contract.requirementsJudgedBy(name).size === 0)).toEqual([]);
  });

  itWith(create, 'create operation')(
    "binds by role: a success requirement of any id is judged by unlistedSuccess, from the operation's x-requirements alone",
    (operation) => {
      const success = contract.requirementOf(operation, 'success')!.id;
      const renamedId = `${success}-AS-LISTED`;
      const renamed = contractWith(
        (requirements) => requirements.map((r) => (r.id === success ? { ...r, id: renamedId } : r)),
        (text) => text.replace(`success: ${success}\n`, `success: ${renamedId}\n`),
      );
      const unlistedSuccess = exchangeChecks.find((check) => check.name === 'unlistedSuccess')!;
      expect(requirementsBoundTo(renamed, unlistedSuccess).has(renamedId)).toBe(true);
      const request = {
        method: operation.method,
        path: `${contract.basePath}${operation.pathTemplate}`,
        headers: { ...credentials, 'content-type': MEDIA_TYPE },
        bodyText: JSON.stringify({ data: { type: operation.resourceType } }),
      };
      const created = {
        operation: renamed.operation(operation.operationId),
        request,
        response: { status: 202, headers: {} },
        requestFindings: [],
      };
      expect(assessChecks(renamed, created).judged).toContainEqual({ requirement: renamedId, location: 'response' });
    },
  );

  it('binds the requirement an operation names for a role to every check that declares the role, and to no other', () => {
    for (const within of [contract, grownContract()]) {
      for (const check of checksByRole) {
        const byRole = check.roles!.flatMap((role) =>
          within.operations.flatMap((operation) => operation.roles[role] ?? []),
        );
        for (const id of byRole) expect(judgesOf(within, id), id).toContain(check.name);
      }
    }
    const named = (check: (typeof checksByRole)[number]) =>
      check.roles!.some((role) => grownContract().requirementsInRole(role).length > 0);
    expect(
      checksByRole.filter((check) => !named(check)).map((check) => `${check.name} judges a role no operation names`),
    ).toEqual([]);
  });

  itWith(echoing, 'operation naming a requirement for relationshipsEcho')(
    'binds a requirement no operation names for a role to none of the checks of the role',
    (operation) => {
      const id = operation.roles.relationshipsEcho!;
      expect(judgesOf(contract, id)).toContain('createdResourceEchoes');
      const unnamed = contractWith(
        (requirements) => requirements,
        (text) => text.replace(`        relationshipsEcho: ${id}\n`, ''),
      );
      expect(judgesOf(unnamed, id)).not.toContain('createdResourceEchoes');
    },
  );

  it('states each binding once: no judgedBy names a check a role already binds the requirement to', () => {
    const restated = contract.requirements.flatMap((r) =>
      (r.judgedBy ?? [])
        .filter((name) =>
          checksByRole.some(
            (check) =>
              check.name === name && check.roles!.some((role) => contract.requirementsInRole(role).includes(r.id)),
          ),
        )
        .map((name) => `${r.id}: ${name}`),
    );
    expect(restated).toEqual([]);
  });

  it('binds invalidAnswered2xx to exactly what serving a request the contract rejects can break', () => {
    // A MUST a request can break: the schema's request routes, malformed credentials, the request media type.
    const requestMusts = contract.requirements.filter(
      (r) =>
        r.level === 'MUST' &&
        (r.schemaFindings?.some((route) => route.location === 'request' && route.operation !== 'generic') ||
          r.id === 'AUTH-401-MALFORMED' ||
          r.id === 'MEDIA-TYPE-REQUEST'),
    );
    const derived = new Set(requestMusts.map((r) => contract.requirementBrokenByAccepting(r.id).id));
    expect([...contract.requirementsJudgedBy('invalidAnswered2xx')].sort()).toEqual([...derived].sort());
  });

  it('refuses a check that judges a requirement the catalogue does not bind to it', () => {
    const unbound = contractWith((requirements) =>
      requirements.map((r) => (r.id === 'AUTH-WWW-AUTHENTICATE' ? { ...r, judgedBy: ['suiteCase'] } : r)),
    );
    expect(() => assessChecks(unbound, unauthorizedWithoutHeader)).toThrow(
      'check wwwAuthenticateOn401 judged AUTH-WWW-AUTHENTICATE, which the catalogue does not bind to it',
    );
    expect(() => checkExchange(unbound, unauthorizedWithoutHeader)).toThrow(
      'check wwwAuthenticateOn401 judged AUTH-WWW-AUTHENTICATE',
    );
    const held = {
      ...unauthorizedWithoutHeader,
      response: {
        ...unauthorizedWithoutHeader.response,
        headers: { ...unauthorizedWithoutHeader.response.headers, 'www-authenticate': 'Bearer' },
      },
    };
    expect(() => assessChecks(unbound, held)).toThrow('check wwwAuthenticateOn401 judged AUTH-WWW-AUTHENTICATE');
    expect(() => assessChecks(contract, held)).not.toThrow();
  });

  itWith(list, 'list')(
    "blames, on each list, the requirement that list names for a role: a second list's wrong page is never reported under the first's ids",
    (first) => {
      const catalogue = parseYaml(requirementsText) as { requirements: (Requirement | TemplateUse)[] };
      const prefix = catalogue.requirements
        .filter(isTemplateUse)
        .find((u) => u.operation === first.operationId)!.prefix;
      const own = (id: string) => id.startsWith(`${prefix}-`);
      const from = openapiText.indexOf(`\n  ${first.pathTemplate}:\n`) + 1;
      // The path item runs to the next path or the next top-level key.
      const next = /\n( {2}\/|\S)/.exec(openapiText.slice(from));
      const to = next === null ? openapiText.length : from + next.index + 1;
      const second = openapiText
        .slice(from, to)
        .replace(`  ${first.pathTemplate}:`, '  /zz-proof-pages:')
        .replace(`operationId: ${first.operationId}`, 'operationId: zzProofListPages')
        .replaceAll(`: ${prefix}-`, ': ZZPAGES-');
      // The second list takes the first's own requirements under other ids, and the same templates.
      const asSecond = (entry: Requirement | TemplateUse): Requirement | TemplateUse =>
        isTemplateUse(entry)
          ? { ...entry, operation: 'zzProofListPages', prefix: 'ZZPAGES' }
          : {
              ...entry,
              id: entry.id.replace(`${prefix}-`, 'ZZPAGES-'),
              ...(entry.schemaFindings
                ? { schemaFindings: entry.schemaFindings.map((route) => ({ ...route, operation: 'zzProofListPages' })) }
                : {}),
            };
      const ofFirst = (entry: Requirement | TemplateUse) =>
        isTemplateUse(entry) ? entry.operation === first.operationId : own(entry.id);
      const twoLists = contractWith(
        (requirements) =>
          [
            ...requirements,
            ...(requirements as (Requirement | TemplateUse)[]).filter(ofFirst).map(asSecond),
          ] as Requirement[],
        (text) => `${text.slice(0, to)}${second}${text.slice(to)}`,
      );
      const arithmetic = exchangeChecks.find((check) => check.name === 'listPageArithmetic')!;
      const items = Array.from({ length: 10 }, (_, i) => ({
        id: i.toString(16).padStart(24, '0'),
        type: first.resourceType,
      }));
      const wrongPages = (operationId: string, path: string) => ({
        operation: twoLists.operation(operationId),
        request: {
          method: 'GET',
          path: `${contract.basePath}${path}?${listQuery(first, { limit: 10, offset: 0 })}`,
          headers: credentials,
        },
        response: {
          status: 200,
          headers: { 'content-type': MEDIA_TYPE },
          bodyText: JSON.stringify({ data: items, meta: { total: 25, pages: 2, page: 1, offset: 0, limit: 10 } }),
        },
        requestFindings: [],
      });
      const metaPages = first.roles.metaPages!;
      const onSecond = assessChecks(twoLists, wrongPages('zzProofListPages', '/zz-proof-pages'));
      expect(onSecond.findings.map((f) => f.requirement)).toEqual([metaPages.replace(`${prefix}-`, 'ZZPAGES-')]);
      expect(onSecond.judged.map((j) => j.requirement).filter(own)).toEqual([]);
      expect(
        checkExchange(twoLists, wrongPages(first.operationId, first.pathTemplate)).map((f) => f.requirement),
      ).toEqual([metaPages]);
      expect(requirementsBoundTo(twoLists, arithmetic).has(metaPages)).toBe(true);
      expect(requirementsBoundFor(twoLists, arithmetic, twoLists.operation('zzProofListPages')).has(metaPages)).toBe(
        false,
      );
    },
  );

  itWith(create, 'create operation')(
    'binds what the validation emits: credentials, media type and ObjectId',
    (operation) => {
      const request = {
        method: operation.method,
        path: `${contract.basePath}${operation.pathTemplate}`,
        headers: { authorization: 'Bearer x:token', 'content-type': 'text/plain' },
        bodyText: '{}',
      };
      const emitted = validateRequest(contract, operation, request).filter(
        (f) => !contract.judgesOf(f.requirement).includes('schema'),
      );
      expect(emitted.map((f) => f.requirement)).toEqual(['AUTH-401-MALFORMED', 'MEDIA-TYPE-REQUEST']);
      expect(
        emitted.every((f) =>
          contract
            .judgesOf(f.requirement)
            .includes(f.requirement === 'AUTH-401-MALFORMED' ? 'credentials' : 'mediaType'),
        ),
      ).toBe(true);
      expect(contract.judgesOf('RES-ID-OBJECTID')).toEqual(['objectId']);
    },
  );
});
