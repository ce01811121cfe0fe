import { describe, expect, it } from 'vitest';
import { selectionOf } from './conformance-reporter.ts';

const WHOLE_CONFIG = { grep: /.*/, grepInvert: null, shard: null };
/** What the run command starts Playwright with when --requirement or --grep selected cases: a --grep of case titles. */
const RUN_COMMAND_ARGV = [
  'node',
  'cli.js',
  'test',
  '--config',
  'playwright.config.ts',
  '--grep',
  '^(A|B) ',
  '--grep-invert',
  'C',
];

describe('selectionOf', () => {
  const cases = [
    {
      name: "a --requirement selection is the description's requirements, not the pattern on the command line",
      run: { readOnly: false, requirements: ['AUTH-401-MALFORMED'] },
      argv: RUN_COMMAND_ARGV,
      expected: { whole: false, requirements: ['AUTH-401-MALFORMED'], readOnly: false },
    },
    {
      name: "the run command's --grep is the description's, whatever the command line holds",
      run: { readOnly: true, grep: 'AUTH-401' },
      argv: RUN_COMMAND_ARGV,
      expected: { whole: false, grep: 'AUTH-401', readOnly: true },
    },
    {
      name: "a suite started without the run command is selected by Playwright's command line",
      run: { readOnly: false },
      argv: ['node', 'cli.js', 'test', '--grep', 'AUTH', 'suites/filter.spec.ts'],
      expected: { whole: false, grep: 'AUTH', filters: ['suites/filter.spec.ts'], readOnly: false },
    },
    {
      name: 'nothing selected is the whole suite',
      run: { readOnly: false },
      argv: ['node', 'cli.js', 'test'],
      expected: { whole: true, readOnly: false },
    },
  ];
  for (const { name, run, argv, expected } of cases) {
    it(name, () => {
      expect(selectionOf(WHOLE_CONFIG, run, argv)).toEqual(expected);
    });
  }
});
