// What a finding carries so a person can reproduce it: the exchange (method, path, status) and a
// curl line with the credentials as variables, never their values.
import { TARGET_ENVIRONMENT } from '../targets/target.ts';
import type { OutgoingRequest } from './client.ts';
import type { Scrub } from '../run-protocol/secrets.ts';

const BASE_URL_VARIABLE = `$${TARGET_ENVIRONMENT.baseUrl}`;
const PLACEHOLDER = /^\$LAS_[A-Z_]+/;

/** A curl command reproducing the request; run it after exporting the LAS_* variables. */
export function curlLine(request: OutgoingRequest, scrub: Scrub): string {
  const parts = ['curl', '-i', '-g', '-X', request.method, doubleQuoted(`${BASE_URL_VARIABLE}${request.path}`)];
  for (const [name, value] of Object.entries(request.headers))
    parts.push('-H', doubleQuoted(scrub(`${name}: ${value}`)));
  if (request.bodyText !== undefined) parts.push('--data-binary', singleQuoted(scrub(request.bodyText)));
  return parts.join(' ');
}

/** Double quotes keep `$LAS_…` placeholders live for the shell and escape everything else. */
function doubleQuoted(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const placeholder = text[i] === '$' ? PLACEHOLDER.exec(text.slice(i)) : null;
    if (placeholder) {
      out += placeholder[0];
      i += placeholder[0].length - 1;
    } else {
      out += /["\\`$]/.test(text[i]) ? `\\${text[i]}` : text[i];
    }
  }
  return `"${out}"`;
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
