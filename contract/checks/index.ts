// Checks over one whole exchange (request and response together), shared by the suite and the
// proxy. Each check is a small pure function with a declared scope. It returns what it found
// broken and tells its verdict what it judged and held, or could not judge and why: a
// requirement is passed only when a check judged it. Which requirements a check may judge is the
// catalogue's to say (`judgedBy`); judging another is an error in the kit, never a finding.
// One check per file; the registry below is their order, which the order of findings follows.
import type { Contract, Operation } from '../contract.ts';
import type { Assessment, Finding, Location, ValidateOptions } from '../types.ts';
import type { CheckVerdict, Exchange, ExchangeCheck } from './exchange.ts';
import { unauthenticatedNot401 } from './unauthenticated-not-401.ts';
import { invalidAnswered2xx } from './invalid-answered-2xx.ts';
import { unlistedSuccess } from './unlisted-success.ts';
import { statusListed } from './status-listed.ts';
import { serverError } from './server-error.ts';
import { errorStatusMatches } from './error-status-matches.ts';
import { wwwAuthenticateOn401 } from './www-authenticate-on-401.ts';
import { errorSourcePointerResolves } from './error-source-pointer-resolves.ts';
import { errorSourceParameterNamed } from './error-source-parameter-named.ts';
import { listPageArithmetic } from './list-page-arithmetic.ts';
import { itemsMatchFilter } from './items-match-filter.ts';
import { includeHonoured } from './include-honoured.ts';
import { createdResourceEchoes } from './created-resource-echoes.ts';
import { acceptedWithoutBody } from './accepted-without-body.ts';
import { bodyUtf8 } from './body-utf8.ts';
import { memberNamesUnique } from './member-names-unique.ts';
import { integerForm } from './integer-form.ts';

export type { CheckVerdict, Exchange, ExchangeCheck } from './exchange.ts';
export { acceptsRefusable, refusableFindings, refusalsFor } from './refusals.ts';

export const exchangeChecks: ExchangeCheck[] = [
  unauthenticatedNot401,
  invalidAnswered2xx,
  unlistedSuccess,
  statusListed,
  serverError,
  errorStatusMatches,
  wwwAuthenticateOn401,
  errorSourcePointerResolves,
  errorSourceParameterNamed,
  listPageArithmetic,
  itemsMatchFilter,
  includeHonoured,
  createdResourceEchoes,
  acceptedWithoutBody,
  bodyUtf8,
  memberNamesUnique,
  integerForm,
];

const boundSets = new WeakMap<Contract, Map<string, ReadonlySet<string>>>();

/**
 * The requirements a check may judge: those whose `judgedBy` names it, and those an operation names for one of its
 * roles. Computed once per contract.
 */
export function requirementsBoundTo(contract: Contract, check: ExchangeCheck): ReadonlySet<string> {
  let byCheck = boundSets.get(contract);
  if (!byCheck) boundSets.set(contract, (byCheck = new Map<string, ReadonlySet<string>>()));
  let bound = byCheck.get(check.name);
  if (!bound) {
    const byRole = (check.roles ?? []).flatMap((role) => contract.requirementsInRole(role));
    bound = new Set([...contract.requirementsJudgedBy(check.name), ...byRole]);
    byCheck.set(check.name, bound);
  }
  return bound;
}

const operationBoundSets = new WeakMap<Operation, Map<string, ReadonlySet<string>>>();

/**
 * The requirements a check may judge on an exchange of `operation`: those whose `judgedBy` names
 * it, and those this operation names for the check's roles. A role's requirement of another
 * operation is not among them, so a check cannot blame one list for another's page.
 */
export function requirementsBoundFor(
  contract: Contract,
  check: ExchangeCheck,
  operation: Operation | null,
): ReadonlySet<string> {
  if (operation === null || !check.roles?.length) return contract.requirementsJudgedBy(check.name);
  let byCheck = operationBoundSets.get(operation);
  if (!byCheck) operationBoundSets.set(operation, (byCheck = new Map<string, ReadonlySet<string>>()));
  let bound = byCheck.get(check.name);
  if (!bound) {
    const byRole = check.roles.flatMap((role) => operation.roles[role] ?? []);
    bound = new Set([...contract.requirementsJudgedBy(check.name), ...byRole]);
    byCheck.set(check.name, bound);
  }
  return bound;
}

