// What the suite's processes are told: the workers learn the failures the gate accepts, so a case
// decided in its worker (the case-outcome reporter replaced) follows the reporter's rule.
import { describe, expect, it } from 'vitest';
import { suiteProcessSettingsOf } from './environment.ts';

describe('suiteProcessSettingsOf', () => {
  it('hands the workers the requirements an active waiver accepts, and not an expired one', () => {
    const run = {
      waivers: [
        { requirement: 'NG-META-PAGES', reason: 'rounding fix in 4.2', expires: '2999-12-31' },
        { requirement: 'NG-META-TOTAL', reason: 'long gone', expires: '2001-01-01' },
      ],
    };
    const { suiteOptions } = suiteProcessSettingsOf(
      { LAS_BASE_URL: 'https://staging.example.com/v3', LAS_RUN: JSON.stringify(run) },
      'test',
      '/kit',
    );
    expect(suiteOptions.accepted).toEqual({ 'NG-META-PAGES': 'waived until 2999-12-31: rounding fix in 4.2' });
  });
});
