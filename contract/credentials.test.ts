// Which credentials a request carries (section 5): carriesCredentials says whether readCredentials
// reads anything but none, for every shape of headers.
import { expect, test } from 'vitest';
import { carriesCredentials, readCredentials, DEFAULT_LEGACY_HEADER } from './credentials.ts';

const shapes: { name: string; headers: Record<string, string | string[] | undefined> }[] = [
  { name: 'no headers', headers: {} },
  { name: 'a session token', headers: { authorization: 'Bearer r:token' } },
  { name: 'a malformed Authorization', headers: { authorization: 'Basic dXNlcjpwYXNz' } },
  { name: 'an empty Authorization', headers: { authorization: '' } },
  { name: 'Authorization under a capitalized name', headers: { Authorization: 'Bearer p:token' } },
  { name: 'the legacy header', headers: { [DEFAULT_LEGACY_HEADER.toLowerCase()]: 'token' } },
  { name: 'an empty legacy header', headers: { [DEFAULT_LEGACY_HEADER]: ' ' } },
  { name: 'an absent Authorization member', headers: { authorization: undefined } },
  { name: 'other headers only', headers: { 'content-type': 'application/json', cookie: 'a=1' } },
];

for (const shape of shapes) {
  test(`${shape.name}: carries credentials exactly when they read as something`, () => {
    expect(carriesCredentials(shape.headers)).toBe(readCredentials(shape.headers).kind !== 'none');
  });
}
