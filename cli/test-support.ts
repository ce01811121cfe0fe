// The command line as the tests run it: `las-conformance ARGS` in a child process, as an operator
// or a script would, its output kept as it comes; or, for a command line that ends in a usage
// error, in this process.
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { RUN_ENVIRONMENT } from '../suites/settings.ts';
import { askedFirst } from '../contract/test-support.ts';
import { runCommandLine } from './command-line.ts';
import { targetVariables } from '../targets/settings.ts';
import { sizeText } from '../targets/whole-file.ts';
import { cpuSecondsOf } from '../test-support/cpu-time.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What a test of `run` needs of the contract: a run asks a list before the suite (the preflight, or the probe of the
 * embedded server), or with none a create, and stops with neither. `itWith(runnable, RUN_NEEDS)` skips such a test,
 * saying so.
 */
export const runnable = askedFirst;
export const RUN_NEEDS = 'list or create, one of which a run asks before its suite';
const BIN = fileURLToPath(new URL('../bin/las-conformance.js', import.meta.url));

export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything written to stdout so far. */
  stdout: () => string;
  stderr: () => string;
  /** The exit code (null when a signal ended the process), once its output is all read. */
  exit: Promise<number | null>;
}

/** Starts `las-conformance ARGS` in `cwd` (default: the repository root); `env` is its whole environment. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = process.env, cwd = ROOT): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * What a GitHub Actions job sets that makes `run` annotate the job and write its step summary: a
 * test that runs in such a job must not write into it (a test that means to sets them itself).
 */
const JOB_REPORTING = ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY'];

/** The environment of the test process without any LAS_* setting or job reporting, plus `env`. */
export function hermeticEnvironment(env: Record<string, string> = {}): Record<string, string> {
  const ours = new Set<string>([...targetVariables(), ...Object.values(RUN_ENVIRONMENT), ...JOB_REPORTING]);
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !ours.has(entry[0]) && !entry[0].startsWith('LAS_'),
    ),
  );
  return { ...base, ...env };
}

/** Runs `las-conformance ARGS` to completion, in a hermetic environment plus `env`, in `cwd` (default: the root). */
export async function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliResult> {
  const cli = spawnCli(args, hermeticEnvironment(env), cwd);
  const code = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/**
 * How long a process may spend no CPU time at all: one waiting on a pipe never ends either. Where there is no /proc to
 * read its CPU time from, a limit on the clock.
 */
const IDLE_LIMIT_MS = 15_000;

/**
 * Runs `las-conformance ARGS` in a real process, in a hermetic environment plus `env`, killed when it has not ended
 * within `cpuSeconds` of CPU time, or has spent none for IDLE_LIMIT_MS (its code then `late`): a file read without
 * bounds never ends. CPU time, which other work on the machine does not stretch as it stretches time on the clock.
 */
export async function runCliWithin(
  args: string[],
  cpuSeconds: number,
  env: Record<string, string> = {},
): Promise<{ code: number | null | 'late'; stderr: string }> {
  const cli = spawnCli(args, hermeticEnvironment(env));
  const ended = await Promise.race([cli.exit, lateness(cli, cpuSeconds)]);
  if (ended === 'late') cli.child.kill('SIGKILL');
  return { code: ended, stderr: cli.stderr() };
}

/** `late`, once `cli` has spent `cpuSeconds` of CPU time, or none for IDLE_LIMIT_MS, without ending. */
function lateness(cli: CliProcess, cpuSeconds: number): Promise<'late'> {
  let spent = 0;
  let lastSpentAt = Date.now();
  return new Promise((resolve) => {
    const check = setInterval(() => {
      const cpu = cpuSecondsOf(cli.child.pid!);
      if (cpu !== undefined && cpu > spent) [spent, lastSpentAt] = [cpu, Date.now()];
      if (spent >= cpuSeconds || Date.now() - lastSpentAt >= IDLE_LIMIT_MS) resolve('late');
    }, 100);
    const stop = () => clearInterval(check);
    cli.exit.then(stop, stop);
  });
}

/**
 * The ways a file the kit reads whole is spoiled, each with how it spoils a path and what the refusal says: a link
 * to /dev/zero, a pipe, and a file one byte past `maxBytes`.
 */
export function spoiledFiles(maxBytes: number): [how: string, spoil: (path: string) => void, refusal: RegExp][] {
  return [
    ['linked to /dev/zero', (path) => symlinkSync('/dev/zero', path), /is a character device, not a regular file/],
    ['a pipe', (path) => execFileSync('mkfifo', [path]), /is a pipe, not a regular file/],
    // Sparse: past the size without taking the disk.
    [
      'past its size',
      (path) => truncateSync((writeFileSync(path, ''), path), maxBytes + 1),
      new RegExp(`holds more than ${sizeText(maxBytes)}`),
    ],
  ];
}

/**
 * Runs `las-conformance ARGS` in this process, as `runCli` runs it in a child: from the repository
 * root, with the hermetic environment plus `env` as process.env, its writes to stdout and stderr
 * kept (commander's error lines included) and its exit code read from process.exitCode. All of
 * that is put back as it was before this returns.
 *
 * A child process costs about half a CPU-second before it does anything (tsx's loader, module
 * loading), and most usage errors take far less. Only for command lines that end by themselves,
 * such as usage errors: never for a command that serves, which would keep serving in the test
 * process, nor to prove what a real process exits with.
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const saved = { env: process.env, exitCode: process.exitCode, cwd: process.cwd() };
  const stdout = captureWrites(process.stdout);
  const stderr = captureWrites(process.stderr);
  try {
    process.env = hermeticEnvironment(env);
    process.exitCode = undefined;
    process.chdir(ROOT);
    await runCommandLine([process.execPath, BIN, ...args]);
    return { code: Number(process.exitCode ?? 0), stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    process.env = saved.env;
    stdout.restore();
    stderr.restore();
  }
}

/** Keeps what is written to `stream` instead of writing it, until restore(). */
function captureWrites(stream: NodeJS.WriteStream): { text: () => string; restore: () => void } {
  const ownWrite = Object.getOwnPropertyDescriptor(stream, 'write');
  let text = '';
  stream.write = (chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | WriteDone, done?: WriteDone) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
    if (callback) process.nextTick(callback);
    return true;
  };
  const restore = () => {
    if (ownWrite) Object.defineProperty(stream, 'write', ownWrite);
    else delete (stream as { write?: unknown }).write;
  };
  return { text: () => text, restore };
}

type WriteDone = (error?: Error | null) => void;
