// Rewrites the settings of targets/target.schema.json from the settings table: `npm run targets:schema`.
import { writeFileSync } from 'node:fs';
import { targetSchemaText } from './target.ts';

writeFileSync(new URL('./target.schema.json', import.meta.url), targetSchemaText());
