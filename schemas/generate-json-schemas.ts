// `npm run schemas:generate`: writes every component of openapi.yaml to schemas/json/ as a
// standalone JSON Schema 2020-12 file, and removes files of components that no longer exist.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { renderSchemaFiles } from './json-schemas.ts';

const openapiUrl = new URL('openapi.yaml', import.meta.url);
const outputUrl = new URL('json/', import.meta.url);

const files = renderSchemaFiles(readFileSync(openapiUrl, 'utf8'));
mkdirSync(outputUrl, { recursive: true });
for (const stale of readdirSync(outputUrl).filter((name) => name.endsWith('.schema.json') && !files.has(name))) {
  rmSync(new URL(stale, outputUrl));
}
for (const [name, text] of files) writeFileSync(new URL(name, outputUrl), text);
process.stdout.write(`wrote ${files.size} schemas to schemas/json/\n`);
