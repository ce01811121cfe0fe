// The choice catalogue as data: names, the open places it cites, the warnings it declares, the
// conflicts from which the compatible sets are computed, and server/CHOICES.md generated from it.
// That each choice passes the suite and the proxy is proven in suites/choice-proof.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract/index.ts';
import {
  CHOICES,
  CHOICE_NAMES,
  choicesConflict,
  choicesTable,
  compatibleChoiceSets,
  createReferenceServer,
  FAULT_NAMES,
  UnknownChoiceError,
} from './index.ts';

describe('the choice catalogue', () => {
  const contract = loadContract();

  it('has at least 20 choices, several made of others, with unique kebab-case names no fault uses', () => {
    expect(CHOICES.length).toBeGreaterThanOrEqual(20);
    expect(CHOICES.filter((c) => c.combines).length).toBeGreaterThanOrEqual(2);
    expect(new Set(CHOICE_NAMES).size).toBe(CHOICE_NAMES.length);
    for (const name of CHOICE_NAMES) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(CHOICE_NAMES.filter((name) => FAULT_NAMES.includes(name))).toEqual([]);
  });

  for (const choice of CHOICES) {
    it(`${choice.name} names a section and an open place, warns only at SHOULD or INFO, and names known choices`, () => {
      expect(choice.section).toMatch(/^\d+(\.\d+)?(, \d+(\.\d+)?)*$/);
      expect(choice.openPlace.length).toBeGreaterThan(10);
      for (const id of choice.warns) expect(['SHOULD', 'INFO']).toContain(contract.requirement(id).level);
      for (const name of [...choice.conflictsWith, ...(choice.combines ?? [])]) expect(CHOICE_NAMES).toContain(name);
      for (const part of choice.combines ?? []) expect(CHOICES.find((c) => c.name === part)?.combines).toBeUndefined();
    });
  }

  it('conflicts are symmetric, and a choice made of others conflicts with each of its parts', () => {
    for (const a of CHOICE_NAMES)
      for (const b of CHOICE_NAMES) expect(choicesConflict(a, b)).toBe(choicesConflict(b, a));
    for (const choice of CHOICES)
      for (const part of choice.combines ?? []) expect(choicesConflict(choice.name, part)).toBe(true);
  });

  it('the compatible sets hold every choice once, and no two choices of a set conflict', () => {
    const sets = compatibleChoiceSets();
    expect(sets.flat().sort()).toEqual([...CHOICE_NAMES].sort());
    for (const set of sets)
      for (const a of set) for (const b of set) expect(choicesConflict(a, b), `${a} and ${b}`).toBe(false);
  });

  it('refuses an unknown choice, naming the valid ones', () => {
    expect(() => createReferenceServer({ choices: ['no-such-choice'] })).toThrow(UnknownChoiceError);
    expect(() => createReferenceServer({ choices: ['no-such-choice'] })).toThrow(
      `valid choices: ${CHOICE_NAMES.slice(0, 2).join(', ')}, `,
    );
  });
});

describe('server/CHOICES.md', () => {
  const written = readFileSync(new URL('./CHOICES.md', import.meta.url), 'utf8');

  it('is what `npm run faults:table` writes from CHOICES', () => {
    expect(written).toBe(choicesTable());
  });

  it('has one row per choice', () => {
    for (const choice of CHOICES) expect(written).toContain(`| \`${choice.name}\` | ${choice.section} |`);
  });
});
