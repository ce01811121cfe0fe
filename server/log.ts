// What the request log may show of a request target: the path, and query values unless they
// look like credentials (a credential-like name, or a value equal to a token the server knows).
import { pino, type Logger } from 'pino';

const CREDENTIAL_NAME = /token|key|secret|passw|auth|session|pat$|sig|credential/i;
export const MASK = '***';

export function maskedTarget(target: string, tokens: ReadonlySet<string>): string {
  const question = target.indexOf('?');
  if (question < 0) return target;
  const pairs = target.slice(question + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    if (equals < 0) return pair;
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    return CREDENTIAL_NAME.test(safeDecode(name)) || tokens.has(safeDecode(value)) ? `${name}=${MASK}` : pair;
  });
  return `${target.slice(0, question)}?${pairs.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
