// The proxy masks credentials in what it writes with the kit's one masking function, and masks
// the exchange's own credentials wherever the client repeats them in the query.
import type { IncomingHttpHeaders } from 'node:http';
import { maskCredentialQuery, readCredentials } from '../contract/index.ts';

export { maskCredentialQuery, MASK } from '../contract/index.ts';

/** The tokens an exchange carries (Authorization, the legacy header), as masked query values: whole and without their scheme prefix. */
export function carriedCredentials(headers: IncomingHttpHeaders, legacyHeader: string): Set<string> {
  const values = new Set<string>();
  const reading = readCredentials(headers, legacyHeader);
  if (reading.kind === 'credential') values.add(reading.token);
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && /^bearer /i.test(authorization)) values.add(authorization.slice(7).trim());
  const legacy = headers[legacyHeader.toLowerCase()];
  if (typeof legacy === 'string' && legacy.trim() !== '') values.add(legacy.trim());
  return values;
}

/** A request target as it may be written: credential-like query values and the exchange's own tokens masked. */
export function maskedTarget(path: string, headers: IncomingHttpHeaders, legacyHeader: string): string {
  return maskCredentialQuery(path, carriedCredentials(headers, legacyHeader));
}
