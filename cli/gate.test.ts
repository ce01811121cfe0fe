// The gate tools of `las-conformance run`, end to end against the reference server with one fault
// (filter-not-required breaks the requirement of a list's filter), behind a relay that sees what reaches the
// target: a waiver hides its failure until its date and not after; a baseline fails only new
// failures; --allow-partial passes a selection; --read-only sends nothing that could create a
// record; --header reaches the target and is written nowhere; a create answered 202 (body not
// shown) leaves what only a 201 body shows not run, never passed. Runs with generated inputs
// against another fault (meta-pages-rounded-down, which they break too) are read by a JUnit
// consumer: no failure when the gate accepts it, exactly one when nothing does. The faults and the
// requirements they break are the contract's: a run whose fault the contract gives nothing to
// break is left out, its tests skipped.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY_REASON } from '../suites/case.ts';
import type { CertificationRecord } from '../reports/record.ts';
import {
  startReferenceServer,
  DEFAULT_CREDENTIALS,
  FAULTS,
  REFERENCE_FIXTURES,
  type StartedReferenceServer,
} from '../server/index.ts';
import { create, creates, itWith, lists } from '../contract/test-support.ts';
import { leaksOf, reportFiles } from '../suites/test-support.ts';
import { browserTestsRun, launchBrowser } from '../test-support/browser.ts';
import { junitCases, readJunit, redCases } from '../test-support/junit.ts';
import { runCli, runCliInProcess, runnable, RUN_NEEDS, type CliResult } from './test-support.ts';

const GATEWAY_KEY = 'gateway-key-value-3f9e21';
/** The fault of the waiver and baseline runs, when the contract has a list whose filter is required. */
const FILTER_FAULT = FAULTS.find((f) => f.name === 'filter-not-required');
/** The list it breaks, and the requirement it breaks there (empty without one: its tests are skipped). */
const filtered = lists.find((l) => FILTER_FAULT !== undefined && l.roles.filterRequired === FILTER_FAULT.requirement);
const FAULTED = filtered?.roles.filterRequired ?? '';
const FILTERED = 'list whose filter is required';
/** The cases of the waiver and baseline runs: the filter's requirement, and the list's success statuses. */
const FAULTED_GREP = `${FAULTED}|${filtered?.roles.success}`;
/** The requirement of each create's success statuses: the creation cases cite them. */
const CREATED = creates.map((c) => c.roles.success!);
/** What only a 201 body shows, per create: the requirements of these roles, which a 202 leaves not run. */
const BODY_ROLES = ['responseShape', 'serverAttributes', 'relationshipsEcho'] as const;
const SHOWN_BY_201 = creates.flatMap((c) => BODY_ROLES.flatMap((role) => c.roles[role] ?? []));

interface Seen {
  method: string;
  gatewayKey?: string;
}

let reference: StartedReferenceServer;
let relay: Server;
let baseUrl: string;
let root: string;
const seen = new Map<string, Seen[]>();
const runs = new Map<string, { result: CliResult; record: CertificationRecord; dir: string }>();

