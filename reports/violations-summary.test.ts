import { describe, expect, test } from 'vitest';
import { loadContract } from '../contract/index.ts';
import type { ViolationRecord } from '../proxy/violations.ts';
import { ShedTally } from '../proxy/sheds.ts';
import {
  parseRecord,
  parseShedRecord,
  renderViolationsHtml,
  renderViolationsMarkdown,
  summarizeViolations,
} from './violations-summary.ts';

const contract = loadContract();
/** The operations the log names: a client broke a rule on the first, and exchanges of both were shed. */
const [operation, other] = contract.operations;
/** What the client broke: a rule every operation shares. */
const BROKEN = contract.requirement('AUTH-CREDENTIALS-PRESENT');
const PATH = `${contract.basePath}${operation.pathTemplate}`;
const MESSAGE = 'no credentials in any of the three schemes';

function record(fields: Partial<ViolationRecord>): ViolationRecord {
  return {
    time: '2026-01-01T10:00:00.000Z',
    requestId: 'r1',
    method: operation.method,
    path: PATH,
    operationId: operation.operationId,
    direction: 'request',
    status: 401,
    rule: BROKEN.id,
    level: 'MUST',
    pointer: 'Authorization',
    message: MESSAGE,
    ...fields,
  };
}

const log = [
  JSON.stringify(record({ time: '2026-01-01T10:00:02.000Z', requestId: 'r2' })),
  JSON.stringify(record({})),
  '',
  'this is not JSON',
  JSON.stringify(
    record({
      time: '2026-01-01T10:00:05.000Z',
      requestId: 'r3',
      direction: 'response',
      rule: 'RES-ID-OBJECTID',
      level: 'SHOULD',
      pointer: '/data/0/id',
      message: 'id <script>alert(1)</script> | odd',
      status: 200,
    }),
  ),
  '[1, 2]',
  JSON.stringify({ ...record({}), level: 'FATAL' }),
  JSON.stringify({ time: '2026-01-01T10:00:00.000Z' }),
  JSON.stringify(
    record({
      time: '2026-01-01T10:00:09.000Z',
      requestId: 'r4',
      operationId: null,
      path: '/v3/users',
      direction: 'request',
      rule: 'GEN-UNSPECIFIED-OPERATION',
      level: 'INFO',
      pointer: '',
      message: 'traffic to GET /v3/users',
    }),
  ),
].join('\n');

describe('summarizeViolations', () => {
  const summary = summarizeViolations(contract, 'proxy.ndjson', log);

  test('counts findings, exchanges and levels, and the span of the log', () => {
    expect({
      findings: summary.findings,
      exchanges: summary.exchanges,
      byLevel: summary.byLevel,
      firstSeen: summary.firstSeen,
      lastSeen: summary.lastSeen,
    }).toEqual({
      findings: 4,
      exchanges: 4,
      byLevel: { MUST: 2, SHOULD: 1, INFO: 1 },
      firstSeen: '2026-01-01T10:00:00.000Z',
      lastSeen: '2026-01-01T10:00:09.000Z',
    });
  });

  test('counts malformed lines and names them, without stopping', () => {
    expect(summary.malformed).toEqual({ count: 4, lineNumbers: [4, 6, 7, 8] });
  });

  test('groups by rule, with level and section from the catalogue, first and last seen, and an example', () => {
    expect(
      summary.rules.map((r) => [r.rule, r.level, r.section, r.count, r.firstSeen, r.lastSeen, r.example.requestId]),
    ).toEqual([
      [BROKEN.id, 'MUST', BROKEN.section, 2, '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:02.000Z', 'r2'],
      ['RES-ID-OBJECTID', 'SHOULD', '2.1', 1, '2026-01-01T10:00:05.000Z', '2026-01-01T10:00:05.000Z', 'r3'],
      ['GEN-UNSPECIFIED-OPERATION', 'INFO', '4.4', 1, '2026-01-01T10:00:09.000Z', '2026-01-01T10:00:09.000Z', 'r4'],
    ]);
  });

  test('groups by operation and direction', () => {
    expect(summary.operations.map((o) => [o.operation, o.direction, o.count])).toEqual([
      ['(unspecified)', 'request', 1],
      [operation.operationId, 'request', 2],
      [operation.operationId, 'response', 1],
    ]);
  });
});

