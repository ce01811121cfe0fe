// What the suite's processes are told, and what they hand on: the workers learn the failures the
// gate accepts, so a case decided in its worker (the case-outcome reporter replaced) follows the
// reporter's rule; the target's secrets, told beside the description, reach the workers and the
// scrubber, and nothing the reporters are told to write holds them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type RunMessage } from '../run-protocol/index.ts';
import { suiteProcessSettingsOf } from './process-settings.ts';

const TARGET = { baseUrl: 'https://staging.example.com/v3' };

describe('suiteProcessSettingsOf', () => {
  it('hands the workers the requirements an active waiver accepts, and not an expired one', () => {
    const run = {
      ...DEFAULT_RUN,
      target: TARGET,
      waivers: [
        { requirement: 'ERR-STATUS-STRING', reason: 'rounding fix in 4.2', expires: '2999-12-31' },
        { requirement: 'ERR-ENVELOPE', reason: 'long gone', expires: '2001-01-01' },
      ],
    };
    const { suiteOptions } = suiteProcessSettingsOf({ run, secrets: {} }, 'test', '/kit');
    expect(suiteOptions.accepted).toEqual({ 'ERR-STATUS-STRING': 'waived until 2999-12-31: rounding fix in 4.2' });
  });

  it('gives a token planted in the message to the workers and the scrubber, and to nothing written', () => {
    const planted = [
      'planted-session-5c2e91',
      'planted-pat-7d04b3',
      'planted-forbidden-e1a8f6',
      'planted-header-90bb2c',
    ];
    const message: RunMessage = {
      run: { ...DEFAULT_RUN, target: TARGET, signingKeyFile: '/keys/record.pem', recordPipe: 3 },
      secrets: {
        sessionToken: planted[0],
        pat: planted[1],
        forbiddenToken: planted[2],
        headers: { 'X-Gateway-Key': planted[3] },
      },
    };
    const settings = suiteProcessSettingsOf(message, 'test', '/kit');
    expect(settings.suiteOptions.settings).toMatchObject({
      sessionToken: planted[0],
      pat: planted[1],
      forbiddenToken: planted[2],
      headers: { 'X-Gateway-Key': planted[3] },
    });
    expect(settings.scrubbing.secrets.map((s) => s.value).sort()).toEqual([...planted].sort());
    expect(settings.recording.secrets).toEqual(settings.scrubbing.secrets);
    // What the reporters write from, the record's description among it: the secrets list alone holds the tokens.
    const handedOn = JSON.stringify([
      settings.described,
      settings.layout,
      { ...settings.recording, secrets: undefined },
      { ...settings.suiteOptions, settings: undefined },
    ]);
    for (const token of planted) expect(handedOn).not.toContain(token);
    expect(settings.recording).toMatchObject({
      recordPipe: 3,
      baseUrl: TARGET.baseUrl,
      inputs: { forbiddenToken: true },
    });
    expect(settings.described).not.toHaveProperty('recordPipe');
  });
});
