// The requirement catalogue as written (schemas/requirements.yaml): requirements, and entries that
// instantiate requirement templates for one operation. The rules every list follows are written
// once, as templates bound to roles; each list takes them by one entry naming them.
import { schemaMembers } from './members.ts';
import type { Operation, OperationRole } from './operation.ts';
import type { Requirement } from './types.ts';

/** A requirement written once for every operation that takes it: its id is `{prefix}-{name}`. */
export interface RequirementTemplate extends Omit<Requirement, 'id'> {
  name: string;
  /** The role of the operation's x-requirements it plays, unless the operation names another requirement for it. */
  role?: OperationRole;
}

/** An entry of the catalogue taking templates for one operation. */
export interface TemplateUse {
  templates: string[];
  operation: string;
  prefix: string;
  /** The section of the specification the operation is given in: `{section}` in the templates. */
  section: string;
}

export interface CatalogueFile {
  requirements: (Requirement | TemplateUse)[];
  templates?: RequirementTemplate[];
}

/**
 * The catalogue with every template entry replaced by its requirements, and the roles those requirements play per
 * operation.
 */
export interface ExpandedCatalogue {
  requirements: Requirement[];
  roles: Map<string, Partial<Record<OperationRole, string>>>;
}

export function isTemplateUse(entry: Requirement | TemplateUse): entry is TemplateUse {
  return Array.isArray((entry as TemplateUse).templates);
}

/** Every string of `value` with each `{name}` of `values` replaced. */
function substituted<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string')
    return value.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole) as T;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => substituted(item, values)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, substituted(member, values)])) as T;
  return value;
}

/**
 * Expands the catalogue in its order: a template entry becomes its requirements where it stands.
 * `itemTypeOf` says the `type` of an operation's list items (`{itemType}`). An entry naming a
 * template the file does not hold is an error naming it.
 */
export function expandCatalogue(
  file: CatalogueFile,
  itemTypeOf: (operationId: string) => string | undefined,
): ExpandedCatalogue {
  const templates = new Map((file.templates ?? []).map((template) => [template.name, template]));
  const roles = new Map<string, Partial<Record<OperationRole, string>>>();
  const requirements = file.requirements.flatMap((entry): Requirement[] => {
    if (!isTemplateUse(entry)) return [entry];
    const values = {
      prefix: entry.prefix,
      operation: entry.operation,
      section: entry.section,
      itemType: itemTypeOf(entry.operation) ?? 'item',
    };
    return entry.templates.map((name) => {
      const template = templates.get(name);
      if (!template)
        throw new Error(
          `requirements.yaml: ${entry.operation} takes the template ${name}, which the catalogue's templates do not hold`,
        );
      const { name: _name, role, ...fields } = substituted(template, values);
      const id = `${entry.prefix}-${name}`;
      if (role !== undefined) roles.set(entry.operation, { ...roles.get(entry.operation), [role]: id });
      return { id, ...fields };
    });
  });
  return { requirements, roles };
}

/** Whether the contract's operations have what a requirement needs to apply (`appliesWhen`). */
export function requirementApplies(requirement: Requirement, operations: readonly Operation[]): boolean {
  switch (requirement.appliesWhen) {
    case undefined:
      return true;
    case 'queryParameters':
      return operations.some((o) => o.parameters.length > 0);
    case 'integerMembers':
      return operations.some((o) =>
        [...o.responseBodies.values()].some((body) => body !== null && schemaMembers(body).some((m) => m.integer)),
      );
  }
}
