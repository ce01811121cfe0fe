// What the request log may show of a request target: the path, and query values unless they
// look like credentials (a credential-like name, or a value equal to a token the server knows).
import { pino, type Logger } from 'pino';
import { maskCredentialQuery } from '../contract/index.ts';

export { MASK } from '../contract/index.ts';

/**
 * The target as the request log may show it: the kit's one masking function, plus any value equal to a token the server
 * knows.
 */
export function maskedTarget(target: string, tokens: ReadonlySet<string>): string {
  return maskCredentialQuery(target, tokens);
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
