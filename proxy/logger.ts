// Structured logs (pino, JSON lines). The proxy never logs a header or a body; the redaction
// list is the second line of defence should a future log call pass one.
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { CREDENTIAL_HEADERS, DEFAULT_LEGACY_HEADER } from '../contract/index.ts';

export function credentialLogPaths(legacyHeader: string): string[] {
  const legacy = legacyHeader.toLowerCase();
  return [...CREDENTIAL_HEADERS, legacy].flatMap((name) => [
    `headers["${name}"]`,
    `req.headers["${name}"]`,
    `request.headers["${name}"]`,
    `*.headers["${name}"]`,
  ]);
}

export function createProxyLogger(
  destination: DestinationStream,
  level: Level | 'silent' = 'info',
  legacyHeader = DEFAULT_LEGACY_HEADER,
): Logger {
  return pino(
    { name: 'las-conformance-proxy', level, redact: { paths: credentialLogPaths(legacyHeader), censor: '[redacted]' } },
    destination,
  );
}