/** Forwards to the reference server and notes, per run (by the X-Run header), what reached it. */
function startRelay(upstream: URL): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const run = String(incoming.headers['x-run'] ?? 'preflight').replace(/^gate-run-/, '');
    seen.set(run, [
      ...(seen.get(run) ?? []),
      { method: incoming.method ?? '', gatewayKey: incoming.headers['x-gateway-key'] as string | undefined },
    ]);
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        // The "accepted" run's target answers every creation 202 Accepted, without a body.
        if (run === 'accepted' && answer.statusCode === 201) {
          answer.resume();
          outgoing.writeHead(202).end();
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function targetFile(name: string, waivers: string): string {
  const path = join(root, `${name}.yaml`);
  const fixtures = Object.entries(REFERENCE_FIXTURES).map(([kind, id]) => `  ${kind}: ${id}\n`);
  writeFileSync(path, `baseUrl: ${baseUrl}\n${fixtures.length > 0 ? `fixtures:\n${fixtures.join('')}` : ''}${waivers}`);
  return path;
}

const waiver = (expires: string, requirement = FAULTED) =>
  `waivers:\n  - requirement: ${requirement}\n    reason: the filter becomes required in release 4.2\n    expires: "${expires}"\n`;

/** A target file of waivers alone, for a run of the embedded reference server. */
function waiversFile(name: string, waivers: string): string {
  const path = join(root, `${name}.yaml`);
  writeFileSync(path, waivers);
  return path;
}

const GENERATED_FAULT = FAULTS.find((f) => f.name === 'meta-pages-rounded-down');
/** The list whose generated inputs the fault breaks too, and the requirement it breaks there. */
const generatedList = lists.find((l) => l.roles.metaPages === GENERATED_FAULT?.requirement);
const GENERATED_BROKEN = generatedList?.roles.metaPages ?? '';
const GENERATED_LISTED = 'list whose meta.pages the fault meta-pages-rounded-down breaks';
const generatedBaseline = () => join(root, 'generated-baseline.json');

/**
 * A run of the embedded reference server with GENERATED_FAULT: its cases of GENERATED_BROKEN and the list's generated
 * inputs.
 */
async function generatedRun(name: string, args: string[]): Promise<void> {
  const dir = join(root, name);
  const selection = [
    '--grep',
    `${GENERATED_BROKEN}|${generatedList?.operationId}: inputs generated`,
    '--allow-partial',
  ];
  const generation = ['--generate', '5', '--seed', '1'];
  const result = await runCli([
    'run',
    '--reference-server',
    '--fault',
    GENERATED_FAULT!.name,
    ...selection,
    ...generation,
    '--report-dir',
    dir,
    '--workers',
    '1',
    ...args,
  ]);
  runs.set(name, {
    result,
    dir,
    record: JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as CertificationRecord,
  });
}

async function run(name: string, args: string[]): Promise<void> {
  const dir = join(root, name);
  const result = await runCli(
    [
      'run',
      '--generate',
      '0',
      '--report-dir',
      dir,
      '--workers',
      '1',
      '--header',
      `X-Run: gate-run-${name}`,
      '--header',
      `X-Gateway-Key: ${GATEWAY_KEY}`,
      ...args,
    ],
    {
      LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken,
      LAS_PAT: DEFAULT_CREDENTIALS.pat,
    },
  );
  runs.set(name, {
    result,
    dir,
    record: JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as CertificationRecord,
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-gate-'));
  if (runnable === undefined) return;
  const faults = filtered === undefined ? [] : [FILTER_FAULT!.name];
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0, faults });
  relay = await startRelay(new URL(reference.baseUrl));
  baseUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/v3`;
  const baseline = join(root, 'baseline.json');
  writeFileSync(
    baseline,
    JSON.stringify({
      verdict: 'failed',
      requirements: [
        {
          id: FAULTED,
          level: 'MUST',
          verdict: 'failed',
          evidence: [{ case: 'c', message: 'served without a filter' }],
        },
      ],
    }),
  );
  const grep = ['--grep', FAULTED_GREP];
  const failing = {
    id: GENERATED_BROKEN,
    level: 'MUST',
    verdict: 'failed',
    evidence: [{ case: 'c', message: 'pages rounded down' }],
  };
  writeFileSync(generatedBaseline(), JSON.stringify({ verdict: 'failed', requirements: [failing] }));
  const faultedRuns = () => [
    run('waived', ['--target', targetFile('waived', waiver('2999-12-31')), ...grep, '--allow-partial']),
    run('expired', ['--target', targetFile('expired', waiver('2000-01-01')), ...grep, '--allow-partial']),
    run('baseline', ['--target', targetFile('baseline', ''), ...grep, '--allow-partial', '--baseline', baseline]),
  ];
  const generatedRuns = () => [
    generatedRun('generated-waived', [
      '--target',
      waiversFile('generated-waived', waiver('2999-12-31', GENERATED_BROKEN)),
    ]),
    generatedRun('generated-baseline', ['--baseline', generatedBaseline()]),
    generatedRun('generated-failing', []),
  ];
  await Promise.all([
    ...(filtered === undefined ? [] : faultedRuns()),
    run('read-only', [
      '--target',
      targetFile('read-only', ''),
      '--grep',
      [...CREATED, 'AUTH-SESSION-ACCEPTED'].join('|'),
      '--read-only',
    ]),
    run('accepted', ['--target', targetFile('accepted', ''), '--grep', CREATED.join('|'), '--allow-partial']),
    ...(generatedList === undefined ? [] : generatedRuns()),
  ]);
}, 300_000);

afterAll(async () => {
  if (relay !== undefined) {
    relay.closeAllConnections();
    await new Promise((resolve) => relay.close(resolve));
  }
  await reference?.close();
  rmSync(root, { recursive: true, force: true });
});

const verdictOf = (record: CertificationRecord, id: string) => record.requirements.find((r) => r.id === id)!;

/** A test of the runs against the filter's fault: skipped, saying so, when no run or no such list can be had. */
const itFaulted = itWith(runnable && filtered, `${runnable ? FILTERED : RUN_NEEDS}`);

describe('waivers', () => {
  itFaulted(
    'an active waiver: the failure is reported waived, the verdict stays failed, the gate passes (exit 0)',
    () => {
      const { result, record } = runs.get('waived')!;
      expect(record.verdict).toBe('failed');
      expect(verdictOf(record, FAULTED)).toMatchObject({
        verdict: 'failed',
        waiver: { active: true, expires: '2999-12-31' },
      });
      expect(record.gate).toMatchObject({ result: 'pass', waived: [FAULTED] });
      expect(result.stdout).toMatch(
        /^Verdict: PASSED by the gate, which sets the exit code: no failure left \(1 failure waived\)\n {2}before waivers: FAILED: /m,
      );
      expect(result.code).toBe(0);
    },
  );

  itFaulted('an expired waiver hides nothing: exit 1', () => {
    const { result, record } = runs.get('expired')!;
    expect(record.gate).toMatchObject({ result: 'fail', expiredWaivers: [FAULTED] });
    expect(result.code).toBe(1);
  });

  it('a waiver naming no requirement of the catalogue is a usage error', async () => {
    const result = await runCliInProcess(
      [
        'run',
        '--target',
        targetFile('unknown', 'waivers:\n  - requirement: NO-SUCH-ID\n    reason: r\n    expires: "2999-01-01"\n'),
      ],
      { LAS_SESSION_TOKEN: 'a-session', LAS_PAT: 'a-pat' },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(
      /^las-conformance: target file .*unknown\.yaml: waiver for NO-SUCH-ID, which is no requirement of the catalogue/,
    );
  });
});

// The gate as it was decided, in every report: the only failure accepted (a waiver, the baseline)
// shows nowhere as a plain failure. junit files are read by a JUnit consumer, the certificate in a
// browser.
const ACCEPTED_RUNS: [string, string, RegExp][] = [
  ['waived', 'waived', /^waived until 2999-12-31: the filter becomes required in release 4\.2$/],
  ['baseline', 'known failure', /^known failure in the baseline .*baseline\.json$/],
];

for (const [name, kind, why] of ACCEPTED_RUNS) {
  describe(`the only failure ${kind}: exit 0 and no report shows it as a plain failure`, () => {
    itFaulted(
      'junit.xml (a JUnit consumer): no red test; the requirement is skipped, with how the gate took it',
      () => {
        const { dir, result } = runs.get(name)!;
        expect(result.code).toBe(0);
        const junit = readJunit(join(dir, 'junit.xml'));
        expect(redCases(junit).map((c) => c.name)).toEqual([]);
        const faulted = junitCases(junit).find((c) => c.name.startsWith(`${FAULTED} `))!;
        expect(faulted.status).toBe('SKIP');
        expect(faulted.metadata).toMatchObject({ verdict: kind, gate: expect.stringMatching(why) });
        expect(junitCases(junit).some((c) => c.duration > 0)).toBe(true);
      },
    );

    itFaulted("junit-cases.xml (Playwright's, per case, a JUnit consumer): no red case", () => {
      const { dir } = runs.get(name)!;
      const cases = readJunit(join(dir, 'junit-cases.xml'));
      expect(junitCases(cases).length).toBeGreaterThan(0);
      expect(redCases(cases).map((c) => c.name)).toEqual([]);
    });

    itFaulted('summary.md and the console list it apart, with why, never among failed requirements', () => {
      const { dir, result } = runs.get(name)!;
      const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(
        summary.slice(summary.indexOf('## Failed and not-run'), summary.indexOf('## Failures the gate accepts')),
      ).not.toContain(`| ${FAULTED} |`);
      expect(summary).toMatch(new RegExp(`^\\| ${FAULTED} \\| MUST \\| [\\d.]+ \\| ${kind} \\| `, 'm'));
      expect(result.stdout).not.toContain('Failed requirements');
      expect(result.stdout).toMatch(
        new RegExp(`^Failures the gate accepts \\(1\\):\n  ${FAULTED} \\(MUST, section [\\d.]+\\): `, 'm'),
      );
    });

    it.skipIf(!browserTestsRun || filtered === undefined || runnable === undefined)(
      'certification.html in a browser: the banner, badge, count and reason say how the gate took it',
      async () => {
        const { dir } = runs.get(name)!;
        const browser = await launchBrowser();
        try {
          const page = await browser.newPage();
          await page.goto(pathToFileURL(join(dir, 'certification.html')).href);
          expect(await page.locator('#verdict').getAttribute('class')).toBe('banner accepted');
          expect(await page.locator('#gate').textContent()).toMatch(/^Gate: PASS: /);
          const row = page.locator(`#requirements tr[data-requirement="${FAULTED}"]`);
          expect(await row.locator('.badge').textContent()).toBe(kind);
          expect(await row.locator('.accepted-why').textContent()).toMatch(why);
          expect(await page.locator('#requirements .badge.failed').count()).toBe(0);
          const must = page.locator('#tally tbody tr', { hasText: 'MUST' });
          expect(await must.locator(`td.${kind.replace(' ', '-')}`).textContent()).toBe('1');
          expect(await must.locator('td.failed').count()).toBe(0);
          expect(await page.locator(`#attention #evidence-${FAULTED} .reason`).textContent()).toMatch(why);
        } finally {
          await browser.close();
        }
      },
    );
  });
}

