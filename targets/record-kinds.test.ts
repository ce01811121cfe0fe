// Every kind of record the contract names (`x-record` on a request member) is one a target can
// supply and the reference server holds, by one rule from its name and with no code of its own:
// its flag, variable and target-file key are read, and the reference server holds one.
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { createWithRecord, itWith } from '../contract/test-support.ts';
import { loadContract, recordKinds } from '../contract/index.ts';
import { registerRunCommand } from '../cli/run.ts';
import { REFERENCE_FIXTURES } from '../server/index.ts';
import { parseTargetFile } from './target-file.ts';
import { settingsFromEnvironment } from './target-environment.ts';
import { recordSetting, settingRows } from './settings.ts';

const kinds = recordKinds(loadContract().operations);
const program = new Command();
registerRunCommand(program);
const runOptions = program.commands.find((command) => command.name() === 'run')!.options;

describe('the kinds of record the contract names', () => {
  itWith(createWithRecord, 'create naming a record')('there is one for each create naming a record', (create) => {
    expect(kinds).toEqual(expect.arrayContaining(recordKinds([create])));
    expect(kinds.length).toBeGreaterThan(0);
  });

  test('each has its row of the settings table, named by the rule from its name (another kind adds its own)', () => {
    const named = settingRows().filter((row) => row.record);
    expect(named.map((row) => row.key)).toEqual(kinds);
    for (const row of named) expect(row).toEqual(recordSetting(row.key));
  });

  for (const kind of kinds) {
    test(`${kind}: a flag, a variable and a target-file key give it, and the reference server holds one`, () => {
      const row = settingRows().find((r) => r.key === kind)!;
      expect(runOptions.map((option) => option.long)).toContain(row.flag);
      expect(settingsFromEnvironment({ [row.variable]: 'from-variable' }).fixtures).toEqual({
        [kind]: 'from-variable',
      });
      expect(parseTargetFile(`fixtures:\n  ${kind}: from-file\n`, 't.yaml').fixtures).toEqual({ [kind]: 'from-file' });
      expect(REFERENCE_FIXTURES[kind]).toMatch(/^[0-9a-f]{24}$/);
    });
  }

  test('the reference server holds a different record of each kind', () => {
    expect(new Set(Object.values(REFERENCE_FIXTURES)).size).toBe(kinds.length);
    expect(Object.keys(REFERENCE_FIXTURES)).toEqual(kinds);
  });
});
