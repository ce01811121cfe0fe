// The import rules of ARCHITECTURE.md ("The arrows, checked"), run by dependency-cruiser with the
// kit's own configuration: over the kit, and over a small tree that breaks them, so a
// configuration that could pass anything would fail here.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = dirname(fileURLToPath(import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** Each broken rule as one line a person can act on: the rule, the import, the circle if any. */
function violationLines(result: ICruiseResult): string[] {
  return (result.summary.violations ?? []).map(
    (v) =>
      `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((step) => step.name).join(' → ')})` : ''}`,
  );
}

async function cruiseFrom(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { output } = await cruise(['.'], { ...options, baseDir, validate: true });
  return violationLines(output as ICruiseResult);
}

describe('the import rules', () => {
  const broken = mkdtempSync(join(tmpdir(), 'las-arrows-'));
  afterAll(() => rmSync(broken, { recursive: true, force: true }));

  it('hold for every import of the kit, with no import circle', async () => {
    expect(await cruiseFrom(ROOT)).toEqual([]);
  });

  it('refuse an arrow the drawing lacks, a value where only types are drawn, a circle and product code importing a test helper', async () => {
    const files: Record<string, string> = {
      'contract/reads-flags.ts': "import { flag } from '../cli/flags.ts';\nexport const read = flag;\n",
      'cli/flags.ts': 'export const flag = 1;\n',
      'reports/record.ts': 'export const buildRecord = () => 1;\n',
      'suites/builds-records.ts':
        "import { buildRecord } from '../reports/record.ts';\nexport const built = buildRecord;\n",
      'server/first.ts': "import { second } from './second.ts';\nexport const first = () => second;\n",
      'server/second.ts': "import { first } from './first.ts';\nexport const second = () => first;\n",
      'server/test-support.ts': 'export const helper = 1;\n',
      'server/uses-helper.ts': "import { helper } from './test-support.ts';\nexport const used = helper;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(broken, path)), { recursive: true });
      writeFileSync(join(broken, path), text);
    }
    expect((await cruiseFrom(broken)).sort()).toEqual([
      'no-circular: server/first.ts → server/second.ts (circle: server/second.ts → server/first.ts)',
      'no-test-code-in-product: server/uses-helper.ts → server/test-support.ts',
      'not-in-allowed: contract/reads-flags.ts → cli/flags.ts',
      'not-in-allowed: suites/builds-records.ts → reports/record.ts',
    ]);
  });

  it.each([
    { drawing: 'The parts, drawn as a picture only.\n', says: /ARCHITECTURE\.md has no ```arrows block/ },
    {
      drawing: '```arrows\ncontract → nothing\nsuites -> contract\n```\n',
      says: /ARCHITECTURE\.md: line 2 of the arrows block is not "part → target, \.\.\.": suites -> contract/,
    },
  ])('are not read from a drawing they cannot parse: $says', ({ drawing, says }) => {
    const copy = mkdtempSync(join(tmpdir(), 'las-drawing-'));
    try {
      copyFileSync(CONFIG, join(copy, '.dependency-cruiser.cjs'));
      writeFileSync(join(copy, 'ARCHITECTURE.md'), drawing);
      expect((): unknown => createRequire(import.meta.url)(join(copy, '.dependency-cruiser.cjs'))).toThrow(says);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
