// docs/requirements.md is generated from schemas/requirements.yaml; this keeps the two in step.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadContract, type Requirement } from '../contract/index.ts';
import { requirementsMarkdown } from './requirements-doc.ts';

const requirement = (fields: Partial<Requirement> & { basis?: string }): Requirement => ({
  id: 'EX-META-PAGES',
  level: 'MUST',
  section: '4.1',
  text: 'meta.pages is ceil(total / limit).',
  ...fields,
});

describe('docs/requirements.md', () => {
  it('is what the catalogue renders to (npm run docs:requirements rewrites it)', () => {
    const written = readFileSync(new URL('../docs/requirements.md', import.meta.url), 'utf8');
    expect(written).toBe(requirementsMarkdown(loadContract().requirements));
  });

  it('has a row for every requirement of the catalogue', () => {
    const markdown = requirementsMarkdown(loadContract().requirements);
    for (const r of loadContract().requirements)
      expect(markdown).toContain(`| \`${r.id}\` | ${r.level} | ${r.section} |`);
  });

  it('shows the basis column only when the catalogue gives a basis', () => {
    expect(requirementsMarkdown([requirement({})])).not.toContain('Basis');
    const withBasis = requirementsMarkdown([
      requirement({ basis: 'Section 4.1: `meta` members | all integers' }),
      requirement({ id: 'EX-PAGE-WALK' }),
    ]);
    expect(withBasis).toContain('| Id | Level | Section | Requirement | Checked by | Basis in the specification |');
    expect(withBasis).toContain(
      '| `EX-META-PAGES` | MUST | 4.1 | meta.pages is ceil(total / limit). | suite, proxy | Section 4.1: `meta` members \\| all integers |',
    );
    expect(withBasis).toContain(
      '| `EX-PAGE-WALK` | MUST | 4.1 | meta.pages is ceil(total / limit). | suite, proxy |  |',
    );
  });

  it("says what a run reports for a requirement not exercised, and whether that is the target's choice", () => {
    const markdown = requirementsMarkdown([
      requirement({ notExercised: { reason: 'no answer was 202', byTargetChoice: true } }),
      requirement({ id: 'EX-PAGE-WALK', notExercised: { reason: 'no walk ended' } }),
    ]);
    expect(markdown).toContain('| Id | Level | Section | Requirement | Checked by | Not exercised when |');
    expect(markdown).toContain(
      "| `EX-META-PAGES` | MUST | 4.1 | meta.pages is ceil(total / limit). | suite, proxy | no answer was 202 (the target's choice: the run stays complete) |",
    );
    expect(markdown).toContain(
      '| `EX-PAGE-WALK` | MUST | 4.1 | meta.pages is ceil(total / limit). | suite, proxy | no walk ended |',
    );
  });
});
