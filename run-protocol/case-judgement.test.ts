import { describe, expect, it } from 'vitest';
import { FORGIVEN_ANNOTATION, SIDE_FINDING_ANNOTATION } from './annotations.ts';
import { caseFailureMessage, judgeCase, judgementNotes } from './case-judgement.ts';

type Level = 'MUST' | 'SHOULD' | 'INFO';
const finding = (requirement: string, level: Level) => ({ requirement, level, message: `${requirement} broken` });

describe('judgeCase', () => {
  const own = finding('RES-ID-STRING', 'MUST');
  const ownShould = finding('AUTH-WWW-AUTHENTICATE', 'SHOULD');
  const other = finding('AUTH-SESSION-ACCEPTED', 'MUST');
  const caseRequirements = ['RES-ID-STRING', 'AUTH-WWW-AUTHENTICATE'];

  const cases = [
    {
      name: 'its own blocking finding fails it',
      findings: [own],
      levels: ['MUST'],
      accepted: {},
      failing: [own],
      side: [],
      acceptedIds: [],
    },
    {
      name: 'a finding below the fail level does not',
      findings: [ownShould],
      levels: ['MUST'],
      accepted: {},
      failing: [],
      side: [],
      acceptedIds: [],
    },
    {
      name: 'at fail level should, a SHOULD finding does',
      findings: [ownShould],
      levels: ['MUST', 'SHOULD'],
      accepted: {},
      failing: [ownShould],
      side: [],
      acceptedIds: [],
    },
    {
      name: "another requirement's finding is a side finding",
      findings: [other],
      levels: ['MUST'],
      accepted: {},
      failing: [],
      side: [other],
      acceptedIds: [],
    },
    {
      name: 'a finding the gate accepts is accepted, not failing',
      findings: [own],
      levels: ['MUST'],
      accepted: { 'RES-ID-STRING': 'waived' },
      failing: [],
      side: [],
      acceptedIds: ['RES-ID-STRING'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const judged = judgeCase(c.findings, caseRequirements, c.levels, new Map(Object.entries(c.accepted)));
      expect(judged.failing).toEqual(c.failing);
      expect(judged.side).toEqual(c.side);
      expect(judged.accepted.map((a) => a.finding.requirement)).toEqual(c.acceptedIds);
    });
  }
});

describe('judgementNotes', () => {
  it('one note per accepted or side finding, a repeated one once', () => {
    const side = finding('AUTH-SESSION-ACCEPTED', 'MUST');
    const accepted = finding('RES-ID-STRING', 'MUST');
    const notes = judgementNotes({ failing: [], accepted: [{ finding: accepted, why: 'waived' }], side: [side, side] });
    expect(notes.map((n) => n.type)).toEqual([FORGIVEN_ANNOTATION, SIDE_FINDING_ANNOTATION]);
    expect(notes[0].description).toContain('RES-ID-STRING (waived)');
  });
});

describe('caseFailureMessage', () => {
  it('one line per finding, with the exchange it was seen in when there is one', () => {
    const withExchange = {
      ...finding('RES-ID-STRING', 'MUST'),
      location: 'response',
      exchange: { method: 'GET', path: '/records', curl: '' },
    };
    const without = { ...finding('AUTH-SESSION-ACCEPTED', 'MUST'), location: 'response' };
    const message = caseFailureMessage([withExchange, without] as Parameters<typeof caseFailureMessage>[0]);
    expect(message.split('\n')).toEqual([
      'RES-ID-STRING (MUST): RES-ID-STRING broken [GET /records]',
      'AUTH-SESSION-ACCEPTED (MUST): AUTH-SESSION-ACCEPTED broken',
    ]);
  });
});
