// The kit's one credential policy: names, query values, header values, bodies of every shape.
import { describe, expect, test } from 'vitest';
import {
  bodySecrets,
  headerSecrets,
  maskCredentialQuery,
  maskedBody,
  maskedHeaderValue,
  maskedText,
  maskedRequestTarget as maskedTarget,
  querySecrets,
} from './credential-policy.ts';

const cases: { path: string; masked: string }[] = [
  { path: '/v3/x/y-z', masked: '/v3/x/y-z' },
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
  ...[
    'jwt',
    'sig',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'pat',
    'pwd',
    'passwd',
    'pass',
    'credential',
    'code',
    'bearer',
    'sid',
    'otp',
    'ticket',
    'client_assertion',
    'assertion',
    'SAMLResponse',
    'pw',
    'passcode',
    'privatekey',
    'hmac',
    'xsrf',
    'totp',
    'pin',
  ].map((name) => ({ path: `/v3/x?${name}=abc&page[limit]=1`, masked: `/v3/x?${name}=***&page[limit]=1` })),
  { path: '/v3/x?a=1;token=abc;b=2', masked: '/v3/x?a=1;token=***;b=2' },
  { path: '/v3/x?to%6Ben=abc', masked: '/v3/x?to%6Ben=***' },
  { path: '/v3/x?path=a&monkey=b&pattern=c', masked: '/v3/x?path=a&monkey=b&pattern=c' },
];

describe('maskCredentialQuery', () => {
  for (const c of cases) test(`${c.path} → ${c.masked}`, () => expect(maskCredentialQuery(c.path)).toBe(c.masked));
});

describe("maskedTarget: the exchange's own tokens, repeated in the query under any name", () => {
  const cases = [
    {
      headers: { authorization: 'Bearer r:own-session-token' },
      path: '/v3/x?q=own-session-token&r=r%3Aown-session-token',
      masked: '/v3/x?q=***&r=***',
    },
    {
      headers: { 'x-svc-session-token': 'legacy-token-value' },
      path: '/v3/x?q=legacy-token-value&page[limit]=1',
      masked: '/v3/x?q=***&page[limit]=1',
    },
    { headers: {}, path: '/v3/x?q=own-session-token', masked: '/v3/x?q=own-session-token' },
  ];
  for (const c of cases)
    test(`${JSON.stringify(c.headers)} ${c.path} → ${c.masked}`, () =>
      expect(maskedTarget(c.path, c.headers, 'X-Svc-Session-Token')).toBe(c.masked));
});

const LEGACY = 'X-Svc-Session-Token';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl';

describe('maskedHeaderValue: every Authorization scheme keeps only its scheme, every credential header nothing', () => {
  const cases: { name: string; value: string; masked: string }[] = [
    { name: 'Authorization', value: 'Bearer r:session-token-1', masked: 'Bearer r:***' },
    { name: 'authorization', value: 'Bearer p:pat-token-1', masked: 'Bearer p:***' },
    { name: 'Authorization', value: `Bearer ${JWT}`, masked: 'Bearer ***' },
    { name: 'Authorization', value: 'Bearer r:', masked: 'Bearer ***' },
    { name: 'Authorization', value: 'Basic dXNlcjpodW50ZXIy', masked: 'Basic ***' },
    {
      name: 'Authorization',
      value: 'Digest username="u", response="6629fae49393a05397450978507c4ef1"',
      masked: 'Digest ***',
    },
    {
      name: 'Authorization',
      value: 'AWS4-HMAC-SHA256 Credential=AKIA/2026, Signature=abc',
      masked: 'AWS4-HMAC-SHA256 ***',
    },
    { name: 'Authorization', value: 'lonely-token-value', masked: '***' },
    { name: 'Proxy-Authorization', value: 'Basic cHJveHk6cGFzcw==', masked: 'Basic ***' },
    { name: 'Cookie', value: 'sid=abc; theme=dark', masked: '***' },
    { name: 'Set-Cookie', value: 'sid=abc; HttpOnly', masked: '***' },
    { name: 'X-Svc-Session-Token', value: 'legacy-value', masked: '***' },
    { name: 'X-Api-Key', value: 'k-123', masked: '***' },
    { name: 'X-Refresh-Token', value: 't', masked: '***' },
    { name: 'X-Client-Secret', value: 's', masked: '***' },
    { name: 'Content-Type', value: 'application/vnd.api+json', masked: 'application/vnd.api+json' },
    { name: 'User-Agent', value: 'browser', masked: 'browser' },
  ];
  for (const c of cases)
    test(`${c.name}: ${c.value} → ${c.masked}`, () =>
      expect(maskedHeaderValue(c.name, c.value, LEGACY)).toBe(c.masked));
  test('a known value shorter than 4 characters is not masked where it stands whole: page[limit]=5 stays', () => {
    expect(maskCredentialQuery('/x?page[limit]=5&pin=5&t=5555', new Set(['5', '5555']))).toBe(
      '/x?page[limit]=5&pin=***&t=***',
    );
    expect(maskedBody('{"limit":5,"n":"5","m":"5555"}', 'application/json', new Set(['5', '5555']))).toEqual({
      text: '{"limit":5,"n":"5","m":"***"}',
    });
  });
  test('another header keeps its value, a known token in it masked', () =>
    expect(maskedHeaderValue('Referer', 'https://x/?t=known-token-123', LEGACY, new Set(['known-token-123']))).toBe(
      'https://x/?t=***',
    ));
});

