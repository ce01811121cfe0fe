// One table of exit codes: cli/exit-codes.ts, and the reference's copy of it (docs/reference.md), row for row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markdownTableRows } from '../test-support/markdown.ts';
import { EXIT_CODES } from './exit-codes.ts';

describe('exit codes', () => {
  it('docs/reference.md lists each code with the meaning cli/exit-codes.ts gives it', () => {
    const reference = readFileSync(new URL('../docs/reference.md', import.meta.url), 'utf8');
    const rows = markdownTableRows(reference).flatMap(([code, meaning, ...more]) =>
      more.length === 0 && /^`\d+`$/.test(code) ? [{ code: Number(code.slice(1, -1)), meaning }] : [],
    );
    expect(rows).toEqual(EXIT_CODES);
  });

  it('codes are distinct', () => {
    expect(new Set(EXIT_CODES.map((c) => c.code)).size).toBe(EXIT_CODES.length);
  });
});
