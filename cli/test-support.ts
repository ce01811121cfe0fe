// The command line as the tests run it: `las-conformance ARGS` in a child process, as an operator
// or a script would, its output kept as it comes.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { RUN_ENVIRONMENT } from '../suites/settings.ts';
import { TARGET_ENVIRONMENT } from '../targets/target.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/las-conformance.js', import.meta.url));

export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything written to stdout so far. */
  stdout: () => string;
  stderr: () => string;
  /** The exit code (null when a signal ended the process), once its output is all read. */
  exit: Promise<number | null>;
}

/** Starts `las-conformance ARGS` in the repository root; `env` is its whole environment (default: this process's). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = process.env): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** The first line the process wrote to `stream`, or how it ended before writing one. */
export async function firstLine(cli: CliProcess, stream: 'stdout' | 'stderr' = 'stdout'): Promise<string> {
  const exited = cli.exit.then((code) => `exited with ${code}`);
  for (;;) {
    const text = cli[stream]();
    if (text.includes('\n')) return text.split('\n')[0];
    const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20))]);
    if (typeof outcome === 'string') return outcome;
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of the test process without any LAS_* setting, plus `env`. */
export function hermeticEnvironment(env: Record<string, string> = {}): Record<string, string> {
  const ours = new Set<string>([...Object.values(TARGET_ENVIRONMENT), ...Object.values(RUN_ENVIRONMENT)]);
  const base = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !ours.has(entry[0]) && !entry[0].startsWith('LAS_')));
  return { ...base, ...env };
}

/** Runs `las-conformance ARGS` to completion, in a hermetic environment plus `env`. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const cli = spawnCli(args, hermeticEnvironment(env));
  const code = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