describe('headerSecrets: the values a request carries as credentials, to be masked wherever else they stand', () => {
  test("tokens whole and without their scheme, Basic's user and password, cookie values, credential headers", () => {
    const secrets = headerSecrets(
      {
        authorization: 'Basic ' + Buffer.from('alice:hunter2-password').toString('base64'),
        cookie: 'sid=cookie-value-1; theme=dark',
        'x-api-key': 'api-key-value',
        'x-svc-session-token': 'legacy-value',
        accept: 'application/json',
      },
      LEGACY,
    );
    expect([...secrets]).toEqual(
      expect.arrayContaining(['alice', 'hunter2-password', 'cookie-value-1', 'dark', 'api-key-value', 'legacy-value']),
    );
    expect(secrets.has('application/json')).toBe(false);
    expect([...headerSecrets({ authorization: 'Bearer r:tok-en-1' }, LEGACY)]).toEqual(
      expect.arrayContaining(['r:tok-en-1', 'tok-en-1']),
    );
    expect([
      ...headerSecrets(
        { authorization: 'Digest username="alice", response="6629fae49393a05397450978507c4ef1"' },
        LEGACY,
      ),
    ]).toEqual(expect.arrayContaining(['alice', '6629fae49393a05397450978507c4ef1']));
    expect([...headerSecrets({ authorization: 'Bearer r:***', cookie: 'sid=***' }, LEGACY)]).not.toContain('***');
  });
});

describe('maskedBody: members by name at any depth and of any value, form bodies, bodies that do not parse', () => {
  const known = new Set(['known-token-value-1']);
  const cases: { title: string; text: string; mimeType?: string; masked: string | { dropped: RegExp } }[] = [
    {
      title: 'nested string',
      text: '{"data":{"attributes":{"password":"p1","label":"x"}}}',
      masked: '{"data":{"attributes":{"password":"***","label":"x"}}}',
    },
    {
      title: 'object and array values',
      text: '{"credentials":{"user":"u","pw":"p"},"apiKeys":["a","b"],"ok":1}',
      masked: '{"credentials":"***","apiKeys":"***","ok":1}',
    },
    { title: 'number value', text: '{"pin":1234}', masked: '{"pin":"***"}' },
    {
      title: 'true, false and null are kept',
      text: '{"authenticated":true,"token":null}',
      masked: '{"authenticated":true,"token":null}',
    },
    {
      title: 'a known value under any name',
      text: '{"note":"known-token-value-1","list":["x known-token-value-1 y"]}',
      masked: '{"note":"***","list":["x *** y"]}',
    },
    { title: 'nothing to mask: the text as sent', text: '{ "a" : 1 }', masked: '{ "a" : 1 }' },
    { title: 'a byte order mark', text: '\ufeff{"refresh_token":"r1"}', masked: '\ufeff{"refresh_token":"***"}' },
    {
      title: 'a form body',
      text: 'user=alice&password=p1&t=known-token-value-1',
      mimeType: 'application/x-www-form-urlencoded',
      masked: 'user=alice&password=***&t=***',
    },
    {
      title: 'a form body sent as JSON',
      text: 'user=alice&password=p1',
      mimeType: 'application/json',
      masked: 'user=alice&password=***',
    },
    { title: 'a trailing comma', text: '{"password": "p1", "n": 2,}', masked: '{"password": "***", "n": 2,}' },
    {
      title: 'an answer cut short in a string',
      text: '{"data":{"refreshToken":"rt-cut-sho',
      masked: '{"data":{"refreshToken":"***"',
    },
    { title: 'a bare value in broken text', text: '{"pin": 4321, }', masked: '{"pin": "***", }' },
    {
      title: 'true, false and null in broken text are kept as well',
      text: '{"authenticated": true, "token": null,',
      masked: '{"authenticated": true, "token": null,',
    },
    { title: 'a known value in broken text', text: '{"a": "known-token-value-1",', masked: '{"a": "***",' },
    {
      title: 'a document nested too deep to walk is masked as text',
      text: `${'['.repeat(100_000)}{"password":"p1"}${']'.repeat(100_000)}`,
      masked: `${'['.repeat(100_000)}{"password":"***"}${']'.repeat(100_000)}`,
    },
    {
      title: 'an object under a credential name in broken text',
      text: '{"secrets": {"a": "b"},',
      masked: {
        dropped: /does not parse as JSON and holds a member named like a credential whose value is an object or a list/,
      },
    },
  ];
  for (const c of cases) {
    test(c.title, () => {
      const result = maskedBody(c.text, c.mimeType ?? 'application/vnd.api+json', known);
      if (typeof c.masked === 'string') expect(result).toEqual({ text: c.masked });
      else expect('dropped' in result && result.dropped).toMatch(c.masked.dropped);
    });
  }
});

describe('querySecrets and bodySecrets: the values found under credential names', () => {
  test('query', () => expect([...querySecrets('/x?access_token=a%2Db&page=1&key=k')]).toEqual(['a-b', 'k']));
  test('JSON at any depth, form, and broken text', () => {
    expect(
      [...bodySecrets('{"a":{"secret":{"inner":"s1","n":5}},"password":"p1","label":"l"}', 'application/json')].sort(),
    ).toEqual(['5', 'p1', 's1']);
    expect([...bodySecrets('password=p1&x=2', 'application/x-www-form-urlencoded')]).toEqual(['p1']);
    expect([...bodySecrets('{"refreshToken":"rt-1", ', 'application/json')]).toEqual(['rt-1']);
  });
});

describe('maskedText: free text read back from elsewhere', () => {
  const cases = [
    { text: 'expected a string, got {"password": "p-value"}', masked: 'expected a string, got {"password": "***"}' },
    { text: 'sent /x?access_token=abc&page=1', masked: 'sent /x?access_token=***&page=1' },
    { text: 'nothing to hide here', masked: 'nothing to hide here' },
  ];
  for (const c of cases) test(c.text, () => expect(maskedText(c.text)).toBe(c.masked));
});
