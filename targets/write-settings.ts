// Rewrites what the settings table writes: the settings of targets/target.schema.json,
// docs/settings.md and the fixtures blocks of the shipped target files (`npm run targets:settings`).
import { readFileSync, writeFileSync } from 'node:fs';
import { referenceRecordId } from '../server/defaults.ts';
import { settingsMarkdown } from './settings.ts';
import { SHIPPED_TARGET_FILES, shippedTargetFileText, shippedTargetFileUrl } from './shipped-target-files.ts';
import { targetSchemaText } from './target-file.ts';

writeFileSync(new URL('./target.schema.json', import.meta.url), targetSchemaText());
writeFileSync(new URL('../docs/settings.md', import.meta.url), settingsMarkdown());
for (const file of SHIPPED_TARGET_FILES) {
  const url = shippedTargetFileUrl(file);
  writeFileSync(url, shippedTargetFileText(file, readFileSync(url, 'utf8'), referenceRecordId));
}
