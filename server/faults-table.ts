// server/FAULTS.md and server/CHOICES.md, generated from FAULTS and CHOICES so the tables and the
// catalogues cannot drift apart.
import { loadContract } from '../contract/index.ts';
import { CHOICES, choicesConflict, compatibleChoiceSets } from './choices.ts';
import { FAULT_CATALOGUE, FAULTS, INAPPLICABLE_FAULTS } from './faults.ts';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The faults of the catalogue this contract holds nothing for (a list with a filter member it lacks, an operation
 * removed): each with why, so the table names every fault there is; `run --fault` refuses them in one line.
 */
function notApplying(): string[] {
  const rows = FAULT_CATALOGUE.filter((f) => INAPPLICABLE_FAULTS.has(f.name)).map(
    (f) => `| \`${f.name}\` | ${cell(f.description)} | ${cell(INAPPLICABLE_FAULTS.get(f.name)!)} |`,
  );
  if (rows.length === 0) return [];
  return [
    `${rows.length === 1 ? '1 fault of the catalogue does' : `${rows.length} faults of the catalogue do`} not apply to ` +
      'this contract; `run --fault` and `serve --fault` refuse them, and they apply again to a contract that holds',
    'what they change.',
    '',
    '| fault | what changes | why it does not apply here |',
    '|---|---|---|',
    ...rows,
    '',
  ];
}

export function faultsTable(): string {
  const contract = loadContract();
  const rows = FAULTS.map(
    (f) =>
      `| \`${f.name}\` | \`${f.requirement}\` (${contract.requirement(f.requirement).level}, section ${contract.requirement(f.requirement).section}) | ${cell(f.description)} | ${f.detectableInOneExchange ? 'yes' : 'no'} | ${f.foundBy === 'generation' ? 'generated inputs only' : 'the suite'} |`,
  );
  return [
    '# Reference server faults',
    '',
    'Generated from `FAULTS` in `server/faults.ts` by `npm run faults:table`; a test keeps',
    'this file in sync. Switch a fault on with `las-conformance serve --fault NAME` (repeatable) or',
    '`startReferenceServer({ faults: [NAME] })`. Each fault breaks the one MUST requirement named here;',
    'where it cannot help tripping another check, its description says so.',
    '',
    '"One exchange" is yes when a single request and its response, judged by the contract alone',
    '(`judgeExchange` of `contract/`, as the suite and the proxy judge it: no knowledge of which tokens are valid, no',
    "other page), report the requirement for the fault's `trigger`; the proxy can catch those faults.",
    '"Found by" is "generated inputs only" for a fault no fixed case reaches: `run --generate N` finds',
    'it with a fixed seed, the fixed suite alone does not (`suites/generative-fault-proof.test.ts`).',
    '',
    `${FAULTS.length} faults.`,
    '',
    '| fault | breaks | what changes | one exchange | found by |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    ...notApplying(),
  ].join('\n');
}

function requirementList(ids: string[]): string {
  const contract = loadContract();
  return ids.length === 0 ? 'none' : ids.map((id) => `\`${id}\` (${contract.requirement(id).level})`).join(', ');
}

export function choicesTable(): string {
  const rows = CHOICES.map((c) => {
    const conflicts = CHOICES.filter((other) => choicesConflict(c.name, other.name)).map(
      (other) => `\`${other.name}\``,
    );
    const what = c.combines
      ? `${cell(c.description)} Combines ${c.combines.map((n) => `\`${n}\``).join(', ')}.`
      : cell(c.description);
    return `| \`${c.name}\` | ${c.section} | ${cell(c.openPlace)} | ${what} | ${requirementList(c.warns)} | ${conflicts.length > 0 ? conflicts.join(', ') : 'none'} |`;
  });
  const sets = compatibleChoiceSets().map((set, index) => `${index + 1}. ${set.map((n) => `\`${n}\``).join(', ')}`);
  return [
    '# Reference server choices',
    '',
    'Generated from `CHOICES` in `server/choices.ts` by `npm run faults:table` (which writes',
    '`server/FAULTS.md` too); a test keeps this file in sync. Switch a choice on with',
    '`las-conformance serve --choice NAME` (repeatable, or `LAS_CHOICES`), `las-conformance run --reference-server --choice NAME`',
    'for the embedded server, or `startReferenceServer({ choices: [NAME] })`.',
    '',
    'A choice is the mirror of a fault: another legal reading of a place the specification leaves',
    'open. The suite passes the reference server with each choice on, and with every compatible',
    'choice on at once, and the validating proxy in front of it writes no MUST finding about the',
    'service (`suites/choice-proof.test.ts`). "May warn" lists the SHOULD and INFO requirements a',
    'choice may draw a warning or an observation from; it fails none.',
    '',
    `${CHOICES.length} choices.`,
    '',
    '| choice | section | open place | what changes | may warn | cannot be on with |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    'Every choice is on in one of these runs, each of choices that can all be on at once:',
    '',
    ...sets,
    '',
  ].join('\n');
}
