// Playwright's APIRequestContext reads a whole answer into memory before handing it over, so a
// target that answers gigabytes would exhaust a worker. Each worker's request context therefore
// goes through this small CONNECT proxy on 127.0.0.1: it relays bytes unchanged (TLS included)
// and cuts a tunnel once the answer passes the cap. Playwright opens one tunnel per request, so
// what happened to the last tunnel is what happened to the last request.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** Room for the status line and headers on top of the body cap. */
export const HEADER_ALLOWANCE_BYTES = 64 * 1024;

export type TunnelProblem =
  { kind: 'too-large'; limitBytes: number } | { kind: 'unreachable'; address: string; code: string };

export interface BodyGuard {
  /** `http://127.0.0.1:PORT`, for Playwright's `proxy.server`. */
  readonly proxyUrl: string;
  /** A position in the sequence of tunnels; pass it to problemSince. */
  mark(): number;
  /** The problem of the first troubled tunnel opened after `mark`, if any. */
  problemSince(mark: number): TunnelProblem | undefined;
  close(): Promise<void>;
}

export async function startBodyGuard(maxBodyBytes: number): Promise<BodyGuard> {
  const limitBytes = maxBodyBytes + HEADER_ALLOWANCE_BYTES;
  const problems = new Map<number, TunnelProblem>();
  const sockets = new Set<Socket>();
  let tunnels = 0;

  const server: Server = createServer((_request, response) => {
    response.writeHead(405, { connection: 'close' }).end();
  });
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const tunnel = ++tunnels;
    relay(tunnel, String(request.url ?? ''), client, head);
  });

  function relay(tunnel: number, address: string, client: Socket, head: Buffer): void {
    const { host, port } = splitAddress(address);
    const upstream = connect({ host, port });
    sockets.add(client).add(upstream);
    let received = 0;
    let connected = false;
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream);
    });
    upstream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        problems.set(tunnel, { kind: 'too-large', limitBytes: maxBodyBytes });
        closeBoth();
        return;
      }
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // No CONNECT answer on failure: a proxy's own status would read as the target's answer.
      if (!connected) problems.set(tunnel, { kind: 'unreachable', address, code: error.code ?? error.message });
      closeBoth();
    });
    upstream.on('end', () => client.end());
    upstream.on('close', closeBoth);
    client.on('error', closeBoth);
    client.on('close', closeBoth);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    mark: () => tunnels,
    problemSince(mark) {
      for (let tunnel = mark + 1; tunnel <= tunnels; tunnel++) {
        const problem = problems.get(tunnel);
        if (problem) return problem;
      }
      return undefined;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address);
  return match ? { host: match[1], port: Number(match[2]) } : { host: address, port: 80 };
}
