// The servers a bench measures ("contenders") each run in a child process of their own, forked
// from the bench file itself with `--contender KIND ARGUMENT`, so the CPU each one spends is its
// own: the bench reads process.cpuUsage over IPC before and after a run.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Contender {
  child: ChildProcess;
  url: string;
  /** The admin server of a validating proxy (a balancer in front health-checks it). */
  adminUrl?: string;
}

const CONTENDER_FLAG = '--contender';
const CPU_REQUEST = 'cpu';
const SETTLED_CPU_REQUEST = 'settled-cpu';

/** Forks the bench file at `moduleUrl` as a contender of `kind`; resolves with the URL it serves. */
export function spawnContender(moduleUrl: string, kind: string, argument = ''): Promise<Contender> {
  const child = fork(fileURLToPath(moduleUrl), [CONTENDER_FLAG, kind, argument], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, ...(message as { url: string; adminUrl?: string }) }));
    child.once('exit', (code) => reject(new Error(`contender ${kind} exited with ${code}`)));
  });
}

/**
 * CPU time (user + system, µs) the contender's process has spent so far; with `settled`, read
 * once it has finished the work the load left behind (a validating proxy's judging backlog), so
 * the load's exchanges are paid for in full.
 */
export function cpuMicros(contender: Contender, { settled = false } = {}): Promise<number> {
  return new Promise((resolve) => {
    contender.child.once('message', (usage) =>
      resolve((usage as NodeJS.CpuUsage).user + (usage as NodeJS.CpuUsage).system),
    );
    contender.child.send(settled ? SETTLED_CPU_REQUEST : CPU_REQUEST);
  });
}

/** A contender started: the URL it serves, and (if it defers work) how to wait for that work. */
export interface StartedContender {
  url: string;
  adminUrl?: string;
  settled?: () => Promise<void>;
}

/**
 * In a process forked by spawnContender: starts the contender its arguments name, hands its URL
 * to the bench and answers CPU readings from then on. In the bench's own process: does nothing.
 */
export async function serveIfContender(
  start: (kind: string, argument: string) => Promise<string | StartedContender>,
): Promise<void> {
  const at = process.argv.indexOf(CONTENDER_FLAG);
  if (at < 0) return;
  const started = await start(process.argv[at + 1], process.argv[at + 2]);
  const { url, adminUrl, settled } =
    typeof started === 'string' ? { url: started, adminUrl: undefined, settled: undefined } : started;
  process.on('message', (message) => {
    if (message === CPU_REQUEST) process.send!(process.cpuUsage());
    if (message === SETTLED_CPU_REQUEST)
      void (settled?.() ?? Promise.resolve()).then(() => process.send!(process.cpuUsage()));
  });
  process.send!(adminUrl === undefined ? { url } : { url, adminUrl });
}
