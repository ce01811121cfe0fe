// The console says why a run is not passed, as summary.md does: each reason requirements were not
// run, with their ids and the flag or variable that gives what was missing.
import { describe, expect, it } from 'vitest';
import { recordMembers, type Operation } from '../contract/index.ts';
import { contract, createWithRecord, describeWith } from '../contract/test-support.ts';
import { NO_FORBIDDEN_TOKEN, noFixturesReason } from '../suites/operations.ts';
import { notRunConsole, summaryMarkdown } from './console-summary.ts';
import { caseOutcome, recordOf } from './test-support.ts';

/** A run that skipped the forbidden case for want of a token and a create for want of the record it names. */
function incompleteRun(create: Operation, allowPartial = false) {
  const created = contract.successRequirement(create.operationId).id;
  return recordOf(
    [
      caseOutcome('AUTH-403-FORBIDDEN · forbidden', ['AUTH-403-FORBIDDEN'], {
        status: 'skipped',
        skipReason: NO_FORBIDDEN_TOKEN,
      }),
      caseOutcome(`${created} · served`, [created], { status: 'skipped', skipReason: fixturesReason(create) }),
    ],
    { runStatus: 'passed', gate: { waivers: [], allowPartial, today: '2026-01-01' } },
  );
}

const recordKind = (create: Operation) => recordMembers([create])[0].kind;
const fixturesReason = (create: Operation) => noFixturesReason([recordKind(create)]);

describeWith(createWithRecord, 'create naming a record')(
  'the console of a run that did not run everything',
  (create) => {
    const created = contract.successRequirement(create.operationId).id;
    const FIXTURES_REASON = fixturesReason(create);

    it('lists each reason with its requirements, and what accepts a partial run', () => {
      const record = incompleteRun(create);
      expect(record.verdict).toBe('incomplete');
      expect(notRunConsole(record).split('\n')).toEqual([
        'Not run (2), so the run cannot pass them:',
        `  AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`,
        `  ${created}: ${FIXTURES_REASON}`,
        'Give what each reason names, or pass --allow-partial to accept a partial run (the record then says so).',
        '',
      ]);
    });

    it('names the flag, variable and target-file key of a missing fixture', () => {
      const kind = recordKind(create);
      const words = kind.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
      expect(FIXTURES_REASON).toContain(
        `${kind} fixture (--${words.join('-')}, LAS_${words.join('_').toUpperCase()} or fixtures.${kind} in the target file)`,
      );
    });

    it('says in summary.md what it says on the console', () => {
      const summary = summaryMarkdown(incompleteRun(create));
      expect(summary).toContain('Not run (2), so the run cannot pass them:');
      expect(summary).toContain(`- AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`);
      expect(summary).toContain(`- ${created}: ${FIXTURES_REASON}`);
      expect(summary).toContain('pass `--allow-partial` to accept a partial run');
    });

    it('leaves out what accepts a partial run when --allow-partial already did', () => {
      const record = incompleteRun(create, true);
      expect(record.gate.result).toBe('pass');
      expect(notRunConsole(record)).not.toContain('--allow-partial');
      expect(notRunConsole(record)).toContain(`AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`);
    });
  },
);

describe('the console of a run that ran everything', () => {
  it('says nothing of what was not run', () => {
    expect(notRunConsole(recordOf([], { runStatus: 'passed' }))).toBe('');
  });
});
