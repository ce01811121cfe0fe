import { describe, expect, it } from 'vitest';
import { recordKindLabel, recordKinds } from '../contract/index.ts';
import { contract, createWithRecord, itWith } from '../contract/test-support.ts';
import { REFERENCE_FIXTURES } from '../server/defaults.ts';
import { mergeSettings, resolveTarget, settingSource, TargetError, type TargetSettings } from './target.ts';
import { parseTargetFile, parseTargetWaivers, readTargetFile } from './target-file.ts';
import { settingsFromEnvironment, targetEnvironment } from './target-environment.ts';

const LEGACY = 'X-Svc-Session-Token';
const complete: TargetSettings = {
  baseUrl: 'https://staging.example.com/v3/',
  sessionToken: 'session-aaaa',
  pat: 'pat-bbbb',
};

/** The tail of the one line that refuses a setting holding a control character; its value is never in it. */
const CONTROL_REFUSAL = 'check how it was set, a stray line break or escape sequence say; the value is not shown';

/** Each kind of text setting with a control character in it: refused, naming the setting and where it is given. */
function controlCharacterCases(): { title: string; settings: TargetSettings; message: string }[] {
  const cases: [string, TargetSettings, string, string, string][] = [
    [
      'a session token holding SOH',
      { ...complete, sessionToken: 'session-\u0001aaaa' },
      'the session token',
      'sessionToken',
      'U+0001',
    ],
    [
      'a personal access token holding ESC',
      { ...complete, pat: 'pat-\u001b[2Jbbbb' },
      'the personal access token',
      'pat',
      'U+001B',
    ],
    [
      'a forbidden token holding DEL',
      { ...complete, forbiddenToken: 'forbidden\u007f' },
      'the forbidden token',
      'forbiddenToken',
      'U+007F',
    ],
    [
      'a base URL holding BEL',
      { ...complete, baseUrl: 'https://staging.example.com/v3\u0007' },
      'the base URL',
      'baseUrl',
      'U+0007',
    ],
    [
      'a legacy header name holding NUL',
      { ...complete, legacyHeader: 'X-Svc\u0000-Token' },
      'the legacy header name',
      'legacyHeader',
      'U+0000',
    ],
    [
      'an extra header value holding ESC',
      { ...complete, headers: { 'X-Key': 'k\u001b]0;x' } },
      'a value of the extra headers',
      'headers',
      'U+001B',
    ],
  ];
  return cases.map(([title, settings, setting, key, character]) => ({
    title,
    settings,
    message: `${setting} (${settingSource(key)}) holds a control character (${character}): ${CONTROL_REFUSAL}`,
  }));
}

const EXAMPLE = new URL('example.yaml', import.meta.url).pathname;

describe('target file', () => {
  it("reads the annotated example: serve's address and the records the reference server holds", () => {
    const { fixtures = {}, ...settings } = readTargetFile(EXAMPLE);
    expect(settings).toEqual({
      baseUrl: 'http://127.0.0.1:4010/v3',
      legacyHeader: 'X-Svc-Session-Token',
      requestTimeoutMs: 10000,
      maxBodyMiB: 8,
    });
    expect(fixtures).toEqual(REFERENCE_FIXTURES);
  });

  const invalid: { title: string; text: string; message: RegExp }[] = [
    {
      title: 'an unknown top-level key',
      text: 'baseUrl: https://x.example/v3\nbaseurl: typo\n',
      message: /^target file t\.yaml: unknown key "baseurl"$/,
    },
    {
      title: 'an unknown nested key',
      text: 'credentials:\n  session: abc\n',
      message: /unknown key "credentials\.session"/,
    },
    {
      title: 'a token that is not a string',
      text: 'credentials:\n  pat: 12\n',
      message: /credentials\.pat must be string/,
    },
    {
      title: 'a timeout below the minimum',
      text: 'limits:\n  requestTimeoutMs: 5\n',
      message: /limits\.requestTimeoutMs must be >= 100/,
    },
    {
      title: 'YAML that does not parse',
      text: 'baseUrl: [unclosed\n',
      message: /^target file t\.yaml is not valid YAML: /,
    },
    { title: 'an empty file', text: '', message: /^target file t\.yaml is empty$/ },
    { title: 'a list instead of a mapping', text: '- a\n- b\n', message: /the file must be object/ },
  ];
  for (const c of invalid) {
    it(`refuses ${c.title} with one line`, () => {
      expect(() => parseTargetFile(c.text, 't.yaml')).toThrow(TargetError);
      expect(() => parseTargetFile(c.text, 't.yaml')).toThrow(c.message);
    });
  }

  it('names a file it cannot read', () => {
    expect(() => readTargetFile('/nonexistent/target.yaml')).toThrow(
      /^target file \/nonexistent\/target\.yaml cannot be read \(ENOENT\)$/,
    );
  });
});

