// The command line: the only place that reads flags and the environment.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { contractSummary } from './contract-summary.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import { registerDiffCommand } from './diff.ts';
import { registerJudgeCommand } from './judge.ts';
import { registerProxyCommand } from './proxy.ts';
import { registerReplayCommand } from './replay.ts';
import { registerReportCommand } from './report.ts';
import { registerRunCommand } from './run.ts';
import { registerServeCommand } from './serve.ts';
import { registerVerifyCommand } from './verify.ts';


const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('las-conformance')
    .description('Conformance kit for the Learning and Assessment Service API v3')
    .version(packageJson.version)
    // A mistyped option gets its one error line; --help shows the options.
    .exitOverride();

  program
    .command('contract')
    .description('print a summary of the contract: operations and requirements by level')
    .action(() => {
      process.stdout.write(contractSummary());
    });

  registerProxyCommand(program);
  registerReportCommand(program);
  registerRunCommand(program);
  registerServeCommand(program);
  registerVerifyCommand(program);
  registerDiffCommand(program);
  registerJudgeCommand(program);
  registerReplayCommand(program);

  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
      return;
    }
    process.stderr.write(`las-conformance: ${(error as Error).message}\n`);
    process.exitCode = EXIT_USAGE;
  }
}

await main(process.argv);
