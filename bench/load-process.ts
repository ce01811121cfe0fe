// A load generator in a process of its own: the attack of bench/proxy-attack.bench.ts runs here,
// as an attacker's own machine would, so that the client measuring conforming latency in the
// bench's process never shares its event loop with the clients firing the attack. The bench forks
// this file once and sends it one load at a time; it answers with the requests autocannon
// completed.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface Load {
  url: string;
  method: string;
  /** The clients, as a balancer in front names them (X-Forwarded-For): each gets its own connections. */
  clients: string[];
  connectionsPerClient: number;
  /** Requests a second from each client; as fast as answered when absent. */
  ratePerClient?: number;
  seconds: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface LoadMessage extends Omit<Load, 'body'> {
  body: string;
}

type Autocannon = (options: {
  url: string;
  method: string;
  connections: number;
  overallRate?: number;
  duration: number;
  headers: Record<string, string>;
  body: Buffer;
}) => Promise<{ requests: { total: number } }>;

export interface LoadProcess {
  /** Fires the load and resolves with the number of requests answered. */
  fire(load: Load): Promise<number>;
  stop(): void;
}

/** Forks the load process; resolves once it listens for loads. */
export async function startLoadProcess(): Promise<LoadProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--load-process'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the load process exited with ${code}`)));
  });
  // An attacker's machine takes no core from the proxy's: on one machine, the lowest priority comes nearest.
  setPriority(child.pid!, constants.priority.PRIORITY_LOW);
  let pending: { resolve: (answered: number) => void; reject: (error: Error) => void } | undefined;
  child.on('message', (answered) => pending?.resolve(answered as number));
  child.on('exit', (code) => pending?.reject(new Error(`the load process exited with ${code}`)));
  return {
    fire: (load) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        child.send({ ...load, body: load.body.toString('base64') } satisfies LoadMessage);
      }),
    stop: () => child.kill(),
  };
}

if (process.argv.includes('--load-process')) {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  process.on('message', (message) => {
    const load = message as LoadMessage;
    const body = Buffer.from(load.body, 'base64');
    const fired = load.clients.map((client) =>
      autocannon({
        url: load.url,
        method: load.method,
        connections: load.connectionsPerClient,
        overallRate: load.ratePerClient,
        duration: load.seconds,
        headers: { ...load.headers, 'x-forwarded-for': client },
        body,
      }),
    );
    void Promise.all(fired).then((results) =>
      process.send!(results.reduce((answered, result) => answered + result.requests.total, 0)),
    );
  });
  process.send!('ready');
}
