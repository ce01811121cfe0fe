// Paths a request target can only carry as raw bytes (Node's own client refuses to send them):
// characters outside ASCII that a server may fold or normalize into an operation's path; and the
// operating guide's table of refusal codes, kept whole.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { nonCanonicalPath } from './admission.ts';
import { REFUSAL_STATUSES } from './errors.ts';

const contract = loadContract();

const variants = [
  { name: 'a dotless i', path: '/v3/attr\u0131bute-configs' },
  { name: 'the Kelvin sign for a K', path: '/v3/highlights/\u212A' },
  { name: 'a fullwidth digit in the root', path: '/v\uFF13/highlights' },
  { name: 'a raw space', path: '/v3/highlights /x' },
];

for (const c of variants) {
  test(`a path with ${c.name} is not canonical`, () => {
    expect(nonCanonicalPath(contract, c.path)).toMatch(/outside ASCII/);
  });
}

test('the operations\' own paths are canonical', () => {
  for (const operation of contract.operations) expect(nonCanonicalPath(contract, `${contract.basePath}${operation.pathTemplate}`)).toBeNull();
});

test('the operating guide lists every code enforce mode refuses with', () => {
  const guide = readFileSync(new URL('../docs/operating-the-proxy.md', import.meta.url), 'utf8');
  const missing = Object.keys(REFUSAL_STATUSES).filter((code) => !guide.includes(`| \`${code}\` | ${REFUSAL_STATUSES[code]} |`));
  expect(missing).toEqual([]);
});
