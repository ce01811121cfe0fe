import { describe, expect, it } from 'vitest';
import { baselineReason, gateAccepted, waivedReason, waiverActive } from './waivers.ts';

const waiver = { requirement: 'RES-ID-STRING', reason: 'fixed in release 4.2', expires: '2027-03-01' };

describe('waiverActive', () => {
  const days = [
    { today: '2027-02-28', active: true },
    { today: '2027-03-01', active: true },
    { today: '2027-03-02', active: false },
  ];
  for (const { today, active } of days) {
    it(`expiring ${waiver.expires}, on ${today}: ${active ? 'holds' : 'has lapsed'}`, () =>
      expect(waiverActive(waiver, today)).toBe(active));
  }
});

describe('gateAccepted', () => {
  const baseline = {
    file: 'reports/last-release/conformance.json',
    failing: ['RES-ID-STRING', 'AUTH-WWW-AUTHENTICATE'],
  };

  it('accepts the baseline failures, each with why', () => {
    expect(Object.fromEntries(gateAccepted({ waivers: [], baseline }, '2027-01-01'))).toEqual({
      'RES-ID-STRING': baselineReason(baseline.file),
      'AUTH-WWW-AUTHENTICATE': baselineReason(baseline.file),
    });
  });

  it('an active waiver of a requirement the baseline also has: the waiver is the reason given', () => {
    expect(gateAccepted({ waivers: [waiver], baseline }, '2027-01-01').get(waiver.requirement)).toBe(
      waivedReason(waiver),
    );
  });

  it('a lapsed waiver accepts nothing', () => {
    expect(gateAccepted({ waivers: [waiver] }, '2027-03-02').size).toBe(0);
  });
});
