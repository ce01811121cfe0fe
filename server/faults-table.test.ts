// server/FAULTS.md is generated from FAULTS; this keeps the two from drifting apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULT_CATALOGUE, FAULTS, faultsTable, INAPPLICABLE_FAULTS } from './index.ts';

describe('server/FAULTS.md', () => {
  const written = readFileSync(new URL('./FAULTS.md', import.meta.url), 'utf8');

  it('is what `npx tsx server/write-faults-table.ts` writes from FAULTS', () => {
    expect(written).toBe(faultsTable());
  });

  it('has one row per fault, naming its requirement', () => {
    for (const fault of FAULTS) expect(written).toContain(`| \`${fault.name}\` | \`${fault.requirement}\` (MUST`);
  });

  it('names every fault of the catalogue, each one this contract holds nothing for with why', () => {
    expect(FAULT_CATALOGUE.length).toBe(FAULTS.length + INAPPLICABLE_FAULTS.size);
    for (const { name } of FAULT_CATALOGUE) expect(written).toContain(`| \`${name}\` |`);
    const lines = written.split('\n');
    for (const [name, reason] of INAPPLICABLE_FAULTS)
      expect(lines.filter((l) => l.startsWith(`| \`${name}\` |`) && l.endsWith(`| ${reason} |`))).toHaveLength(1);
  });
});
