// Requirement templates: the rules every list follows are written once and taken per operation.
import { describe, expect, it } from 'vitest';
import { expandCatalogue, type CatalogueFile } from './catalogue.ts';
import { contract, list } from './test-support.ts';

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

  it('binds the shipped list to the requirement each template it takes makes, for the role the template plays', () => {
    expect(list.roles).toMatchObject({
      pageLength: 'NG-PAGE-LENGTH',
      metaPages: 'NG-META-PAGES',
      limitCap: 'NG-LIMIT-CAP',
      responseShape: 'NG-RESPONSE-SHAPE',
      success: 'NG-FILTER-ACCEPTED',
    });
    expect(contract.requirement('NG-RESPONSE-SHAPE').basis).toBe(
      '4.1: the 200 body requires a data array of NotificationGroups; included, when sent, is an array of resources.',
    );
  });
});
