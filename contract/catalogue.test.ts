// Requirement templates: the rules every list follows are written once and taken per operation.
import { describe, expect, it } from 'vitest';
import type { OperationRole } from './operation.ts';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contractCopy } from '../test-support/contract-copy.ts';
import { expandCatalogue, isTemplateUse, type CatalogueFile } from './catalogue.ts';
import { assessChecks, checkExchange, type Exchange } from './checks/index.ts';
import { Contract, SCHEMA_DIR } from './contract.ts';
import { contract, credentials, itWith, jsonApi, list, lists } from './test-support.ts';
import type { Requirement } from './types.ts';

/** An operation of openapi.yaml as written: its id and the requirements it names for its roles. */
interface OperationYaml {
  operationId: string;
  'x-requirements'?: Partial<Record<OperationRole, string>>;
}

const file: CatalogueFile = {
  requirements: [
    { id: 'ZZ-FIRST', level: 'SHOULD', section: '2', text: 'Written as it is.' },
    { templates: ['PAGES', 'CAP'], operation: 'zzList', prefix: 'ZZ', section: '4.7' },
    { id: 'ZZ-LAST', level: 'SHOULD', section: '2', text: 'Written as it is.' },
  ],
  templates: [
    { name: 'CAP', level: 'INFO', section: '8', text: 'A cap on {operation}.', role: 'limitCap' },
    {
      name: 'PAGES',
      role: 'metaPages',
      level: 'MUST',
      section: '{section}',
      basis: '{section}, 9: the pages of a list of {itemType}s, as {prefix}-CAP says.',
      text: 'Pages of {itemType}.',
      schemaFindings: [{ operation: '{operation}', location: 'response', pointer: '^/meta/pages$' }],
    },
  ],
};

describe('the requirement templates of the catalogue', () => {
  it('put the requirements of an entry taking templates where it stands, each id the prefix and the name, every placeholder replaced', () => {
    const { requirements, roles } = expandCatalogue(file, (operationId) =>
      operationId === 'zzList' ? 'ZzItem' : undefined,
    );
    expect(requirements.map((r) => r.id)).toEqual(['ZZ-FIRST', 'ZZ-PAGES', 'ZZ-CAP', 'ZZ-LAST']);
    expect(requirements[1]).toEqual({
      id: 'ZZ-PAGES',
      level: 'MUST',
      section: '4.7',
      basis: '4.7, 9: the pages of a list of ZzItems, as ZZ-CAP says.',
      text: 'Pages of ZzItem.',
      schemaFindings: [{ operation: 'zzList', location: 'response', pointer: '^/meta/pages$' }],
    });
    expect(requirements[2]).toEqual({ id: 'ZZ-CAP', level: 'INFO', section: '8', text: 'A cap on zzList.' });
    expect(roles.get('zzList')).toEqual({ metaPages: 'ZZ-PAGES', limitCap: 'ZZ-CAP' });
  });

  it('refuses an entry naming a template the catalogue does not hold, naming it', () => {
    const missing: CatalogueFile = {
      requirements: [{ templates: ['PAGE-COUNT'], operation: 'zzList', prefix: 'ZZ', section: '4.1' }],
      templates: file.templates,
    };
    expect(() => expandCatalogue(missing, () => undefined)).toThrow(
      "requirements.yaml: zzList takes the template PAGE-COUNT, which the catalogue's templates do not hold",
    );
  });

  itWith(list, 'list')(
    'binds each list to the requirement each template it takes makes, for the role the template plays',
    () => {
      const read = (name: string) => parseYaml(readFileSync(join(SCHEMA_DIR, name), 'utf8')) as unknown;
      const written = read('requirements.yaml') as CatalogueFile;
      const paths = (read('openapi.yaml') as { paths: Record<string, Record<string, OperationYaml>> }).paths;
      const named = (operationId: string) =>
        Object.values(paths)
          .flatMap((item) => Object.values(item))
          .find((o) => o.operationId === operationId)?.['x-requirements'] ?? {};
      for (const operation of lists) {
        const uses = written.requirements.filter(isTemplateUse).filter((u) => u.operation === operation.operationId);
        expect(uses.length, operation.operationId).toBeGreaterThan(0);
        for (const use of uses)
          for (const name of use.templates) {
            const template = written.templates!.find((t) => t.name === name)!;
            const id = `${use.prefix}-${name}`;
            expect(contract.requirement(id).section).toBe(template.section.replace('{section}', use.section));
            expect(contract.requirement(id).text).not.toMatch(/\{(operation|prefix|section|itemType)\}/);
            if (template.role)
              expect(operation.roles[template.role], id).toBe(named(operation.operationId)[template.role] ?? id);
          }
      }
    },
  );
});

/** The contract of a copy of schemas/ without the path items of every list. */
function contractWithoutLists(): Contract {
  const directory = contractCopy({ removedPaths: [...new Set(lists.map((o) => o.pathTemplate))] });
  try {
    return new Contract(
      readFileSync(join(directory, 'openapi.yaml'), 'utf8'),
      readFileSync(join(directory, 'requirements.yaml'), 'utf8'),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('requirements that apply only to what a contract has (appliesWhen)', () => {
  const catalogue = parseYaml(readFileSync(join(SCHEMA_DIR, 'requirements.yaml'), 'utf8')) as CatalogueFile;
  const conditional = catalogue.requirements.filter(
    (r): r is Requirement => !isTemplateUse(r) && r.appliesWhen !== undefined,
  );

  it('are each held by the contract or left out by it, never both', () => {
    expect(conditional.length).toBeGreaterThan(0);
    for (const { id } of conditional) {
      const held = contract.requirements.some((r) => r.id === id);
      expect(contract.leftOut.some((r) => r.id === id)).toBe(!held);
    }
  });

  itWith(list, 'list')(
    'are all held by a contract with a list, and left out by one without, whose checks for them judge nothing and throw nothing',
    (list) => {
      expect(contract.leftOut).toEqual([]);
      const withoutLists = contractWithoutLists();
      const ids = (requirements: Requirement[]) => requirements.map((r) => r.id);
      // The shipped contract's query parameters and integer members are all its lists'.
      expect(ids(withoutLists.leftOut)).toEqual(ids(conditional));
      for (const requirement of conditional) expect(ids(withoutLists.requirements)).not.toContain(requirement.id);
      const refusedQuery: Exchange = {
        operation: null,
        request: { method: 'GET', path: `${contract.basePath}${list.pathTemplate}?filter=1`, headers: credentials },
        requestFindings: [
          { requirement: 'ERR-ENVELOPE', level: 'MUST', location: 'request', pointer: 'filter', message: 'x' },
        ],
        response: { status: 400, headers: jsonApi, bodyText: '{"errors":[{"status":"400"}]}' },
      } as unknown as Exchange;
      expect(() => assessChecks(withoutLists, refusedQuery)).not.toThrow();
      expect(() => checkExchange(withoutLists, refusedQuery)).not.toThrow();
    },
  );
});
