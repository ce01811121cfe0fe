// `npm run bench`: runs every bench/*.bench.ts entry (or those named on the command line) in
// one process. Each entry prints its own ratios against a baseline measured in the same run.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const entries = readdirSync(dir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();

for (const file of entries) {
  process.stdout.write(`\n== ${file.replace(/\.bench\.ts$/, '')}\n`);
  const entry = (await import(new URL(file, import.meta.url).href)) as { default: () => Promise<void> };
  await entry.default();
}
