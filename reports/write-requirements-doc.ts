// Regenerates docs/requirements.md from the requirement catalogue: `npm run docs:requirements`.
import { writeFileSync } from 'node:fs';
import { loadContract } from '../contract/index.ts';
import { requirementsMarkdown } from './requirements-doc.ts';

writeFileSync(new URL('../docs/requirements.md', import.meta.url), requirementsMarkdown(loadContract().requirements));