/**
 * Every judge that can break a requirement: the catalogue's (schema routes, judgedBy) and the checks judging a role an
 * operation names it for.
 */
export function judgesOf(contract: Contract, requirementId: string): string[] {
  const byRole = exchangeChecks
    .filter((check) => requirementsBoundTo(contract, check).has(requirementId))
    .map((check) => check.name);
  return [...new Set([...contract.judgesOf(requirementId), ...byRole])];
}

/** A check judged a requirement the catalogue does not bind to it: an error in the kit, never a finding. */
function unbound(check: ExchangeCheck, requirement: string, operation: Operation | null): Error {
  const where = operation === null ? '' : ` on an exchange of ${operation.operationId}`;
  return new Error(
    `check ${check.name} judged ${requirement}, which the catalogue does not bind to it${where} (add ${check.name} to its judgedBy${check.roles ? `, or name it in the operation's x-requirements for the role ${check.roles.join(' or ')}` : ''})`,
  );
}

/** A check's verdict recorded in an assessment, refusing a requirement the catalogue does not bind to the check. */
class AssessedVerdict implements CheckVerdict {
  constructor(
    private readonly check: ExchangeCheck,
    private readonly operation: Operation | null,
    private readonly bound: ReadonlySet<string>,
    private readonly assessment: Assessment,
  ) {}

  held(requirement: string, location: Location = 'exchange'): void {
    this.own(requirement);
    this.assessment.judged.push({ requirement, location });
  }

  cannotJudge(requirement: string, reason: string, location: Location = 'exchange'): void {
    this.own(requirement);
    this.assessment.unjudged.push({ requirement, location, reason });
  }

  found(finding: Finding): void {
    this.own(finding.requirement);
    this.assessment.findings.push(finding);
    this.assessment.judged.push({ requirement: finding.requirement, location: finding.location });
  }

  private own(requirement: string): void {
    if (!this.bound.has(requirement)) throw unbound(this.check, requirement, this.operation);
  }
}

/**
 * A check whose requirements the contract left out (`appliesWhen`) has nothing it may judge. A check bound to nothing
 * for another reason still runs, so that judging an unbound requirement stays an error.
 */
function judgesOnlyLeftOut(contract: Contract, check: ExchangeCheck, bound: ReadonlySet<string>): boolean {
  return bound.size === 0 && contract.leftOut.some((r) => r.judgedBy?.includes(check.name));
}

/**
 * Runs every check that applies, and says what each judged and could not judge; `includeValues: false` keeps body
 * values out of messages.
 */
export function assessChecks(contract: Contract, exchange: Exchange, options: ValidateOptions = {}): Assessment {
  const assessment: Assessment = { findings: [], judged: [], unjudged: [] };
  for (const check of exchangeChecks) {
    if (!check.appliesTo(exchange)) continue;
    const bound = requirementsBoundFor(contract, check, exchange.operation);
    if (judgesOnlyLeftOut(contract, check, bound)) continue;
    const verdict = new AssessedVerdict(check, exchange.operation, bound, assessment);
    for (const finding of check.run(contract, exchange, options, verdict)) verdict.found(finding);
  }
  return assessment;
}

const NO_VERDICT: CheckVerdict = { held: () => undefined, cannotJudge: () => undefined };

/**
 * Runs every check that applies, for its findings only (the proxy's path); `includeValues: false` keeps body values out
 * of messages.
 */
export function checkExchange(contract: Contract, exchange: Exchange, options: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const check of exchangeChecks) {
    if (!check.appliesTo(exchange)) continue;
    const bound = requirementsBoundFor(contract, check, exchange.operation);
    if (judgesOnlyLeftOut(contract, check, bound)) continue;
    for (const finding of check.run(contract, exchange, options, NO_VERDICT)) {
      if (!bound.has(finding.requirement)) throw unbound(check, finding.requirement, exchange.operation);
      findings.push(finding);
    }
  }
  return findings;
}
