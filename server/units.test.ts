// The reference server's small pure parts, case by case: the credential decision, the body
// guards and the log's masking of query values.
import { describe, expect, it } from 'vitest';
import { readCredentials } from '../contract/index.ts';
import { nestsDeeperThan, nonFiniteNumberAt } from './body.ts';
import { judgeCredentials } from './credentials.ts';
import { maskedTarget } from './log.ts';

const tokens = { sessionToken: 'tok-session', pat: 'tok-pat', forbiddenToken: 'tok-forbidden' };
const LEGACY = 'X-Svc-Session-Token';

describe('judgeCredentials (section 5)', () => {
  const cases: Array<{
    headers: Record<string, string>;
    decision: { outcome: string; scheme?: string; code?: string };
  }> = [
    { headers: { authorization: 'Bearer r:tok-session' }, decision: { outcome: 'permitted', scheme: 'session' } },
    { headers: { authorization: 'bearer p:tok-pat' }, decision: { outcome: 'permitted', scheme: 'pat' } },
    { headers: { [LEGACY]: 'tok-session' }, decision: { outcome: 'permitted', scheme: 'legacy' } },
    { headers: {}, decision: { outcome: 'unauthenticated', code: 'AUTH-401-NO-CREDENTIALS' } },
    {
      headers: { authorization: 'Bearer tok-session' },
      decision: { outcome: 'unauthenticated', code: 'AUTH-401-MALFORMED' },
    },
    {
      headers: { authorization: 'Bearer p:tok-session' },
      decision: { outcome: 'unauthenticated', code: 'AUTH-401-WRONG-PREFIX' },
    },
    {
      headers: { authorization: 'Bearer r:tok-pat' },
      decision: { outcome: 'unauthenticated', code: 'AUTH-401-WRONG-PREFIX' },
    },
    { headers: { [LEGACY]: 'tok-pat' }, decision: { outcome: 'unauthenticated', code: 'AUTH-401-UNKNOWN-TOKEN' } },
    {
      headers: { authorization: 'Bearer r:tok-other' },
      decision: { outcome: 'unauthenticated', code: 'AUTH-401-UNKNOWN-TOKEN' },
    },
    { headers: { authorization: 'Bearer p:tok-forbidden' }, decision: { outcome: 'forbidden', scheme: 'pat' } },
    { headers: { [LEGACY]: 'tok-forbidden' }, decision: { outcome: 'forbidden', scheme: 'legacy' } },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.headers)} → ${c.decision.outcome} ${c.decision.code ?? c.decision.scheme ?? ''}`, () => {
      const decision = judgeCredentials(readCredentials(c.headers, LEGACY), tokens, LEGACY);
      expect(decision).toMatchObject(c.decision);
      expect(JSON.stringify(decision)).not.toContain('tok-');
    });
  }
});

describe('nestsDeeperThan', () => {
  const cases = [
    { text: '[[[]]]', depth: 3, deeper: false },
    { text: '[[[[]]]]', depth: 3, deeper: true },
    { text: '{"a":{"b":[1]}}', depth: 2, deeper: true },
    { text: '{"a":"[[[[[[[["}', depth: 1, deeper: false },
    { text: '{"a":"\\"[[[[[[["}', depth: 1, deeper: false },
    { text: '[] [] [] []', depth: 1, deeper: false },
  ];
  for (const c of cases)
    it(`${c.text} deeper than ${c.depth}: ${c.deeper}`, () => expect(nestsDeeperThan(c.text, c.depth)).toBe(c.deeper));
});

describe('nonFiniteNumberAt', () => {
  const cases = [
    { text: '{"a":[1,2,{"b":1e400}]}', pointer: '/a/2/b' },
    { text: '{"a/b":{"~":-1e400}}', pointer: '/a~1b/~0' },
    { text: '{"a":1e308,"b":[-0,0.5]}', pointer: undefined },
  ];
  for (const c of cases)
    it(`${c.text} → ${c.pointer}`, () => expect(nonFiniteNumberAt(JSON.parse(c.text))).toBe(c.pointer));
});

describe('maskedTarget', () => {
  const known = new Set(['secret-value']);
  const cases = [
    { target: '/v3/x', masked: '/v3/x' },
    { target: '/v3/x?filter[type]=portal&page[limit]=5', masked: '/v3/x?filter[type]=portal&page[limit]=5' },
    {
      target: '/v3/x?access_token=abc&api_key=def&Session=ghi&password=jkl',
      masked: '/v3/x?access_token=***&api_key=***&Session=***&password=***',
    },
    { target: '/v3/x?note=secret-value&note=secret%2Dvalue', masked: '/v3/x?note=***&note=***' },
    { target: '/v3/x?flag&%zz=1', masked: '/v3/x?flag&%zz=1' },
  ];
  for (const c of cases) it(c.target, () => expect(maskedTarget(c.target, known)).toBe(c.masked));
});
