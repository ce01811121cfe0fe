// One table of exit codes: cli/exit-codes.ts, and README's copy of it, row for row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from './exit-codes.ts';

describe('exit codes', () => {
  it('README lists each code with the meaning cli/exit-codes.ts gives it', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = [...readme.matchAll(/^\| `(\d+)` \| (.+) \|$/gm)].map(([, code, meaning]) => ({ code: Number(code), meaning }));
    expect(rows).toEqual(EXIT_CODES);
  });

  it('codes are distinct', () => {
    expect(new Set(EXIT_CODES.map((c) => c.code)).size).toBe(EXIT_CODES.length);
  });
});
