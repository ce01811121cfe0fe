import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const openapiText = readFileSync(new URL('openapi.yaml', import.meta.url), 'utf8');

describe('schemas/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(openapiText);
    expect(result.errors ?? [], 'OpenAPI 3.1 schema errors').toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is refused by the same validator when a response lacks its description', async () => {
    // Proves the check above can fail: a required member of the Response Object removed.
    const broken = openapiText.replace(/^( {8}"\d{3}":\n) {10}description: [^\n]*\n/m, '$1');
    expect(broken).not.toBe(openapiText);
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('is portable: every $ref names a whole component, none points into another schema (one common validator cannot resolve that)', () => {
    expect(refsInto(parseYaml(openapiText)).filter((ref) => !WHOLE_COMPONENT.test(ref))).toEqual([]);
    expect(
      refsInto({ links: { $ref: '#/components/schemas/Relationship/properties/links' } }).filter(
        (ref) => !WHOLE_COMPONENT.test(ref),
      ),
    ).toHaveLength(1);
  });
});

const WHOLE_COMPONENT = /^#\/components\/[A-Za-z]+\/[A-Za-z0-9._-]+$/;

/** Every `$ref` value in a parsed document. */
function refsInto(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsInto);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsInto(value),
  );
}
