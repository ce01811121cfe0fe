// Paths a request target can only carry as raw bytes (Node's own client refuses to send them):
// characters outside ASCII that a server may fold or normalize into an operation's path; plain
// paths, which skip the checks for encodings and segments but not those for case variants and
// extensions; which method override is named; and the operating guide's table of refusal codes,
// kept whole.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { markdownTableRows } from '../test-support/markdown.ts';
import { admissionFindings, nonCanonicalPath } from './admission.ts';
import { REFUSAL_STATUSES } from './errors.ts';

const contract = loadContract();

const operationPath = contract.operations[0].pathTemplate;
/** The operation's path with its first i dotless (a segment of one when it has none): it folds back to the path. */
const dotless = operationPath.includes('i') ? operationPath.replace('i', '\u0131') : `${operationPath}/\u0131`;
const variants = [
  { name: 'a dotless i', path: `${contract.basePath}${dotless}` },
  { name: 'the Kelvin sign for a K', path: `${contract.basePath}${operationPath}/\u212A` },
  { name: 'a fullwidth digit in the root', path: `${contract.basePath.replace(/\d/, '\uFF13')}${operationPath}` },
  { name: 'a raw space', path: `${contract.basePath}${operationPath} /x` },
];

for (const c of variants) {
  test(`a path with ${c.name} is not canonical`, () => {
    expect(nonCanonicalPath(contract, c.path)).toMatch(/outside ASCII/);
  });
}

test("the operations' own paths are canonical", () => {
  for (const operation of contract.operations)
    expect(nonCanonicalPath(contract, `${contract.basePath}${operation.pathTemplate}`)).toBeNull();
});

describe('paths of printable ASCII without %, \\, ; or empty and dot segments', () => {
  const base = contract.basePath;
  const template = contract.operations[0].pathTemplate;
  const cases: { path: string; reading: string | null }[] = [
    { path: `${base}${template}`, reading: null },
    { path: `${base}${template}/`, reading: null },
    { path: '/elsewhere/x.json', reading: null },
    { path: `${base.toUpperCase()}${template}`, reading: `the path's root is a case variant of ${base}` },
    { path: `${base}${template.toUpperCase()}`, reading: `the path is a case variant of ${base}${template}` },
    { path: `${base}${template.toUpperCase()}/`, reading: `the path is a case variant of ${base}${template}` },
    {
      path: `${base}${template}.json`,
      reading: `the path is ${base}${template} with an extension, which some servers strip`,
    },
  ];
  for (const c of cases)
    test(`${c.path}: ${c.reading ?? 'canonical'}`, () => expect(nonCanonicalPath(contract, c.path)).toBe(c.reading));
});

test('a method override in the query is the one named, over one in a header', () => {
  const findings = admissionFindings(contract, {
    method: 'POST',
    path: `${contract.basePath}/x?_method=GET&_METHOD=PUT`,
    rawHeaders: ['X-HTTP-Method-Override', 'GET'],
    operation: null,
  });
  expect(findings.map((f) => f.message)).toEqual([
    'the query parameter _method asks to read this POST as another method',
  ]);
});

test('the operating guide lists every code enforce mode refuses with', () => {
  const guide = readFileSync(new URL('../docs/operating-the-proxy.md', import.meta.url), 'utf8');
  const rows = markdownTableRows(guide);
  const missing = Object.keys(REFUSAL_STATUSES).filter(
    (code) => !rows.some(([name, status]) => name === `\`${code}\`` && status === String(REFUSAL_STATUSES[code])),
  );
  expect(missing).toEqual([]);
});
