// No line of the kit's TypeScript or JavaScript is wider than Prettier's printWidth, except by the
// literals Prettier keeps whole: a string, template or regular expression literal is not counted.
// Prettier wraps code but not comments, so this catches a long comment too.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { glob } from 'tinyglobby';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('.', import.meta.url);
const { printWidth } = JSON.parse(readFileSync(new URL('.prettierrc.json', ROOT), 'utf8')) as { printWidth: number };
/** What is not the kit's source: installed packages and what runs write. */
const NOT_SOURCE = [
  'node_modules/**',
  'reports/latest/**',
  'reports/[0-9][0-9][0-9][0-9]-*/**',
  'test-results/**',
  'playwright-report/**',
  'blob-report/**',
  '.tmp/**',
  '.git/**',
];

/** What Prettier never breaks: a template literal is kept whole, its substitutions too. */
const LITERAL_KINDS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateExpression,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/** For each character of the text, whether it belongs to a literal. */
function literalMask(text: string, fileName: string): Uint8Array {
  const mask = new Uint8Array(text.length);
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (LITERAL_KINDS.has(node.kind)) mask.fill(1, node.getStart(source), node.end);
    else node.forEachChild(visit);
  };
  visit(source);
  return mask;
}

/** The lines wider than printWidth once their literals are left out, as `line N: W characters`. */
function overwideLines(text: string, fileName: string): string[] {
  const mask = literalMask(text, fileName);
  const found: string[] = [];
  let start = 0;
  for (const [index, line] of text.split('\n').entries()) {
    if (line.length > printWidth) {
      const width = line.length - mask.subarray(start, start + line.length).reduce((sum, bit) => sum + bit, 0);
      if (width > printWidth) found.push(`line ${index + 1}: ${width} characters`);
    }
    start += line.length + 1;
  }
  return found;
}

describe('the width of a source line', () => {
  const long = 'x'.repeat(printWidth);
  it.each([
    { what: 'a long comment', text: `// ${long}\n`, found: [`line 1: ${printWidth + 3} characters`] },
    { what: 'a long line of code', text: `const a = [${long}];\n`, found: [`line 1: ${printWidth + 13} characters`] },
    { what: 'a long string', text: `const a = '${long}';\n`, found: [] },
    { what: 'a long template', text: `const a = \`\${a}${long}\`;\n`, found: [] },
    { what: 'a long substitution in a template', text: `const a = \`\${[${long}]}\`;\n`, found: [] },
    { what: 'a long regular expression', text: `const a = /${long}/u;\n`, found: [] },
  ])('counts $what outside its literals', ({ text, found }) => {
    expect(overwideLines(text, 'case.ts')).toEqual(found);
  });

  it(`is at most ${printWidth} characters outside literals in every TypeScript and JavaScript file`, async () => {
    const files = await glob(['**/*.{ts,js,cjs,mjs}'], { cwd: fileURLToPath(ROOT), ignore: NOT_SOURCE, dot: true });
    const overwide = files.flatMap((file) =>
      overwideLines(readFileSync(new URL(file, ROOT), 'utf8'), file).map((line) => `${file} ${line}`),
    );
    expect(overwide).toEqual([]);
  });
});
