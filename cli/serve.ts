// `las-conformance serve`: flags and environment to startReferenceServer, signals to close().
import { collect, wholeNumber } from './options.ts';
import { Option, type Command } from 'commander';
import { pino, type Level } from 'pino';
import { loadContract, recordKindLabel, smallestQuery, type Operation } from '../contract/index.ts';
import {
  CHOICES,
  DEFAULT_CREDENTIALS,
  DEFAULT_PAGE_LIMIT,
  FAULTS,
  InvalidServerOptionError,
  MAX_PAGE_LIMIT,
  REFERENCE_FIXTURES,
  SEED_SIZES,
  startReferenceServer,
  UnknownChoiceError,
  UnknownFaultError,
  InapplicableFaultError,
  InapplicableChoiceError,
  type StartedReferenceServer,
} from '../server/index.ts';

export const DEFAULT_SERVE_PORT = 4010;

interface ServeFlags {
  host: string;
  port: number;
  fault: string[];
  listFaults?: boolean;
  choice: string[];
  listChoices?: boolean;
  sessionToken?: string;
  pat?: string;
  forbiddenToken?: string;
  legacyHeader?: string;
  logLevel: Level | 'silent';
}

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'run the reference server: the three specified operations done right, with faults and choices to switch on',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', wholeNumber(0, 65535), DEFAULT_SERVE_PORT)
    .option(
      '--fault <name>',
      'switch a fault on (repeatable; see --list-faults); default $LAS_FAULTS, comma-separated',
      collect,
      [],
    )
    .option('--list-faults', 'print the faults that can be switched on, and exit')
    .option(
      '--choice <name>',
      'switch a legal choice on (repeatable; see --list-choices); default $LAS_CHOICES, comma-separated',
      collect,
      [],
    )
    .option('--list-choices', 'print the choices that can be switched on, and exit')
    .addOption(
      new Option('--session-token <token>', `session token (default ${DEFAULT_CREDENTIALS.sessionToken})`).env(
        'LAS_SESSION_TOKEN',
      ),
    )
    .addOption(new Option('--pat <token>', `personal access token (default ${DEFAULT_CREDENTIALS.pat})`).env('LAS_PAT'))
    .addOption(
      new Option(
        '--forbidden-token <token>',
        `authenticated but not permitted: answered 403 (default ${DEFAULT_CREDENTIALS.forbiddenToken})`,
      ).env('LAS_FORBIDDEN_TOKEN'),
    )
    .addOption(
      new Option('--legacy-header <name>', `legacy session header (default ${loadContract().legacyHeader})`).env(
        'LAS_LEGACY_HEADER',
      ),
    )
    .addOption(
      new Option('--log-level <level>', 'level of the JSON request log on stderr')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent'])
        .default('info'),
    )
    .action(async (flags: ServeFlags) => {
      if (flags.listFaults) {
        process.stdout.write(faultList());
        return;
      }
      if (flags.listChoices) {
        process.stdout.write(choiceList());
        return;
      }
      await runServe(flags);
    });
}

