// The repeat folder keeps the client's and the service's kinds apart, and what it folds past a
// party's share of kinds is folded by rule, direction and level: no line claims a rule, level or
// party it does not hold.
import { describe, expect, test } from 'vitest';
import { RepeatFolder, type FindingKind } from './repeats.ts';
import { partyOf, type ViolationRecord } from './violations.ts';

const KINDS_MAX = 5;

function record(finding: FindingKind, requestId: string): ViolationRecord {
  return {
    time: new Date(0).toISOString(),
    requestId,
    method: 'GET',
    path: '/v3/x',
    operationId: null,
    direction: finding.direction,
    party: partyOf(finding.direction),
    status: 200,
    rule: finding.rule,
    level: finding.level,
    pointer: '',
    message: finding.kind,
  };
}

function sight(folder: RepeatFolder, finding: FindingKind, requestId: string): ViolationRecord | null {
  return folder.sighted(finding, 1, requestId, (id) => record(finding, id));
}

const clientKind = (i: number): FindingKind => ({
  kind: `client ${i}`,
  rule: 'GEN-UNSPECIFIED-OPERATION',
  direction: 'request',
  level: 'INFO',
});
const serviceMust: FindingKind = { kind: 'service must', rule: 'ERR-ENVELOPE', direction: 'response', level: 'MUST' };

describe('a client filling its share of kinds', () => {
  test("the service's next MUST finding is still written in full, as a MUST line of the service", () => {
    const folder = new RepeatFolder(true, KINDS_MAX);
    for (let i = 0; i < 3 * KINDS_MAX; i += 1) sight(folder, clientKind(i), `client-${i}`);
    const written = sight(folder, serviceMust, 'service');
    expect(written).toMatchObject({ rule: 'ERR-ENVELOPE', level: 'MUST', party: 'service', requestId: 'service' });
  });

  test("the client's findings past its share are folded under their own rule, level and party, the first written in full", () => {
    const folder = new RepeatFolder(true, KINDS_MAX);
    const written = Array.from({ length: 3 * KINDS_MAX }, (_, i) => sight(folder, clientKind(i), `client-${i}`)).filter(
      (r) => r !== null,
    );
    expect(written).toHaveLength(KINDS_MAX + 1);
    const summaries = folder.endInterval();
    const overflow = summaries.find((s) => s.message.includes('of kinds past'));
    expect(overflow).toMatchObject({
      rule: 'GEN-UNSPECIFIED-OPERATION',
      level: 'INFO',
      party: 'client',
      direction: 'request',
      repeated: 2 * KINDS_MAX - 1,
    });
  });

  test("past the service's own share, each rule is folded apart: a MUST never stands under a SHOULD's line", () => {
    const folder = new RepeatFolder(true, KINDS_MAX);
    const should: FindingKind = { kind: '', rule: 'RES-ID-OBJECTID', direction: 'response', level: 'SHOULD' };
    for (let i = 0; i < 2 * KINDS_MAX; i += 1) sight(folder, { ...should, kind: `should ${i}` }, `s-${i}`);
    expect(sight(folder, { ...serviceMust, kind: 'must 1' }, 'must-1')).toMatchObject({
      rule: 'ERR-ENVELOPE',
      level: 'MUST',
    });
    sight(folder, { ...serviceMust, kind: 'must 2' }, 'must-2');
    const summaries = folder.endInterval();
    expect(summaries.map((s) => [s.rule, s.level, s.repeated]).sort()).toEqual([
      ['ERR-ENVELOPE', 'MUST', 1],
      ['RES-ID-OBJECTID', 'SHOULD', KINDS_MAX - 1],
    ]);
  });
});

test('a summary line counts what was not written: the first of its kind is not in its count', () => {
  const folder = new RepeatFolder(true, KINDS_MAX);
  for (let i = 0; i < 4; i += 1) sight(folder, serviceMust, `r-${i}`);
  expect(folder.endInterval().map((s) => s.repeated)).toEqual([3]);
  expect(folder.endInterval()).toEqual([]);
});
