// Regenerates server/FAULTS.md and server/CHOICES.md from the catalogues: `npm run faults:table`.
import { writeFileSync } from 'node:fs';
import { choicesTable, faultsTable } from './faults-table.ts';

writeFileSync(new URL('./FAULTS.md', import.meta.url), faultsTable());
writeFileSync(new URL('./CHOICES.md', import.meta.url), choicesTable());
