// The tests follow the contract: only `knows the specified operations` (contract/contract.test.ts)
// names the operations the specification specifies. Every other test file takes what it needs
// from the contract by what it has (contract/test-support.ts), so that a revision of the
// specification adding or removing an operation changes data only, no test. What an operation's
// removal would take with it (its operationId, its path, the requirements only it has:
// test-support/contract-copy.ts) appears in no literal of another test file; comments may name
// anything.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { Contract, SCHEMA_DIR } from './contract.ts';
import { escapeRegExp } from './validate.ts';
import { contractCopy, specifiedPaths } from '../test-support/contract-copy.ts';
import { proofAddition } from '../test-support/grown-contract.ts';

const ROOT = new URL('../', import.meta.url);
/** The one test file allowed to name them: it holds the test that pins the specified operations. */
const PINNING_FILE = 'contract/contract.test.ts';
/**
 * Test files that still name them, each to follow the contract in turn: this list only shrinks (a file on it that
 * names nothing fails the test until it is taken off).
 */
const STILL_NAMING: string[] = [];
/**
 * The paths the proof's addition makes up (suites/new-operation.yaml), named so that no revision of the specification
 * takes them: the proofs build that contract themselves and name its operations whatever schemas/ holds, also once
 * `npm run contract:change -- add` has written them there.
 */
const PROOF_PATHS = new Set(Object.keys(proofAddition().paths ?? {}));

const contractIn = (directory: string) =>
  new Contract(
    readFileSync(join(directory, 'openapi.yaml'), 'utf8'),
    readFileSync(join(directory, 'requirements.yaml'), 'utf8'),
  );

/** What removing the path item `path` takes out of the contract, as patterns a literal must not match. */
function namesGoingWith(shipped: Contract, path: string): { name: string; pattern: RegExp }[] {
  const directory = contractCopy({ removedPaths: [path] });
  try {
    const kept = new Set(contractIn(directory).requirements.map((r) => r.id));
    return [
      { name: path, pattern: new RegExp(`(?<![\\w-])${escapeRegExp(path)}(?![\\w-])`) },
      ...shipped.operations
        .filter((o) => o.pathTemplate === path)
        .map((o) => ({ name: o.operationId, pattern: new RegExp(`\\b${o.operationId}\\b`) })),
      ...shipped.requirements
        .filter((r) => !kept.has(r.id))
        .map((r) => ({ name: r.id, pattern: new RegExp(`(?<![\\w-])${escapeRegExp(r.id)}(?![\\w-])`) })),
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The text of every string and template literal of a TypeScript file. */
function literalsOf(text: string, fileName: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('the test files', () => {
  it(`name no specified operation, its path or a requirement only it has, but in ${PINNING_FILE}`, async () => {
    const shipped = contractIn(SCHEMA_DIR);
    const names = specifiedPaths()
      .filter((path) => !PROOF_PATHS.has(path))
      .flatMap((path) => namesGoingWith(shipped, path));
    const files = await glob('**/*.test.ts', { cwd: ROOT, ignore: ['node_modules/**', PINNING_FILE] });
    const naming = files.sort().flatMap((file) => {
      const literals = literalsOf(readFileSync(new URL(file, ROOT), 'utf8'), file);
      const named = names.filter(({ pattern }) => literals.some((literal) => pattern.test(literal)));
      return named.length === 0 ? [] : [{ file, named: named.map((n) => n.name).join(', ') }];
    });
    expect(
      naming.filter(({ file }) => !STILL_NAMING.includes(file)).map(({ file, named }) => `${file}: ${named}`),
    ).toEqual([]);
    expect(naming.map(({ file }) => file).filter((file) => STILL_NAMING.includes(file))).toEqual(STILL_NAMING);
  });
});
