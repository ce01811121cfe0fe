// No product code names a requirement of one particular operation: checks, cases, the reference
// server, reports and the command read it from the operation's roles (x-requirements) or the
// catalogue's routes. Only the contract and the fault and choice catalogues (data) name them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contract } from './test-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PRODUCT_FOLDERS = [
  'cli',
  'contract',
  'proxy',
  'reports',
  'run-protocol',
  'server',
  'suites',
  'targets',
  'traffic',
];
/** Data, not code: the catalogues of faults and choices bind their entries to operations by name. */
const DATA_FILES = new Set(['server/faults.ts', 'server/choices.ts']);
const isTestCode = (path: string) =>
  /\.test\.ts$|test-support\.ts$|-fixtures\.ts$|\.spec\.ts$|proof[-\w]*\.ts$/.test(path);

function productFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name).slice(ROOT.length))
    .filter((path) => !isTestCode(path) && !DATA_FILES.has(path));
}

/**
 * The requirements that belong to one operation: one it names for a role, or one whose every route names an operation.
 */
const operationIds = contract.requirements
  .filter(
    (r) =>
      contract.operations.some((o) => Object.values(o.roles).includes(r.id)) ||
      (r.schemaFindings !== undefined &&
        r.schemaFindings.every((route) => route.operation !== undefined && route.operation !== 'generic')),
  )
  .map((r) => r.id);

/** The text without its block comments and whole-line comments, where examples may name an id. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

describe('requirement ids of one operation in product code', () => {
  it('finds the requirements that belong to one operation', () => {
    const ownRoles = contract.operations.flatMap((o) =>
      (['success', 'responseShape', 'metaPages'] as const).flatMap((role) => o.roles[role] ?? []),
    );
    expect(ownRoles.length).toBeGreaterThanOrEqual(contract.operations.length);
    expect(operationIds).toEqual(expect.arrayContaining(ownRoles));
  });

  it('are written nowhere as a literal outside the contract and the fault and choice catalogues', () => {
    const literal = new RegExp(`(['"\`])(${operationIds.join('|')})\\1`, 'g');
    const code = (path: string) => withoutComments(readFileSync(join(ROOT, path), 'utf8'));
    const found = PRODUCT_FOLDERS.flatMap(productFiles).flatMap((path) =>
      [...code(path).matchAll(literal)].map((match) => `${path}: ${match[2]}`),
    );
    expect(found).toEqual([]);
  });
});
