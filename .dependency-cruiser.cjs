// The import rules of the kit, checked by dependency-cruiser (`architecture.test.ts` in `npm test`,
// or `npx depcruise .`). The arrows between parts are not written here: they are read
// from the drawing in ARCHITECTURE.md, so the drawing is what the imports are checked against.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const DRAWING_FILE = 'ARCHITECTURE.md';
/** The fenced block of ARCHITECTURE.md that holds the arrows. */
const DRAWING_BLOCK = /```arrows\n([\s\S]*?)```/;
/**
 * Tests, the helpers only tests use, the fixtures they build records from and the proofs' harness: free to use any
 * part.
 */
const TEST_CODE = '(\\.test\\.ts|(^|/)test-support(\\.ts|/.+)|^suites/proof(-runs|-reporter|-seeds|\\.config)\\.ts)$';
/** The source of the kit: what the rules read (not dependencies, not written reports). */
const SOURCE = '^([a-z-]+/.+|[^/]+)\\.(ts|js|cjs|mjs)$';
const WRITTEN_REPORTS = '^reports/(latest|[0-9]{4}-[^/]+)/';

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A part or target as a path pattern: a folder is everything under it, a file is itself. */
function pathPattern(name) {
  if (name === 'everything') return SOURCE;
  return /\.[a-z]+$/.test(name) ? `^${escapeRegExp(name)}$` : `^${escapeRegExp(name)}/`;
}

/** One drawn arrow line: `part → target, target (types), ...` or `part → nothing`. */
function arrowsOfLine(line, number) {
  const match = /^(\S+)\s+→\s+(.+)$/.exec(line.trim());
  if (!match)
    throw new Error(`${DRAWING_FILE}: line ${number} of the arrows block is not "part → target, ...": ${line}`);
  const [, part, targets] = match;
  if (targets.trim() === 'nothing') return { part, targets: [] };
  return {
    part,
    targets: targets.split(',').map((target) => {
      const [, name, types] = /^\s*(\S+)(\s+\(types\))?\s*$/.exec(target) ?? [];
      if (!name)
        throw new Error(
          `${DRAWING_FILE}: line ${number} of the arrows block names a target that is not one word: ${target}`,
        );
      return { name, typesOnly: Boolean(types) };
    }),
  };
}

function drawnArrows(root) {
  const text = readFileSync(join(root, DRAWING_FILE), 'utf8');
  const block = DRAWING_BLOCK.exec(text);
  if (!block) throw new Error(`${DRAWING_FILE} has no \`\`\`arrows block: the import rules are read from it`);
  return block[1]
    .split('\n')
    .map((line, index) => [line, index + 1])
    .filter(([line]) => line.trim() !== '')
    .map(([line, number]) => arrowsOfLine(line, number));
}

/** What each part may import: its own files, and each target it points at. */
function allowedOf(arrows) {
  const productCode = { pathNot: TEST_CODE };
  const rules = [{ comment: 'tests and what only tests use may use any part', from: { path: TEST_CODE }, to: {} }];
  for (const { part, targets } of arrows) {
    const from = { ...productCode, path: pathPattern(part) };
    rules.push({ comment: `${part} uses its own files`, from, to: { path: pathPattern(part) } });
    for (const { name, typesOnly } of targets) {
      rules.push({
        comment: `${part} → ${name}${typesOnly ? ' (types)' : ''}`,
        from,
        to: { path: pathPattern(name), ...(typesOnly ? { dependencyTypes: ['type-only'] } : {}) },
      });
    }
  }
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import circle: move the function to the file it belongs to',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-test-code-in-product',
      severity: 'error',
      comment: 'product code imports no test or test helper',
      from: { pathNot: `${TEST_CODE}|^bench/` },
      to: { path: TEST_CODE },
    },
  ],
  allowed: allowedOf(drawnArrows(__dirname)),
  allowedSeverity: 'error',
  options: {
    includeOnly: SOURCE,
    exclude: { path: `node_modules|${WRITTEN_REPORTS}` },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    // Packages named by a subpath their `exports` map (stream-json's streamers, tsx's API) resolve as Node resolves
    // them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
