// The guides as a reader follows them: every relative link leads to a file of the repository, and
// docs/reference.md names every option of `run` that is not a target setting (those are listed in
// docs/settings.md, which `npm run targets:settings` writes from the settings table).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../cli/command-line.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GUIDES = [
  'README.md',
  'ARCHITECTURE.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The relative targets of a Markdown file's links, without their anchors. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z]+:|^#/.test(target))
    .map((target) => target.split('#')[0]);
}

describe('the guides', () => {
  for (const guide of GUIDES) {
    it(`${guide}: every relative link leads to a file or folder of the repository`, () => {
      const links = relativeLinks(readFileSync(join(ROOT, guide), 'utf8'));
      expect(links.filter((target) => !existsSync(join(ROOT, dirname(guide), target)))).toEqual([]);
    });
  }

  it('docs/reference.md names every option of run that is no target setting', async () => {
    const program = await buildProgram(['node', 'las-conformance', 'run']);
    const run = program.commands.find((command) => command.name() === 'run')!;
    const settings = readFileSync(join(ROOT, 'docs', 'settings.md'), 'utf8');
    const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
    const ownOptions = run.options
      .map((option) => option.long!)
      .filter((flag) => flag !== '--help' && !settings.includes(`\`${flag}`));
    expect(ownOptions.length).toBeGreaterThan(10);
    expect(ownOptions.filter((flag) => !new RegExp(`${flag}(?![\\w-])`).test(reference))).toEqual([]);
  });
});
