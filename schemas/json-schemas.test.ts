import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { allCases, readCaseFiles } from '../contract/schema-cases.ts';
import { extensionKeywords, renderSchemaFiles, schemaId, standaloneSchemas } from './json-schemas.ts';

type Schema = Record<string, unknown>;

const jsonDir = new URL('json/', import.meta.url);
const rendered = renderSchemaFiles(readFileSync(new URL('openapi.yaml', import.meta.url), 'utf8'));
const onDisk = readdirSync(jsonDir)
  .filter((name) => name.endsWith('.schema.json'))
  .sort();
const regenerate = 'schemas/json/ is out of date with schemas/openapi.yaml: run `npm run schemas:generate`';

describe('schemas/json/ is in sync with openapi.yaml', () => {
  it('has a file for every component and no other', () => {
    expect(onDisk, regenerate).toEqual([...rendered.keys()]);
  });

  for (const [name, text] of rendered) {
    it(`${name} is what the generator renders`, () => {
      const disk = onDisk.includes(name) ? readFileSync(new URL(name, jsonDir), 'utf8') : '(missing)';
      expect(disk, regenerate).toBe(text);
    });
  }
});

describe('the standalone schemas', () => {
  const schemas = [...rendered.values()].map((text) => JSON.parse(text) as Schema);
  const keywords = extensionKeywords(schemas);

  function freshAjv(): Ajv2020 {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addVocabulary(keywords);
    for (const schema of schemas) ajv.addSchema(schema);
    return ajv;
  }

  it('compile together in a fresh strict Ajv2020 once their x- keywords are registered', () => {
    const ajv = freshAjv();
    const compiled = schemas.map((schema) => ajv.getSchema(String(schema.$id)));
    expect(compiled.every((validate) => typeof validate === 'function')).toBe(true);
  });

  it('are documented in schemas/json/README.md with every x- keyword they use', () => {
    const readme = readFileSync(new URL('README.md', jsonDir), 'utf8');
    expect(keywords.length).toBeGreaterThan(0);
    expect(keywords.filter((k) => !readme.includes(`'${k}'`))).toEqual([]);
  });

  const contract = loadContract();
  const ajv = freshAjv();
  for (const [name, file] of readCaseFiles()) {
    it(`accept and reject the cases of ${name} as the contract does`, () => {
      const validate = ajv.getSchema(schemaId(file.schema))!;
      const disagreements = allCases(contract, file)
        .filter((c) => validate(c.data) !== c.valid)
        .map((c) => c.description);
      expect(disagreements).toEqual([]);
    });
  }
});

describe('standaloneSchemas', () => {
  const openapi = {
    components: {
      schemas: {
        Link: { type: 'object', properties: { href: { type: 'string' } } },
        Item: {
          type: 'object',
          example: { links: { self: { href: '/items/1' } } },
          discriminator: { propertyName: 'kind' },
          externalDocs: { url: 'https://example.com' },
          xml: { name: 'item' },
          properties: {
            example: { type: 'string' },
            self: { $ref: '#/components/schemas/Link' },
            href: { $ref: '#/components/schemas/Link/properties/href' },
            parent: { $ref: '#/components/schemas/Item' },
            marker: { const: { $ref: '#/not/a/reference' } },
          },
          'x-note': 'kept',
        },
      },
    },
  };
  const item = standaloneSchemas(openapi).get('Item')!;
  const properties = item.properties as Record<string, Schema>;

  const cases: { description: string; actual: () => unknown; expected: unknown }[] = [
    {
      description: 'starts with the dialect, a stable $id and the component name',
      actual: () => Object.keys(item).slice(0, 3),
      expected: ['$schema', '$id', 'title'],
    },
    {
      description: 'sets the $id from the component name',
      actual: () => item.$id,
      expected: 'https://las-conformance.dev/schemas/v3/Item.schema.json',
    },
    {
      description: 'points a component $ref at the sibling file',
      actual: () => properties.self.$ref,
      expected: 'Link.schema.json',
    },
    {
      description: 'keeps the sub-pointer of a $ref into another component',
      actual: () => properties.href.$ref,
      expected: 'Link.schema.json#/properties/href',
    },
    {
      description: 'turns a $ref to the component itself into a local one',
      actual: () => properties.parent.$ref,
      expected: '#',
    },
    {
      description: 'leaves a $ref inside a const value alone',
      actual: () => properties.marker.const,
      expected: { $ref: '#/not/a/reference' },
    },
    {
      description: 'keeps a property named like an OpenAPI keyword',
      actual: () => properties.example,
      expected: { type: 'string' },
    },
    {
      description: 'turns example into the 2020-12 examples',
      actual: () => item.examples,
      expected: [{ links: { self: { href: '/items/1' } } }],
    },
    {
      description: 'drops discriminator, externalDocs and xml',
      actual: () => ['discriminator', 'externalDocs', 'xml'].filter((k) => k in item),
      expected: [],
    },
    { description: 'keeps x- annotations', actual: () => item['x-note'], expected: 'kept' },
    {
      description: 'sorts members after the header',
      actual: () => Object.keys(item).slice(3),
      expected: ['examples', 'properties', 'type', 'x-note'],
    },
    {
      description: 'lists components in name order',
      actual: () => [...standaloneSchemas(openapi).keys()],
      expected: ['Item', 'Link'],
    },
  ];
  for (const c of cases) it(c.description, () => expect(c.actual()).toEqual(c.expected));

  it('refuses a $ref outside components.schemas', () => {
    const broken = { components: { schemas: { Bad: { $ref: '#/components/responses/NotFound' } } } };
    expect(() => standaloneSchemas(broken)).toThrow(
      'Bad: $ref #/components/responses/NotFound does not point into components.schemas',
    );
  });
});
