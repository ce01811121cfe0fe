// server/FAULTS.md, generated from FAULTS so the table and the catalogue cannot drift apart.
import { loadContract } from '../contract/index.ts';
import { FAULTS } from './faults.ts';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function faultsTable(): string {
  const contract = loadContract();
  const rows = FAULTS.map((f) => `| \`${f.name}\` | \`${f.requirement}\` (${contract.requirement(f.requirement).level}, section ${contract.requirement(f.requirement).section}) | ${cell(f.description)} | ${f.detectableInOneExchange ? 'yes' : 'no'} |`);
  return [
    '# Reference server faults',
    '',
    'Generated from `FAULTS` in `server/faults.ts` by `npx tsx server/write-faults-table.ts`; a test keeps',
    'this file in sync. Switch a fault on with `las-conformance serve --fault NAME` (repeatable) or',
    '`startReferenceServer({ faults: [NAME] })`. Each fault breaks the one MUST requirement named here;',
    'where it cannot help tripping another check, its description says so.',
    '',
    '"One exchange" is yes when a single request and its response, judged by the contract alone',
    '(`judgeExchange` of `contract/`, as the suite and the proxy judge it: no knowledge of which tokens are valid, no',
    "other page), report the requirement for the fault's `trigger`; the proxy can catch those faults.",
    '',
    `${FAULTS.length} faults.`,
    '',
    '| fault | breaks | what changes | one exchange |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