// The generated inputs break the requirement too: junit.xml has a test case for it in the
// generated suite, and still the requirement fails once, or not at all when the gate accepts it.
const GENERATED_CASE = `${generatedList?.operationId} · ${GENERATED_BROKEN}`;
/** A test of the runs with generated inputs: skipped, saying so, when no run or no such list can be had. */
const itGenerated = itWith(runnable && generatedList, runnable ? GENERATED_LISTED : RUN_NEEDS);

describe('runs with generated inputs, read by a JUnit consumer', () => {
  for (const name of ['generated-waived', 'generated-baseline']) {
    itGenerated(`${name}: exit 0, no failure in junit.xml or junit-cases.xml, the generated case skipped`, () => {
      const { dir, result } = runs.get(name)!;
      expect(result.code).toBe(0);
      const junit = readJunit(join(dir, 'junit.xml'));
      expect(junit.failed).toBe(0);
      expect(redCases(junit).map((c) => c.name)).toEqual([]);
      expect(junitCases(junit).find((c) => c.name === GENERATED_CASE)?.status).toBe('SKIP');
      const cases = readJunit(join(dir, 'junit-cases.xml'));
      expect(cases.failed).toBe(0);
      expect(redCases(cases).map((c) => c.name)).toEqual([]);
    });
  }

  itGenerated("generated-failing: exit 1, and junit.xml has exactly one failure, the requirement's", () => {
    const { dir, result } = runs.get('generated-failing')!;
    expect(result.code).toBe(1);
    const junit = readJunit(join(dir, 'junit.xml'));
    expect(junit.failed).toBe(1);
    expect(redCases(junit).map((c) => c.name.split(' ')[0])).toEqual([GENERATED_BROKEN]);
    expect(junitCases(junit).find((c) => c.name === GENERATED_CASE)?.status).toBe('SKIP');
  });
});

