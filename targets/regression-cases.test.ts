// Regression cases in a target file: read and checked against the catalogue, appended without
// losing the file's other keys and comments, never twice the same request, names kept unique.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../contract/test-support.ts';
import {
  CASE_CREDENTIALS,
  parseRegressionCases,
  readRegressionCases,
  saveRegressionCases,
  type RegressionCase,
} from './regression-cases.ts';
import { TargetError } from './target.ts';
import { parseTargetFile } from './target-file.ts';

const ids = contract.requirements.map((r) => r.id);
/** The operation the cases below ask, and the requirement of its success statuses, which they are kept for. */
const asked = contract.operations[0];
const KEPT_FOR = contract.successRequirement(asked.operationId).id;
/** A path of `asked`, with a query telling one request from another. */
const askedPath = (query: string) => `${asked.pathTemplate}?${query}`;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-regression-cases-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const answered = (path: string, name = 'answered wrong'): RegressionCase => ({
  name,
  requirement: KEPT_FOR,
  why: 'seen on staging',
  request: { method: asked.method, path, credentials: 'session' },
});

describe('regression cases in a target file', () => {
  it('are appended to a target file, its other keys and comments kept', () => {
    const file = join(dir, 'staging.yaml');
    writeFileSync(file, '# the staging target\nbaseUrl: https://staging.example.com/v3 # with /v3\n');
    const added = saveRegressionCases(file, [answered(askedPath('seen=staging&tries=10'))], ids);
    expect(added).toHaveLength(1);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# the staging target');
    expect(text).toContain('# with /v3');
    expect(parseTargetFile(text, file).baseUrl).toBe('https://staging.example.com/v3');
    expect(readRegressionCases(file, ids)).toEqual(added);
  });

  const blockFiles: { title: string; before?: string }[] = [
    { title: 'a new file' },
    {
      title: 'a file whose list is empty, written []',
      before: 'baseUrl: https://staging.example.com/v3\nregressionCases: []\n',
    },
  ];
  for (const c of blockFiles) {
    it(`are written to ${c.title} in block style, one key a line, as a person writes YAML`, () => {
      const file = join(dir, `block-${blockFiles.indexOf(c)}.yaml`);
      if (c.before !== undefined) writeFileSync(file, c.before);
      saveRegressionCases(file, [answered(askedPath('filter[kind]=a'))], ids);
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          'regressionCases:',
          '  - name: answered wrong',
          `    requirement: ${KEPT_FOR}`,
          '    request:',
          `      method: ${asked.method}`,
        ]),
      );
      expect(lines.filter((line) => /[{[]/.test(line.replace(/filter\[kind\]/, '')))).toEqual([]);
    });
  }

  it('never hold the same request for the same requirement twice, and keep names unique', () => {
    const file = join(dir, 'twice.yaml');
    saveRegressionCases(file, [answered(askedPath('page[limit]=3'))], ids);
    expect(saveRegressionCases(file, [answered(askedPath('page[limit]=3'))], ids)).toEqual([]);
    const [other] = saveRegressionCases(file, [answered(askedPath('page[limit]=4'))], ids);
    expect(other.name).toBe('answered wrong (2)');
    expect(readRegressionCases(file, ids)).toHaveLength(2);
  });

  const refused: { title: string; yaml: string; message: RegExp }[] = [
    {
      title: 'a requirement the catalogue does not have',
      yaml: 'regressionCases:\n  - { name: a, requirement: NO-SUCH-ID, why: x, request: { method: GET, path: /x, credentials: session } }\n',
      message: /regression case for NO-SUCH-ID, which is no requirement of the catalogue/,
    },
    {
      title: 'a credential scheme that is none of the four',
      yaml: `regressionCases:\n  - { name: a, requirement: ${KEPT_FOR}, why: x, request: { method: GET, path: /x, credentials: token-abc } }\n`,
      message: /regressionCases\.0\.request\.credentials must be equal to one of the allowed values/,
    },
    {
      title: 'a path not under the base URL',
      yaml: `regressionCases:\n  - { name: a, requirement: ${KEPT_FOR}, why: x, request: { method: GET, path: "https://elsewhere/x", credentials: none } }\n`,
      message: /regressionCases\.0\.request\.path must match pattern/,
    },
    {
      title: 'two cases of one name',
      yaml: `regressionCases:\n  - { name: a, requirement: ${KEPT_FOR}, why: x, request: { method: GET, path: /x, credentials: none } }\n  - { name: a, requirement: ${KEPT_FOR}, why: y, request: { method: GET, path: /y, credentials: none } }\n`,
      message: /more than one regression case named "a"/,
    },
  ];
  for (const c of refused) {
    it(`refuse ${c.title} in one line`, () => {
      expect(() => parseRegressionCases(c.yaml, 'staging.yaml', ids)).toThrow(TargetError);
      expect(() => parseRegressionCases(c.yaml, 'staging.yaml', ids)).toThrow(c.message);
    });
  }

  it('name the credential schemes the target file schema allows, no more, no less', () => {
    const schema = JSON.parse(readFileSync(new URL('target.schema.json', import.meta.url), 'utf8')) as {
      properties: {
        regressionCases: { items: { properties: { request: { properties: { credentials: { enum: string[] } } } } } };
      };
    };
    expect(schema.properties.regressionCases.items.properties.request.properties.credentials.enum).toEqual([
      ...CASE_CREDENTIALS,
    ]);
  });
});
