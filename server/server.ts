// Building the reference server (unstarted) and starting it on a host and port.
import { once } from 'node:events';
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { loadContract, MEDIA_TYPE } from '../contract/index.ts';
import { DEFAULT_CREDENTIALS, DEFAULT_MAX_BODY_BYTES } from './defaults.ts';
import { choiceHooks } from './choices.ts';
import { faultHooks } from './faults.ts';
import { composeHooks } from './hooks.ts';
import { silentLogger } from './log.ts';
import { createRequestHandler } from './pipeline.ts';
import { CONDITION_CODES, conditionProblem, errorObject } from './problems.ts';

export interface ReferenceServerOptions {
  /** Default DEFAULT_CREDENTIALS.sessionToken. */
  sessionToken?: string;
  /** Default DEFAULT_CREDENTIALS.pat. */
  pat?: string;
  /** Authenticated but not permitted: answered 403 in every scheme. Default DEFAULT_CREDENTIALS.forbiddenToken. */
  forbiddenToken?: string;
  /** Default the contract's legacy header, X-Svc-Session-Token. */
  legacyHeader?: string;
  /** Names from FAULTS; an unknown name throws UnknownFaultError. */
  faults?: string[];
  /** Names from CHOICES, legal readings of open places; an unknown name throws UnknownChoiceError. */
  choices?: string[];
  /** Bodies above this many bytes are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Default: silent. */
  logger?: Logger;
}

export interface StartedReferenceServer {
  /** e.g. http://127.0.0.1:4010/v3 */
  baseUrl: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export class InvalidServerOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidServerOptionError';
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkedOptions(options: ReferenceServerOptions) {
  const tokens = {
    sessionToken: options.sessionToken ?? DEFAULT_CREDENTIALS.sessionToken,
    pat: options.pat ?? DEFAULT_CREDENTIALS.pat,
    forbiddenToken: options.forbiddenToken ?? DEFAULT_CREDENTIALS.forbiddenToken,
  };
  for (const [name, token] of Object.entries(tokens)) {
    // A token with spaces or commas could never be read back from a header (docs/certification.md §2).
    if (token === '' || /[\s,]/.test(token))
      throw new InvalidServerOptionError(`${name} must be a non-empty token without spaces or commas`);
  }
  if (new Set(Object.values(tokens)).size !== 3)
    throw new InvalidServerOptionError('the session token, personal access token and forbidden token must differ');
  const legacyHeader = options.legacyHeader ?? loadContract().legacyHeader;
  if (!HEADER_NAME.test(legacyHeader) || legacyHeader.toLowerCase() === 'authorization')
    throw new InvalidServerOptionError(`legacy header "${legacyHeader}" is not a usable header name`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new InvalidServerOptionError('maxBodyBytes must be a positive integer');
  return {
    tokens,
    legacyHeader,
    maxBodyBytes,
    hooks: composeHooks([...choiceHooks(options.choices ?? []), ...faultHooks(options.faults ?? [])]),
    logger: options.logger ?? silentLogger(),
  };
}

/** An HTTP message the parser rejected never reaches the pipeline; it still gets a JSON:API answer. */
function rawErrorResponse(status: number, detail: string): string {
  const body = JSON.stringify({
    errors: [errorObject(status, conditionProblem(status, CONDITION_CODES.badHttp, detail))],
  });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function clientErrorStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

function answerClientError(error: Error & { code?: string }, socket: Socket, logger: Logger): void {
  logger.info({ code: error.code }, 'unparsable request');
  const message = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || message?.headersSent) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus(error.code);
  socket.end(
    rawErrorResponse(
      status,
      status === 400 ? 'the request is not a well-formed HTTP/1.1 message' : (STATUS_CODES[status] ?? 'error'),
    ),
  );
}

/** The reference server, built and not listening. Throws on invalid options or an unknown fault or choice. */
export function createReferenceServer(options: ReferenceServerOptions = {}): Server {
  const config = checkedOptions(options);
  const handler = createRequestHandler(config);
  const server = createServer(handler);
  // The pipeline sends 100 Continue itself, once credentials, route and declared size are acceptable.
  server.on('checkContinue', handler);
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) =>
    answerClientError(error, socket, config.logger),
  );
  return server;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** The host a local client reaches the server at: an unspecified address is reached on loopback. */
function reachableHost(address: AddressInfo): string {
  if (address.family === 'IPv6') return address.address === '::' ? '[::1]' : `[${address.address}]`;
  return address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
}

/** Starts the reference server; port 0 takes any free port. */
export async function startReferenceServer(
  options: ReferenceServerOptions & { host?: string; port?: number } = {},
): Promise<StartedReferenceServer> {
  const { host = '127.0.0.1', port = 0, ...serverOptions } = options;
  const server = createReferenceServer(serverOptions);
  // once() rejects with the error should the port be taken: listening and failing to, in one await.
  await once(server.listen(port, host), 'listening');
  const address = server.address() as AddressInfo;
  const hostInUrl = reachableHost(address);
  return {
    baseUrl: `http://${hostInUrl}:${address.port}${loadContract().basePath}`,
    port: address.port,
    server,
    close: () => closeServer(server),
  };
}
