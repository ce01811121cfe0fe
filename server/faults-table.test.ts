// server/FAULTS.md is generated from FAULTS; this keeps the two from drifting apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULTS, faultsTable } from './index.ts';

describe('server/FAULTS.md', () => {
  const written = readFileSync(new URL('./FAULTS.md', import.meta.url), 'utf8');

  it('is what `npx tsx server/write-faults-table.ts` writes from FAULTS', () => {
    expect(written).toBe(faultsTable());
  });

  it('has one row per fault, naming its requirement', () => {
    for (const fault of FAULTS) expect(written).toContain(`| \`${fault.name}\` | \`${fault.requirement}\` (MUST`);
  });
});