describe('--baseline and --allow-partial', () => {
  itFaulted('a failure the baseline already had does not fail the gate; the selection is accepted and recorded', () => {
    const { result, record } = runs.get('baseline')!;
    expect(record).toMatchObject({
      verdict: 'failed',
      selection: { whole: false, grep: FAULTED_GREP },
    });
    expect(record.gate).toMatchObject({
      result: 'pass',
      allowPartial: true,
      baseline: { knownFailures: [FAULTED], newlyFailing: [] },
    });
    expect(result.code).toBe(0);
  });
});

/** A test of the runs of creations: skipped, saying so, when no run or no create can be had. */
const itCreating = itWith(runnable && create, runnable ? 'create' : RUN_NEEDS);

/** A read-only run judges the credentials on a list: with none it has no case to run. */
const itReadingAndCreating = itWith(lists.length > 0 ? create : undefined, 'list and create');

describe('--read-only', () => {
  itReadingAndCreating(
    'sends no request that could create a record, and reports the creation cases not run: exit 3',
    () => {
      const { result, record } = runs.get('read-only')!;
      expect(seen.get('read-only')?.some((s) => s.method !== 'GET')).toBe(false);
      for (const id of CREATED)
        expect(verdictOf(record, id), id).toMatchObject({ verdict: 'not-run', reason: READ_ONLY_REASON });
      expect(verdictOf(record, 'AUTH-SESSION-ACCEPTED').verdict).toBe('passed');
      expect(record).toMatchObject({
        verdict: 'incomplete',
        selection: { readOnly: true, whole: false },
        gate: { result: 'incomplete' },
      });
      expect(result.code).toBe(3);
    },
  );
});

