// The subcommands of `las-conformance`, each registered by its own module. A command line that
// names a command imports only that command's module: several compile the whole contract, which
// `verify --help` or a usage error of `proxy` never needs.
import type { Command } from 'commander';

type Register = (program: Command) => void;

function registerContractCommand(program: Command): void {
  program
    .command('contract')
    .description('print a summary of the contract: operations and requirements by level')
    .action(async () => {
      const { contractSummary } = await import('./contract-summary.ts');
      process.stdout.write(contractSummary());
    });
}

/** Each subcommand's module, in the order the help lists them. */
export const COMMANDS: { name: string; load: () => Promise<Register> }[] = [
  { name: 'contract', load: async () => registerContractCommand },
  { name: 'proxy', load: async () => (await import('./proxy.ts')).registerProxyCommand },
  { name: 'report', load: async () => (await import('./report.ts')).registerReportCommand },
  { name: 'run', load: async () => (await import('./run.ts')).registerRunCommand },
  { name: 'serve', load: async () => (await import('./serve.ts')).registerServeCommand },
  { name: 'verify', load: async () => (await import('./verify.ts')).registerVerifyCommand },
  { name: 'diff', load: async () => (await import('./diff.ts')).registerDiffCommand },
  { name: 'judge', load: async () => (await import('./judge.ts')).registerJudgeCommand },
  { name: 'replay', load: async () => (await import('./replay.ts')).registerReplayCommand },
];

/** The commands `argv` can reach: the one it names, or every one (for the overall help, or to name the unknown one). */
export function commandsFor(argv: string[]): typeof COMMANDS {
  const named = argv.slice(2).find((arg) => !arg.startsWith('-'));
  const command = COMMANDS.find((c) => c.name === named);
  return command ? [command] : COMMANDS;
}
