// Rewrites what the settings table writes: the settings of targets/target.schema.json and
// docs/settings.md (`npm run targets:settings`).
import { writeFileSync } from 'node:fs';
import { settingsMarkdown } from './settings.ts';
import { targetSchemaText } from './target-file.ts';

writeFileSync(new URL('./target.schema.json', import.meta.url), targetSchemaText());
writeFileSync(new URL('../docs/settings.md', import.meta.url), settingsMarkdown());
