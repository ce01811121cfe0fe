// The command line: the only place that reads flags and the environment.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { printableLines } from '../reports/terminal-text.ts';
import { commandsFor } from './commands.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export async function buildProgram(argv: string[]): Promise<Command> {
  const program = new Command('las-conformance')
    .description('Conformance kit for the Learning and Assessment Service API v3')
    .version(packageJson.version)
    // A mistyped option gets its one error line; --help shows the options.
    .exitOverride();
  for (const register of await Promise.all(commandsFor(argv).map((c) => c.load()))) register(program);
  return program;
}

/**
 * Runs one command line: its exit code goes to process.exitCode, never to process.exit() (a command that serves is
 * still serving when this returns).
 */
export async function runCommandLine(argv: string[]): Promise<void> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
      return;
    }
    // A message may quote a file it read (a record's JSON, a key): shown, never obeyed by the terminal.
    process.stderr.write(`las-conformance: ${printableLines((error as Error).message)}\n`);
    process.exitCode = EXIT_USAGE;
  }
}
