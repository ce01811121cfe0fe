// Which credentials a request carries (section 5): carriesCredentials says whether readCredentials
// reads anything but none, for every shape of headers; headerValue finds a header whatever the case
// of its name, among the object's own members only.
import { expect, test } from 'vitest';
import { carriesCredentials, headerValue, readCredentials, DEFAULT_LEGACY_HEADER } from './credentials.ts';

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

const valueCases: {
  name: string;
  headers: Record<string, string | string[] | undefined>;
  value: string | undefined;
}[] = [
  { name: 'a lower-case member', headers: { 'content-type': 'text/plain' }, value: 'text/plain' },
  { name: 'a member in another case', headers: { 'Content-Type': 'text/plain' }, value: 'text/plain' },
  { name: 'a repeated header, joined', headers: { 'Content-Type': ['a', 'b'] }, value: 'a, b' },
  {
    name: 'an undefined member, then one in another case',
    headers: { 'CONTENT-TYPE': undefined, 'Content-Type': 'text/plain' },
    value: 'text/plain',
  },
  { name: 'no such member', headers: { accept: '*/*' }, value: undefined },
  {
    name: 'a member inherited, not its own',
    headers: Object.create({ 'Content-Type': 'text/plain' }) as Record<string, string>,
    value: undefined,
  },
];

for (const c of valueCases) {
  test(`headerValue, ${c.name}: ${c.value ?? 'absent'}`, () => {
    expect(headerValue(c.headers, 'content-type')).toBe(c.value);
  });
}
