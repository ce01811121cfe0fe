import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlLine } from './curl.ts';
import { credentialSecrets, scrubber, scrubDeep } from '../run-protocol/secrets.ts';

const scrub = scrubber(
  credentialSecrets({ sessionToken: 'sess-123', pat: 'pat-456', forbiddenToken: 'sess-123-long' }),
);

describe('scrubber', () => {
  it('replaces each token with the variable that holds it, longest first', () => {
    expect(scrub('Bearer r:sess-123 and p:pat-456 and r:sess-123-long')).toBe(
      'Bearer r:$LAS_SESSION_TOKEN and p:$LAS_PAT and r:$LAS_FORBIDDEN_TOKEN',
    );
  });

  it('reaches every string of a nested value, keys included', () => {
    expect(scrubDeep({ a: ['x pat-456'], 'sess-123': { n: 1 } }, scrub)).toEqual({
      a: ['x $LAS_PAT'],
      $LAS_SESSION_TOKEN: { n: 1 },
    });
  });
});

describe('curlLine', () => {
  const request = {
    method: 'POST',
    path: '/records?x[y]=1',
    headers: {
      authorization: 'Bearer p:sess-123',
      'content-type': 'application/vnd.api+json',
      'x-odd': 'a "quoted" $HOME `cmd` \\',
    },
    bodyText: `{"data":{"type":"Record","attributes":{"summary":"it's"}}}`,
  };

  it('names credentials by variable and never contains a token', () => {
    const line = curlLine(request, scrub);
    expect(line).toContain('-H "authorization: Bearer p:$LAS_SESSION_TOKEN"');
    expect(line).toContain('"$LAS_BASE_URL/records?x[y]=1"');
    expect(line).not.toMatch(/sess-123|pat-456/);
  });

  it('is a command a shell reads back exactly, with only the $LAS_ variables expanded', () => {
    const line = curlLine(request, scrub).replace(/^curl /, 'printf "%s\\n" ');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: '/nowhere',
      LAS_BASE_URL: 'http://h/v3',
      LAS_SESSION_TOKEN: 'TOKEN',
    };
    const words = execFileSync('sh', ['-c', line], { env, encoding: 'utf8' }).trimEnd().split('\n');
    expect(words).toEqual([
      '-i',
      '-g',
      '-X',
      'POST',
      'http://h/v3/records?x[y]=1',
      '-H',
      'authorization: Bearer p:TOKEN',
      '-H',
      'content-type: application/vnd.api+json',
      '-H',
      'x-odd: a "quoted" $HOME `cmd` \\',
      '--data-binary',
      request.bodyText,
    ]);
  });
});