describe('rendering', () => {
  const summary = summarizeViolations(contract, 'proxy.ndjson', log);

  test('Markdown has a row per rule and per operation and direction, with cells escaped', () => {
    const markdown = renderViolationsMarkdown(summary);
    expect(markdown).toContain(
      `| MUST | ${BROKEN.id} | ${BROKEN.section} | 2 | 2026-01-01T10:00:00.000Z | 2026-01-01T10:00:02.000Z | ${operation.method} ${PATH} → 401: ${MESSAGE} (at Authorization) |`,
    );
    expect(markdown).toContain(`| ${operation.operationId} | response | 1 |`);
    expect(markdown).toContain('id <script>alert(1)</script> \\| odd');
    expect(markdown).toContain('4 malformed lines skipped (lines 4, 6, 7, 8).');
  });

  test('HTML escapes everything that came from the log', () => {
    const html = renderViolationsHtml(summary);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('id &lt;script&gt;alert(1)&lt;/script&gt; | odd');
    expect(html).toContain(`<td>${BROKEN.id}</td>`);
  });

  test('a summary line counts its repeated findings only: the first of its kind was written on a line of its own', () => {
    const folded = [
      record({ requestId: 'first' }),
      record({ requestId: 'first', time: '2026-01-01T10:00:10.000Z', repeated: 3 }),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const summary = summarizeViolations(contract, 'folded.ndjson', folded);
    expect({
      findings: summary.findings,
      summarized: summary.summarized,
      exchanges: summary.exchanges,
      must: summary.byParty.client.MUST,
    }).toEqual({ findings: 4, summarized: 3, exchanges: 1, must: 4 });
    expect(renderViolationsMarkdown(summary)).toContain(
      ': 1 written one by one, from 1 exchange, and 3 counted on summary lines.',
    );
  });

  test('control characters a client put in a member name reach the Markdown as visible pictures, never raw (ESC, CR, BEL)', () => {
    const hostile = JSON.stringify(
      record({ pointer: '/data/\u001b]0;owned\u0007\r', message: 'name \u001b[2J\u009b here' }),
    );
    const markdown = renderViolationsMarkdown(summarizeViolations(contract, 'hostile\u001b.ndjson', hostile));
    expect(markdown).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(markdown).toContain('\u241b]0;owned\u2407\u240d');
  });

  test('an empty log renders as having no findings', () => {
    expect(renderViolationsMarkdown(summarizeViolations(contract, 'empty.ndjson', ''))).toContain(
      '0 findings in 0 exchanges.',
    );
  });
});

describe('exchanges shed', () => {
  const tally = new ShedTally();
  for (let i = 0; i < 3; i += 1) tally.note('203.0.113.7', other.operationId, 'client-share', 1_000_000);
  tally.note('198.51.100.1', operation.operationId, 'backlog', 20_000);
  const first = tally.endInterval(new Date('2026-01-01T10:00:10.000Z'));
  tally.note('203.0.113.7', other.operationId, 'client-share', 1_000_000);
  const second = tally.endInterval(new Date('2026-01-01T10:00:20.000Z'));
  const text = [record({}), ...first, ...second].map((line) => JSON.stringify(line)).join('\n');
  const summary = summarizeViolations(contract, 'shed.ndjson', text);

  test('are counted beside the findings, by client, operation and reason over every interval, never as findings or malformed lines', () => {
    expect({ findings: summary.findings, malformed: summary.malformed.count }).toEqual({ findings: 1, malformed: 0 });
    expect(summary.shed).toEqual({
      exchanges: 5,
      bytes: 4_020_000,
      tallies: [
        {
          client: '203.0.113.7',
          operationId: other.operationId,
          reason: 'client-share',
          exchanges: 4,
          bytes: 4_000_000,
          firstSeen: '2026-01-01T10:00:10.000Z',
          lastSeen: '2026-01-01T10:00:20.000Z',
        },
        {
          client: '198.51.100.1',
          operationId: operation.operationId,
          reason: 'backlog',
          exchanges: 1,
          bytes: 20_000,
          firstSeen: '2026-01-01T10:00:10.000Z',
          lastSeen: '2026-01-01T10:00:10.000Z',
        },
      ],
    });
  });

  test('Markdown and HTML say how many went unjudged, and list them', () => {
    const markdown = renderViolationsMarkdown(summary);
    expect(markdown).toContain('5 exchanges (4020000 body bytes) relayed unjudged (shed)');
    expect(markdown).toContain(
      `| 203.0.113.7 | ${other.operationId} | client's share of the backlog full | 4 | 4000000 |`,
    );
    expect(renderViolationsHtml(summary)).toContain(
      `<td>198.51.100.1</td><td>${operation.operationId}</td><td>judging backlog full</td><td>1</td>`,
    );
    expect(
      renderViolationsMarkdown(summarizeViolations(contract, 'clean.ndjson', JSON.stringify(record({})))),
    ).toContain('None: every exchange the proxy sampled was judged.');
  });

  test('a tally past the bound folds its client into the other clients', () => {
    const crowded = new ShedTally();
    for (let i = 0; i < 150; i += 1) crowded.note(`10.0.${i >> 8}.${i & 255}`, other.operationId, 'backlog', 10);
    const lines = crowded.endInterval();
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toMatchObject({ client: '(other clients)', shed: 50, bytes: 500 });
  });

  test('a shed line is not taken for a finding, nor a finding for a shed line', () => {
    expect(parseRecord(JSON.stringify(first[0]))).toBeNull();
    expect(parseShedRecord(JSON.stringify(record({})))).toBeNull();
    expect(parseShedRecord(JSON.stringify({ ...first[0], shed: 0 }))).toBeNull();
  });
});

describe('parseRecord', () => {
  const cases: { name: string; line: string; valid: boolean }[] = [
    { name: 'a full record', line: JSON.stringify(record({})), valid: true },
    {
      name: 'a record with null status and operation',
      line: JSON.stringify(record({ status: null, operationId: null })),
      valid: true,
    },
    { name: 'a string status', line: JSON.stringify({ ...record({}), status: '400' }), valid: false },
    { name: 'an unknown direction', line: JSON.stringify({ ...record({}), direction: 'sideways' }), valid: false },
    { name: 'an unparseable time', line: JSON.stringify({ ...record({}), time: 'yesterday' }), valid: false },
    { name: 'null', line: 'null', valid: false },
  ];
  for (const c of cases)
    test(`${c.name} is ${c.valid ? '' : 'not '}a record`, () => expect(parseRecord(c.line) !== null).toBe(c.valid));
});
