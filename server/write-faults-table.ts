// Regenerates server/FAULTS.md from the fault catalogue: `npx tsx server/write-faults-table.ts`.
import { writeFileSync } from 'node:fs';
import { faultsTable } from './faults-table.ts';

writeFileSync(new URL('./FAULTS.md', import.meta.url), faultsTable());