describe('layers', () => {
  it('lets flags win over the environment and the environment over the file, key by key', () => {
    const file = parseTargetFile(
      'baseUrl: https://file.example/v3\nlegacyHeader: X-File\ncredentials:\n  sessionToken: file-token\n  pat: file-pat\n',
      'f',
    );
    const env = settingsFromEnvironment({
      LAS_BASE_URL: 'https://env.example/v3',
      LAS_PAT: 'env-pat',
      LAS_REQUEST_TIMEOUT_MS: '2500',
      LAS_SESSION_TOKEN: '',
    });
    const flags: TargetSettings = { pat: 'flag-pat', baseUrl: undefined };
    expect(mergeSettings(file, env, flags)).toEqual({
      baseUrl: 'https://env.example/v3',
      legacyHeader: 'X-File',
      sessionToken: 'file-token',
      pat: 'flag-pat',
      requestTimeoutMs: 2500,
    });
  });

  it('refuses a variable that should be a number', () => {
    expect(() => settingsFromEnvironment({ LAS_MAX_BODY_MIB: 'lots' })).toThrow(
      'LAS_MAX_BODY_MIB must be a number, got "lots"',
    );
  });
});

describe('resolveTarget', () => {
  it('fills defaults and trims the trailing slash', () => {
    expect(resolveTarget(complete, LEGACY)).toEqual({
      baseUrl: 'https://staging.example.com/v3',
      legacyHeader: LEGACY,
      credentials: { sessionToken: 'session-aaaa', pat: 'pat-bbbb' },
      fixtures: {},
      limits: { requestTimeoutMs: 10_000, maxBodyBytes: 8 * 1024 * 1024 },
      extraHeaders: {},
    });
  });

  it('takes extra headers from the file, LAS_HEADERS (one per line) or flags, and refuses the ones the cases set', () => {
    expect(settingsFromEnvironment({ LAS_HEADERS: 'X-Gateway-Key: k1\nX-Tenant:  acme \n' }).headers).toEqual({
      'X-Gateway-Key': 'k1',
      'X-Tenant': 'acme',
    });
    expect(parseTargetFile('headers:\n  X-Gateway-Key: k1\n', 't.yaml').headers).toEqual({ 'X-Gateway-Key': 'k1' });
    expect(resolveTarget({ ...complete, headers: { 'X-Gateway-Key': 'k1' } }, LEGACY).extraHeaders).toEqual({
      'X-Gateway-Key': 'k1',
    });
    expect(() => resolveTarget({ ...complete, headers: { Authorization: 'Bearer x' } }, LEGACY)).toThrow(
      'the extra header cannot be Authorization: the cases set that header themselves',
    );
    expect(() => resolveTarget({ ...complete, headers: { [LEGACY]: 'x' } }, LEGACY)).toThrow(
      `the extra header cannot be ${LEGACY}`,
    );
  });

  const refused: { title: string; settings: TargetSettings; message: string }[] = [
    {
      title: 'no base URL',
      settings: { ...complete, baseUrl: undefined },
      message: 'no target base URL: give --base-url, LAS_BASE_URL or baseUrl in the target file',
    },
    {
      title: 'a base URL that is not a URL',
      settings: { ...complete, baseUrl: 'staging/v3' },
      message: 'the base URL "staging/v3" is not an absolute URL (expected e.g. https://staging.example.com/v3)',
    },
    {
      title: 'a base URL that is not http(s)',
      settings: { ...complete, baseUrl: 'ftp://staging.example.com/v3' },
      message: 'the base URL must be http or https, got ftp',
    },
    {
      title: 'a base URL with a query',
      settings: { ...complete, baseUrl: 'https://x.example/v3?a=1' },
      message: 'the base URL must not have a query or fragment, got "https://x.example/v3?a=1"',
    },
    {
      title: 'no session token',
      settings: { ...complete, sessionToken: undefined },
      message:
        'no session token: give --session-token, LAS_SESSION_TOKEN or credentials.sessionToken in the target file',
    },
    {
      title: 'no personal access token',
      settings: { ...complete, pat: undefined },
      message: 'no personal access token: give --pat, LAS_PAT or credentials.pat in the target file',
    },
    {
      title: 'a token with a space',
      settings: { ...complete, pat: 'two words' },
      message: 'the personal access token contains whitespace or a comma, so it cannot be sent in a header',
    },
    {
      title: 'the same token twice',
      settings: { ...complete, forbiddenToken: 'session-aaaa' },
      message:
        'the session token and the forbidden token are the same value; the credential cases need distinct tokens',
    },
    {
      title: 'an invalid legacy header name',
      settings: { ...complete, legacyHeader: 'X Session' },
      message: 'the legacy header name "X Session" is not a valid HTTP header name',
    },
    {
      title: 'Authorization as the legacy header',
      settings: { ...complete, legacyHeader: 'authorization' },
      message: 'the legacy header cannot be authorization: the kit sends that header itself',
    },
    {
      title: 'a fractional timeout',
      settings: { ...complete, requestTimeoutMs: 10.5 },
      message: 'the request timeout must be a whole number of milliseconds from 100 to 600000, got 10.5',
    },
    ...controlCharacterCases(),
    {
      title: 'a zero body cap',
      settings: { ...complete, maxBodyMiB: 0 },
      message: 'the body size cap must be more than 0 and at most 1024 MiB, got 0',
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.title}`, () => {
      expect(() => resolveTarget(c.settings, LEGACY)).toThrow(new TargetError(c.message));
    });
  }

  itWith(createWithRecord, 'create naming a record')('refuses a record id holding a C1 control', (create) => {
    const [kind] = recordKinds([create]);
    const settings = { ...complete, fixtures: { [kind]: '64aa\u009b01' } };
    const message = `the ${recordKindLabel(kind)} (${settingSource(kind)}) holds a control character (U+009B): ${CONTROL_REFUSAL}`;
    expect(() => resolveTarget(settings, LEGACY)).toThrow(new TargetError(message));
  });

  it('takes a tab in an extra header value, which a header may hold', () => {
    const tabbed = { 'X-Gateway-Key': 'a\tb' };
    expect(resolveTarget({ ...complete, headers: tabbed }, LEGACY).extraHeaders).toEqual(tabbed);
  });

  it('never echoes a base URL that carries credentials', () => {
    const secret = 'p4ssw0rd-in-url';
    let message = '';
    try {
      resolveTarget({ ...complete, baseUrl: `https://user:${secret}@staging.example.com/v3` }, LEGACY);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'the base URL must not carry credentials; give tokens with --session-token and --pat or their variables',
    );
  });
});