/** Names from a repeatable flag, else from a comma-separated variable: flags win over the environment. */
function namesOf(flagged: string[], variable: string): string[] {
  if (flagged.length > 0) return flagged;
  return (process.env[variable] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

async function runServe(flags: ServeFlags): Promise<void> {
  const logger = pino({ level: flags.logLevel, base: undefined }, pino.destination(2));
  const faults = namesOf(flags.fault, 'LAS_FAULTS');
  const choices = namesOf(flags.choice, 'LAS_CHOICES');
  let server: StartedReferenceServer;
  try {
    server = await startReferenceServer({
      host: flags.host,
      port: flags.port,
      faults,
      choices,
      sessionToken: flags.sessionToken,
      pat: flags.pat,
      forbiddenToken: flags.forbiddenToken,
      legacyHeader: flags.legacyHeader,
      logger,
    });
  } catch (error) {
    // runCommandLine() turns a thrown error into one line on stderr and the usage exit code, 2.
    if (
      error instanceof UnknownFaultError ||
      error instanceof InapplicableFaultError ||
      error instanceof UnknownChoiceError ||
      error instanceof InapplicableChoiceError ||
      error instanceof InvalidServerOptionError
    )
      throw error;
    throw new Error(
      `cannot listen on ${flags.host}:${flags.port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const stop = async () => {
    process.off('SIGTERM', stopOnSignal);
    process.off('SIGINT', stopOnSignal);
    await server.close();
    logger.info('reference server closed');
    process.exitCode = 0;
  };
  // A signal handler returns nothing: a failed close is logged and sets the exit code instead of
  // becoming an unhandled rejection.
  const stopOnSignal = (): void => {
    stop().catch((error: unknown) => {
      logger.error({ error: (error as Error).message }, 'closing the reference server failed');
      process.exitCode = 1;
    });
  };
  // Ready for signals before the address is printed: a script may stop the server as soon as it reads it.
  process.on('SIGTERM', stopOnSignal);
  process.on('SIGINT', stopOnSignal);
  process.stdout.write(`${server.baseUrl}\n${startBanner(server.baseUrl, flags, faults, choices)}`);
  logger.info({ baseUrl: server.baseUrl, faults, choices }, 'reference server listening');
}

/** A token the user supplied is never printed; the defaults are public test values. */
function shown(supplied: string | undefined, fallback: string, what: string): string {
  return supplied === undefined ? fallback : `<${what} supplied, not shown>`;
}

function startBanner(baseUrl: string, flags: ServeFlags, faults: string[], choices: string[]): string {
  const contract = loadContract();
  const session = shown(flags.sessionToken, DEFAULT_CREDENTIALS.sessionToken, 'session token');
  return [
    `las-conformance reference server: ${(contract.document.info as { title: string }).title} ${contract.version}`,
    ...contract.operations.map(
      (operation) => `  ${operation.method.padEnd(4)} ${baseUrl}${operation.pathTemplate}${exampleQuery(operation)}`,
    ),
    'credentials (any one):',
    `  Authorization: Bearer r:${session}`,
    `  Authorization: Bearer p:${shown(flags.pat, DEFAULT_CREDENTIALS.pat, 'personal access token')}`,
    `  ${flags.legacyHeader ?? contract.legacyHeader}: ${session}`,
    `  forbidden (403 in any scheme): ${shown(flags.forbiddenToken, DEFAULT_CREDENTIALS.forbiddenToken, 'forbidden token')}`,
    `records that exist: ${
      Object.entries(REFERENCE_FIXTURES)
        .map(([kind, id]) => `${recordKindLabel(kind)} ${id}`)
        .join(', ') || 'none (the contract names no kind)'
    }`,
    `seed per list: ${SEED_SIZES.join(', then ')} items for its filter values in turn; pages of ${DEFAULT_PAGE_LIMIT} by default, at most ${MAX_PAGE_LIMIT}`,
    `faults: ${faults.length > 0 ? faults.join(', ') : 'none'}`,
    `choices: ${choices.length > 0 ? choices.join(', ') : 'none'}`,
    'request log: JSON lines on stderr; Ctrl-C stops',
    '',
  ].join('\n');
}

/**
 * The smallest query the operation serves, naming the server's records, with its `?` (`?filter[type]=portal`), or
 * nothing.
 */
function exampleQuery(operation: Operation): string {
  const query = smallestQuery(operation.parameters, { records: REFERENCE_FIXTURES });
  return query === '' ? '' : `?${query}`;
}

/** One line per entry, in aligned columns. */
function columns(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return (
    rows
      .map((row) =>
        row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  '),
      )
      .join('\n') + '\n'
  );
}

function faultList(): string {
  return columns(FAULTS.map((f) => [f.name, f.requirement, f.description]));
}

function choiceList(): string {
  return columns(CHOICES.map((c) => [c.name, `section ${c.section}`, c.description]));
}
