// The command table: each entry's module registers the command it is listed under, and a command
// line naming a command reaches that command alone.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from './commands.ts';

const argvOf = (...args: string[]) => ['node', 'las-conformance', ...args];

describe('the command table', () => {
  for (const entry of COMMANDS) {
    it(`${entry.name}: its module registers the command ${entry.name} and no other`, async () => {
      const program = new Command('las-conformance');
      (await entry.load())(program);
      expect(program.commands.map((c) => c.name())).toEqual([entry.name]);
    });
  }

  it('a command line naming a command reaches only that command, its options after it', () => {
    expect(commandsFor(argvOf('verify', 'conformance.json')).map((c) => c.name)).toEqual(['verify']);
    expect(commandsFor(argvOf('proxy', '--upstream', 'http://127.0.0.1:9/v3')).map((c) => c.name)).toEqual(['proxy']);
  });

  it('the overall help, the version and an unknown command reach every command', () => {
    const all = COMMANDS.map((c) => c.name);
    for (const args of [[], ['--help'], ['--version'], ['help', 'run'], ['no-such-command']])
      expect(
        commandsFor(argvOf(...args)).map((c) => c.name),
        args.join(' '),
      ).toEqual(all);
  });
});
