import { describe, expect, test } from 'vitest';
import { maskCredentialQuery, maskedTarget } from './mask.ts';

const cases: { path: string; masked: string }[] = [
  { path: '/v3/notification-groups', masked: '/v3/notification-groups' },
  { path: '/v3/x?filter[type]=portal', masked: '/v3/x?filter[type]=portal' },
  { path: '/v3/x?token=abc', masked: '/v3/x?token=***' },
  { path: '/v3/x?Access_Token=abc&page[limit]=1', masked: '/v3/x?Access_Token=***&page[limit]=1' },
  { path: '/v3/x?API_KEY=abc', masked: '/v3/x?API_KEY=***' },
  { path: '/v3/x?sessionId=abc', masked: '/v3/x?sessionId=***' },
  { path: '/v3/x?user[password]=abc', masked: '/v3/x?user[password]=***' },
  { path: '/v3/x?client_secret=abc', masked: '/v3/x?client_secret=***' },
  { path: '/v3/x?authorization=abc', masked: '/v3/x?authorization=***' },
  { path: '/v3/x?%74oken=abc', masked: '/v3/x?%74oken=***' },
  { path: '/v3/x?a=1&key=2&b=3', masked: '/v3/x?a=1&key=***&b=3' },
  { path: '/v3/x?token', masked: '/v3/x?token' },
  ...['jwt', 'sig', 'signature', 'X-Amz-Signature', 'X-Amz-Credential', 'pat', 'pwd', 'passwd', 'pass', 'credential', 'code', 'bearer', 'sid', 'otp', 'ticket', 'client_assertion', 'assertion', 'SAMLResponse', 'pw', 'passcode', 'privatekey', 'hmac', 'xsrf', 'totp', 'pin'].map((name) => ({ path: `/v3/x?${name}=abc&page[limit]=1`, masked: `/v3/x?${name}=***&page[limit]=1` })),
  { path: '/v3/x?a=1;token=abc;b=2', masked: '/v3/x?a=1;token=***;b=2' },
  { path: '/v3/x?to%6Ben=abc', masked: '/v3/x?to%6Ben=***' },
  { path: '/v3/x?path=a&monkey=b&pattern=c', masked: '/v3/x?path=a&monkey=b&pattern=c' },
];

describe('maskCredentialQuery', () => {
  for (const c of cases) test(`${c.path} → ${c.masked}`, () => expect(maskCredentialQuery(c.path)).toBe(c.masked));
});

describe('maskedTarget: the exchange\'s own tokens, repeated in the query under any name', () => {
  const cases = [
    { headers: { authorization: 'Bearer r:own-session-token' }, path: '/v3/x?q=own-session-token&r=r%3Aown-session-token', masked: '/v3/x?q=***&r=***' },
    { headers: { 'x-svc-session-token': 'legacy-token-value' }, path: '/v3/x?q=legacy-token-value&page[limit]=1', masked: '/v3/x?q=***&page[limit]=1' },
    { headers: {}, path: '/v3/x?q=own-session-token', masked: '/v3/x?q=own-session-token' },
  ];
  for (const c of cases) test(`${JSON.stringify(c.headers)} ${c.path} → ${c.masked}`, () => expect(maskedTarget(c.path, c.headers, 'X-Svc-Session-Token')).toBe(c.masked));
});