describe('a target that answers creations 202 Accepted', () => {
  itCreating(
    'passes the status, records the 202, and reports what only a 201 body shows as not run, with the reason',
    () => {
      const { result, record } = runs.get('accepted')!;
      for (const id of CREATED) expect(verdictOf(record, id).verdict, id).toBe('passed');
      expect(verdictOf(record, 'CREATE-202-ACCEPTED').evidence.length).toBeGreaterThan(0);
      for (const id of [...SHOWN_BY_201, 'RES-ID-STRING']) {
        expect(verdictOf(record, id), id).toMatchObject({
          verdict: 'not-run',
          byTargetChoice: true,
          reason: expect.stringMatching(
            /^the target answered 202 Accepted, whose body the specification does not show/,
          ),
        });
      }
      // 202 is the target's legal choice, not a gap in the run's inputs: the verdict is not incomplete for it
      // (this run is incomplete for its --grep alone).
      expect(record.notRun.filter((id) => SHOWN_BY_201.includes(id))).toEqual([]);
      expect(record).toMatchObject({ verdict: 'incomplete', gate: { result: 'pass', allowPartial: true } });
      expect(result.code).toBe(0);
    },
  );
});

describe('--header', () => {
  itWith(runnable, RUN_NEEDS)(
    'reaches the target with every request, is recorded by name only, and its value is written nowhere',
    () => {
      for (const name of runs.keys())
        if (!name.startsWith('generated-'))
          expect(
            // A read-only run of a contract with no list sends nothing.
            (seen.get(name) ?? []).every((s) => s.gatewayKey === GATEWAY_KEY),
            name,
          ).toBe(true);
      const { record } = runs.get('accepted')!;
      expect(record.inputs.headers).toEqual(['X-Run', 'X-Gateway-Key']);
      for (const { dir, result } of runs.values())
        expect(leaksOf([GATEWAY_KEY], reportFiles(dir), result.stdout + result.stderr)).toEqual([]);
    },
  );
});