describe('waivers', () => {
  const ids = contract.requirements.map((r) => r.id);
  const [waived] = ids;
  const waiverFile = (requirement: string, expires: string) =>
    `waivers:\n  - requirement: ${requirement}\n    reason: known\n    expires: ${expires}\n`;

  it('reads requirement, reason and expiry, quoted or not', () => {
    expect(parseTargetWaivers(waiverFile(waived, '2026-12-31'), 't.yaml', ids)).toEqual([
      { requirement: waived, reason: 'known', expires: '2026-12-31' },
    ]);
    expect(parseTargetWaivers(waiverFile(waived, '"2026-12-31"'), 't.yaml', ids)[0].expires).toBe('2026-12-31');
  });

  it('refuses an id the catalogue does not have, a date that is not one, a waiver without a reason', () => {
    expect(() => parseTargetWaivers(waiverFile(`${waived}-NO-SUCH`, '2026-12-31'), 't.yaml', ids)).toThrow(
      `target file t.yaml: waiver for ${waived}-NO-SUCH, which is no requirement of the catalogue`,
    );
    expect(() => parseTargetWaivers(waiverFile(waived, '2026-02-31x'), 't.yaml', ids)).toThrow(
      /waivers\.0\.expires must match pattern/,
    );
    expect(() =>
      parseTargetWaivers(`waivers:\n  - requirement: ${waived}\n    expires: 2026-12-31\n`, 't.yaml', ids),
    ).toThrow(/must have required property 'reason'/);
  });
});

describe('targetEnvironment', () => {
  it('round-trips through the environment the suite reads', () => {
    const target = resolveTarget(
      {
        ...complete,
        forbiddenToken: 'forbidden-cccc',
        fixtures: Object.fromEntries(recordKinds(contract.operations).map((kind) => [kind, `${kind}-1`])),
        maxBodyMiB: 0.5,
        requestTimeoutMs: 700,
      },
      LEGACY,
    );
    expect(resolveTarget(settingsFromEnvironment(targetEnvironment(target)), LEGACY)).toEqual(target);
  });
});
