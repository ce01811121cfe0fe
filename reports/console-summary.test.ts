// The console says why a run is not passed, as summary.md does: each reason requirements were not
// run, with their ids and the flag or variable that gives what was missing.
import { describe, expect, it } from 'vitest';
import { NO_FORBIDDEN_TOKEN, noFixturesReason } from '../suites/operations.ts';
import { notRunConsole, summaryMarkdown } from './console-summary.ts';
import { caseOutcome, recordOf } from './test-support.ts';

const FIXTURES_REASON = noFixturesReason(['ownerUserId']);

function incompleteRun(allowPartial = false) {
  return recordOf(
    [
      caseOutcome('AUTH-403-FORBIDDEN · forbidden', ['AUTH-403-FORBIDDEN'], {
        status: 'skipped',
        skipReason: NO_FORBIDDEN_TOKEN,
      }),
      caseOutcome('NG-META-PAGES · walk', ['NG-META-PAGES'], { status: 'skipped', skipReason: FIXTURES_REASON }),
    ],
    { runStatus: 'passed', gate: { waivers: [], allowPartial, today: '2026-01-01' } },
  );
}

describe('the console of a run that did not run everything', () => {
  it('lists each reason with its requirements, and what accepts a partial run', () => {
    const record = incompleteRun();
    expect(record.verdict).toBe('incomplete');
    expect(notRunConsole(record).split('\n')).toEqual([
      'Not run (2), so the run cannot pass them:',
      `  AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`,
      `  NG-META-PAGES: ${FIXTURES_REASON}`,
      'Give what each reason names, or pass --allow-partial to accept a partial run (the record then says so).',
      '',
    ]);
  });

  it('names the flag, variable and target-file key of a missing fixture', () => {
    expect(FIXTURES_REASON).toContain(
      'ownerUserId fixture (--owner-user-id, LAS_OWNER_USER_ID or fixtures.ownerUserId in the target file)',
    );
  });

  it('says in summary.md what it says on the console', () => {
    const summary = summaryMarkdown(incompleteRun());
    expect(summary).toContain('Not run (2), so the run cannot pass them:');
    expect(summary).toContain(`- AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`);
    expect(summary).toContain(`- NG-META-PAGES: ${FIXTURES_REASON}`);
    expect(summary).toContain('pass `--allow-partial` to accept a partial run');
  });

  it('leaves out what accepts a partial run when --allow-partial already did', () => {
    const record = incompleteRun(true);
    expect(record.gate.result).toBe('pass');
    expect(notRunConsole(record)).not.toContain('--allow-partial');
    expect(notRunConsole(record)).toContain(`AUTH-403-FORBIDDEN: ${NO_FORBIDDEN_TOKEN}`);
  });

  it('says nothing of a run that ran everything', () => {
    expect(notRunConsole(recordOf([], { runStatus: 'passed' }))).toBe('');
  });
});
