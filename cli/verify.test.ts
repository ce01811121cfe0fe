// `las-conformance verify` on records real runs wrote: the suite against the reference server with
// one fault (meta-pages-rounded-down breaks the meta.pages of a list), selected by --requirement so each run
// takes seconds. The first run signs its record; the second reuses the report directory unsigned.
// Every member a record says something about itself in, edited alone, fails verify naming it; the
// issue's forged record (one failure flipped to passed, verdict, gate and tallies made to agree)
// fails even unsigned; a signed record verifies with its public key only, and no longer after any
// byte of record or envelope changed, the relabelled target included.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import {
  gateRecord,
  runVerdict,
  verdictReason,
  type CertificationRecord,
  type RequirementRecord,
} from '../reports/record.ts';
import { ENVELOPE_FILE, RECORD_FILE } from '../run-protocol/index.ts';
import { FAULTS } from '../server/index.ts';
import { contract, itWith, lists } from '../contract/test-support.ts';
import { runCli, type CliResult } from './test-support.ts';
import { verifyCommand } from './verify.ts';

const FAULT = 'meta-pages-rounded-down';
/** The list whose meta.pages the fault breaks, when the contract has one (a run needs a list all the same). */
const rounded = lists.find((l) => l.roles.metaPages === FAULTS.find((f) => f.name === FAULT)?.requirement);
/** The requirement the fault breaks (empty without such a list: every test is skipped). */
const BROKEN = rounded?.roles.metaPages ?? '';
const SECTION = rounded === undefined ? '' : contract.requirement(BROKEN).section;
/** A test of the runs' records, skipped, saying so, when the contract has no list for the fault to break. */
const itVerifies = itWith(rounded, `list whose meta.pages the fault ${FAULT} breaks`);

let root: string;
let signedDir: string;
let reusedDir: string;
let keyFile: string;
let publicKeyFile: string;
let otherPublicKeyFile: string;
let signedRun: CliResult;
let unsignedRun: CliResult;
let signed: { bytes: Buffer; record: CertificationRecord; envelope: string };
let unsigned: CertificationRecord;

function pem(key: ReturnType<typeof generateKeyPairSync>['privateKey'], type: 'pkcs8' | 'spki'): string {
  return key.export({ type, format: 'pem' }).toString();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'las-verify-'));
  if (rounded === undefined) return;
  const keys = generateKeyPairSync('ed25519');
  keyFile = join(root, 'signing-key.pem');
  publicKeyFile = join(root, 'signing-key.pub.pem');
  otherPublicKeyFile = join(root, 'other.pub.pem');
  writeFileSync(keyFile, pem(keys.privateKey, 'pkcs8'));
  writeFileSync(publicKeyFile, pem(keys.publicKey, 'spki'));
  writeFileSync(otherPublicKeyFile, pem(generateKeyPairSync('ed25519').publicKey, 'spki'));
  // The signed run writes where a person's first run does: a new folder under reports/ of the
  // directory it is run from, reports/latest pointing at it; the unsigned run reuses that folder.
  reusedDir = join(root, 'reports', 'latest');
  const run = (extra: string[], cwd?: string) =>
    runCli(
      ['run', '--reference-server', '--fault', FAULT, '--requirement', BROKEN, '--workers', '1', ...extra],
      {},
      cwd,
    );
  signedRun = await run(['--signing-key', keyFile], root);
  signedDir = join(root, 'signed');
  mkdirSync(signedDir);
  for (const name of [RECORD_FILE, ENVELOPE_FILE]) copyFileSync(join(reusedDir, name), join(signedDir, name));
  const bytes = readFileSync(join(signedDir, RECORD_FILE));
  signed = {
    bytes,
    record: JSON.parse(bytes.toString()) as CertificationRecord,
    envelope: readFileSync(join(signedDir, ENVELOPE_FILE), 'utf8'),
  };
  writeFileSync(join(reusedDir, 'notes.txt'), 'a file of the user');
  unsignedRun = await run(['--report-dir', reusedDir]);
  unsigned = JSON.parse(readFileSync(join(reusedDir, RECORD_FILE), 'utf8')) as CertificationRecord;
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

let written = 0;
/**
 * Writes a record (an object, or bytes as they are) to a directory of its own (or the one named, again), with the
 * envelope given, if any.
 */
function place(record: unknown, envelope?: string, name = `edited-${written++}`): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, RECORD_FILE), Buffer.isBuffer(record) ? record : `${JSON.stringify(record, null, 2)}\n`);
  if (envelope !== undefined) writeFileSync(join(dir, ENVELOPE_FILE), envelope);
  return join(dir, RECORD_FILE);
}

/** verify's exit code, 2 for a file it cannot read as a record at all. */
function verifyCode(file: string, key?: string): number {
  try {
    return verifyCommand(file, key ? { key } : {}).code;
  } catch {
    return 2;
  }
}

function requirement(record: CertificationRecord, id: string): RequirementRecord {
  return record.requirements.find((r) => r.id === id)!;
}

function withRequirement(
  record: CertificationRecord,
  id: string,
  change: Partial<RequirementRecord>,
): CertificationRecord {
  return { ...record, requirements: record.requirements.map((r) => (r.id === id ? { ...r, ...change } : r)) };
}

/** A MUST requirement the run passed, and one it did not select. */
const passedMust = (record: CertificationRecord) =>
  record.requirements.find((r) => r.level === 'MUST' && r.verdict === 'passed')!.id;
const unselected = (record: CertificationRecord) =>
  record.requirements.find((r) => r.verdict === 'not-run' && r.reason?.startsWith('its cases were not selected'))!.id;

describe('the runs', () => {
  itVerifies(
    "failed the requirement the fault breaks, with failed cases, and the second found the first one's files and cleared only them",
    () => {
      expect(signedRun.code).toBe(1);
      expect(unsignedRun.code).toBe(1);
      expect(unsigned).toMatchObject({
        verdict: 'failed',
        runStatus: 'failed',
        target: { embedded: true, faults: [FAULT] },
      });
      expect(unsigned.cases.failed).toBeGreaterThan(0);
      expect(unsignedRun.stdout.split('\n')[0]).toMatch(
        /^Cleared the earlier run's conformance\.json, conformance\.intoto\.jsonl, summary\.md, junit\.xml, junit-cases\.xml, certification\.html, run\.log, html, artifacts from /,
      );
      expect(existsSync(join(reusedDir, ENVELOPE_FILE))).toBe(false);
      expect(readFileSync(join(reusedDir, 'notes.txt'), 'utf8')).toBe('a file of the user');
    },
  );

  itVerifies(
    'each names the target and whether its record is signed in the first lines of the console, summary.md and certification.html',
    () => {
      const target = unsigned.target.baseUrl;
      const closing = (out: string) => out.slice(out.lastIndexOf('\nTarget: ') + 1).split('\n');
      expect(closing(unsignedRun.stdout).slice(0, 2)).toEqual([
        `Target: ${target} (the embedded reference server)`,
        'Record: unsigned (self-reported): no signature vouches for this record, only whoever ran the kit',
      ]);
      expect(closing(signedRun.stdout)[1]).toMatch(
        /^Record: signed by key [0-9a-f]{16}… in conformance\.intoto\.jsonl; las-conformance verify conformance\.json --key PUBLIC_KEY checks it$/,
      );
      const summary = readFileSync(join(reusedDir, 'summary.md'), 'utf8').split('\n');
      expect(summary[2]).toBe(
        `Target: \`${target}\` (the embedded reference server). Record: **unsigned (self-reported): no signature vouches for this record, only whoever ran the kit**.`,
      );
      const header =
        /<header id="verdict".*?<\/header>/s.exec(readFileSync(join(reusedDir, 'certification.html'), 'utf8'))?.[0] ??
        '';
      expect(header).toContain(
        `<p id="record-target">Target <code>${target}</code> (the embedded reference server)</p><p id="signature" class="unsigned">Unsigned (self-reported): no signature vouches for this record, only whoever ran the kit</p>`,
      );
    },
  );
});

describe('the console names every file a run wrote', () => {
  const listed = (out: string) =>
    out
      .slice(out.lastIndexOf('\nReports') + 1)
      .trimEnd()
      .split('\n');
  const written = [
    'conformance.json',
    'summary.md',
    'certification.html',
    'junit.xml',
    'junit-cases.xml',
    'html/index.html',
    'run.log',
  ];

  itVerifies('a run without --report-dir: through reports/latest, the envelope after the record', () => {
    const latest = join(root, 'reports', 'latest');
    const [heading, ...files] = listed(signedRun.stdout);
    expect(heading).toMatch(
      new RegExp(`^Reports, in ${latest}/ \\(${join(root, 'reports')}/\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z\\):$`),
    );
    const names = [written[0], ENVELOPE_FILE, ...written.slice(1)];
    expect(files).toEqual(names.map((name) => `  ${join(latest, name)}`));
    // The unsigned run has since reused the folder, and taken the envelope away with the earlier record.
    expect(written.filter((name) => !existsSync(join(latest, name)))).toEqual([]);
  });

  itVerifies('a run with --report-dir: in that folder, no envelope when unsigned', () => {
    expect(listed(unsignedRun.stdout)).toEqual(['Reports:', ...written.map((name) => `  ${join(reusedDir, name)}`)]);
  });
});

describe('verify, unsigned', () => {
  itVerifies('answers a record as the kit wrote it: exit 0, with the words unsigned (self-reported)', () => {
    const { code, output } = verifyCommand(join(reusedDir, RECORD_FILE));
    expect(code).toBe(0);
    expect(output).toMatch(
      /^\S+conformance\.json verifies, unsigned \(self-reported\): target http:\/\/127\.0\.0\.1:\d+\/v3 \(the embedded reference server\), verdict failed, gate fail, /,
    );
  });

  // Each member a record says something about itself in, edited alone: verify fails naming it.
  const edits: [string, (r: CertificationRecord) => unknown, RegExp][] = [
    ['verdict', (r) => ({ ...r, verdict: 'passed' }), /^ {2}verdict: passed, but its requirements make it failed$/m],
    [
      'verdictReason',
      (r) => ({ ...r, verdictReason: 'no MUST requirement failed' }),
      /^ {2}verdictReason: it does not follow from its requirements/m,
    ],
    [
      'notRun',
      (r) => ({ ...r, notRun: [] }),
      /^ {2}notRun: it lists none, but the requirements the run had to check at failLevel MUST and did not are /m,
    ],
    ['failLevel', (r) => ({ ...r, failLevel: 'SHOULD' }), /^ {2}notRun: .* at failLevel SHOULD /m],
    ['runStatus', (r) => ({ ...r, runStatus: 'passed' }), /^ {2}runStatus: passed, but its cases say \d+ failed$/m],
    [
      'tally',
      (r) => ({ ...r, tally: { ...r.tally, MUST: { ...r.tally.MUST, failed: 0 } } }),
      /^ {2}tally\.MUST\.failed: 0, but its requirements say 1$/m,
    ],
    [
      'cases.total',
      (r) => ({ ...r, cases: { ...r.cases, total: r.cases.total + 1 } }),
      /^ {2}cases\.total, \.passed, \.failed, \.notRun: \d+ passed, \d+ failed and 0 not run make \d+, not \d+$/m,
    ],
    [
      'cases.failed',
      (r) => ({ ...r, cases: { ...r.cases, failed: 0 } }),
      /^ {2}cases\.total, \.passed, \.failed, \.notRun: \d+ passed, 0 failed and 0 not run make \d+, not \d+$/m,
    ],
    [
      'cases.passed',
      (r) => ({ ...r, cases: { ...r.cases, passed: r.cases.passed + 1 } }),
      /^ {2}cases\.total, \.passed, \.failed, \.notRun: /m,
    ],
    [
      'gate.result',
      (r) => ({ ...r, gate: { ...r.gate, result: 'pass' } }),
      /^ {2}gate\.result: "pass", but its verdict \(failed\), waivers, baseline and allowPartial \(false\) make it "fail"$/m,
    ],
    [
      'gate.reason',
      (r) => ({ ...r, gate: { ...r.gate, reason: 'nothing failed' } }),
      /^ {2}gate\.reason: "nothing failed", but /m,
    ],
    [
      'gate.waived',
      (r) => ({ ...r, gate: { ...r.gate, waived: [BROKEN] } }),
      new RegExp(`^ {2}gate\\.waived: \\["${BROKEN}"\\], but .* make it \\[\\]$`, 'm'),
    ],
    [
      'gate.allowPartial',
      (r) => ({ ...r, gate: { ...r.gate, allowPartial: true, result: 'pass' } }),
      /^ {2}gate\.result: "pass", but its verdict \(failed\), waivers, baseline and allowPartial \(true\) make it "fail"$/m,
    ],
    [
      'gate.baseline',
      (r) => ({
        ...r,
        gate: {
          ...r.gate,
          baseline: { file: 'old.json', knownFailures: ['AUTH-401-NO-CREDENTIALS'], newlyFailing: [] },
        },
      }),
      /^ {2}gate\.baseline\.knownFailures: \["AUTH-401-NO-CREDENTIALS"\], but .* make it \[\]$/m,
    ],
    [
      "a failed requirement's verdict",
      (r) => withRequirement(r, BROKEN, { verdict: 'passed' }),
      new RegExp(`^ {2}/requirements/\\d+ \\(${BROKEN}, verdict passed\\)/broken: must be equal to constant$`, 'm'),
    ],
    [
      "a failed requirement's verdict and broken count",
      (r) => withRequirement(r, BROKEN, { verdict: 'passed', broken: 0 }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.verdict: passed, but it holds \\d+ findings$`, 'm'),
    ],
    [
      "a passed requirement's verdict",
      (r) => withRequirement(r, passedMust(r), { verdict: 'not-run', reason: 'no forbidden credential configured' }),
      /^ {2}requirements\/[A-Z0-9-]+\.verdict: not run, but it was judged on \d+ exchanges?, 0 broken, with 0 findings$/m,
    ],
    [
      "a requirement's level",
      (r) => withRequirement(r, passedMust(r), { level: 'SHOULD' }),
      /^ {2}requirements\/[A-Z0-9-]+\.level: SHOULD, the catalogue's is MUST$/m,
    ],
    [
      "a requirement's section",
      (r) => withRequirement(r, BROKEN, { section: `${SECTION}.9` }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.section: ${SECTION}\\.9, the catalogue's is ${SECTION}$`, 'm'),
    ],
    [
      "a requirement's text",
      (r) => withRequirement(r, BROKEN, { text: 'meta.pages may be anything' }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.text: it is not the catalogue's text$`, 'm'),
    ],
    [
      "a requirement's id",
      (r) => withRequirement(r, BROKEN, { id: BROKEN.slice(0, -1) }),
      new RegExp(
        `^ {2}requirements/\\d+\\.id: ${BROKEN.slice(0, -1)}, the catalogue's requirement there is ${BROKEN}$`,
        'm',
      ),
    ],
    [
      "a requirement's judged count",
      (r) => withRequirement(r, BROKEN, { judged: 1 }),
      new RegExp(
        `^ {2}requirements/${BROKEN}\\.judged, \\.broken: \\d+ exchanges broke it, more than the 1 judged$`,
        'm',
      ),
    ],
    [
      "a requirement's broken count",
      (r) => withRequirement(r, BROKEN, { broken: 0 }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.broken: 0, but it holds findings`, 'm'),
    ],
    [
      "a requirement's evidence",
      (r) => withRequirement(r, BROKEN, { evidence: [] }),
      new RegExp(
        `^ {2}/requirements/\\d+ \\(${BROKEN}, verdict failed\\)/evidence: must NOT have fewer than 1 items$`,
        'm',
      ),
    ],
    [
      "a requirement's evidenceOmitted",
      (r) => withRequirement(r, BROKEN, { evidenceOmitted: 3 }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.evidenceOmitted: findings are counted only past the first 25`, 'm'),
    ],
    [
      "a not-run requirement's reason",
      (r) => withRequirement(r, unselected(r), { reason: 'its cases were not selected (--grep "AUTH")' }),
      new RegExp(
        '^ {2}requirements/[A-Z0-9-]+\\.reason: "its cases were not selected \\(--grep "AUTH"\\)", ' +
          `but the selection makes it "its cases were not selected \\(--requirement ${BROKEN}\\)"$`,
        'm',
      ),
    ],
    [
      "a requirement's notExercised",
      (r) => withRequirement(r, passedMust(r), { notExercised: true }),
      /^ {2}requirements\/[A-Z0-9-]+\.notExercised: /m,
    ],
    [
      "a requirement's byTargetChoice",
      (r) => withRequirement(r, passedMust(r), { byTargetChoice: true }),
      /^ {2}requirements\/[A-Z0-9-]+\.byTargetChoice: only a requirement not run/m,
    ],
    [
      "a requirement's waiver",
      (r) => withRequirement(r, BROKEN, { waiver: { reason: 'later', expires: '2020-01-01', active: true } }),
      new RegExp(`^ {2}requirements/${BROKEN}\\.waiver\\.active: true, but it expires 2020-01-01`, 'm'),
    ],
    [
      'selection.whole',
      (r) => ({ ...r, selection: { ...r.selection, whole: true } }),
      /^ {2}selection\.whole: true, but it names a --grep, --requirement/m,
    ],
    [
      'selection.requirements',
      (r) => ({ ...r, selection: { whole: false, readOnly: false } }),
      /^ {2}selection\.whole: false, but it names no --grep/m,
    ],
    [
      'contract.sha256',
      (r) => ({ ...r, contract: { sha256: 'b'.repeat(64) } }),
      /^ {2}contract\.sha256: judged by another contract/m,
    ],
    [
      'spec.version',
      (r) => ({ ...r, spec: { ...r.spec, version: '3.1.0' } }),
      /^ {2}spec\.version: 3\.1\.0, the contract's is /m,
    ],
    [
      'spec.title',
      (r) => ({ ...r, spec: { ...r.spec, title: 'Another API' } }),
      /^ {2}spec\.title: Another API, the contract's is /m,
    ],
    [
      'startedAt',
      (r) => ({ ...r, startedAt: new Date(Date.parse(r.startedAt) - 3_600_000).toISOString() }),
      /^ {2}startedAt, finishedAt, durationMs: /m,
    ],
    [
      'finishedAt',
      (r) => ({ ...r, finishedAt: new Date(Date.parse(r.finishedAt) + 3_600_000).toISOString() }),
      /^ {2}startedAt, finishedAt, durationMs: /m,
    ],
    [
      'durationMs',
      (r) => ({ ...r, durationMs: r.durationMs * 10 + 1000 }),
      /^ {2}startedAt, finishedAt, durationMs: /m,
    ],
    [
      'target.embedded',
      (r) => ({ ...r, target: { ...r.target, embedded: false } }),
      /^ {2}target\.embedded: false, but it names faults meta-pages-rounded-down/m,
    ],
    [
      'target.baseUrl of the embedded server',
      (r) => ({ ...r, target: { ...r.target, baseUrl: 'https://api.vendor.example/v3' } }),
      /^ {2}target\.baseUrl: https:\/\/api\.vendor\.example\/v3, but the embedded reference server listens on this machine only$/m,
    ],
    ['format', (r) => ({ ...r, format: 2 }), /^ {2}\/format: must be equal to one of the allowed values$/m],
  ];
  for (const [member, edit, problem] of edits) {
    itVerifies(`fails for ${member} edited alone, naming it: exit 1`, () => {
      const { code, output } = verifyCommand(place(edit(unsigned)));
      expect(code).toBe(1);
      expect(output).toMatch(/^\S+ does not verify:\n/);
      expect(output).toMatch(problem);
    });
  }

  itVerifies(
    'fails the forged record of the issue even unsigned: a failure flipped to passed, verdict, gate and tallies made to agree, its cases still failed',
    () => {
      const flipped = withRequirement(unsigned, BROKEN, {
        verdict: 'passed',
        evidence: [],
        broken: 0,
        evidenceOmitted: undefined,
      });
      const forged = agreeing(flipped);
      const { code, output } = verifyCommand(place(forged));
      expect(code).toBe(1);
      expect(output.trimEnd().split('\n').slice(1)).toEqual([
        expect.stringMatching(/^ {2}cases\.failed: \d+, but no requirement holds a finding that fails a case$/),
      ]);
    },
  );
});

/**
 * The record with tally, notRun, verdict, its reason and the gate made to agree with its requirements, as a forger who
 * read this kit would.
 */
function agreeing(record: CertificationRecord): CertificationRecord {
  const tally = structuredClone(record.tally);
  for (const level of Object.keys(tally) as (keyof typeof tally)[])
    for (const verdict of Object.keys(tally[level]) as (keyof (typeof tally)['MUST'])[])
      tally[level][verdict] = record.requirements.filter((r) => r.level === level && r.verdict === verdict).length;
  const failed = record.requirements.filter((r) => r.level === 'MUST' && r.verdict === 'failed').map((r) => r.id);
  const verdict = runVerdict({ blocking: failed, notRun: record.notRun, runStatus: record.runStatus, ranAny: true });
  const reason = verdictReason({
    blocking: failed,
    failed,
    warned: [],
    notRun: record.notRun,
    complete: true,
    runStatus: record.runStatus,
  });
  return {
    ...record,
    tally,
    verdict,
    verdictReason: reason,
    gate: gateRecord(verdict, failed, record.requirements, {
      allowPartial: false,
      waivers: [],
      today: record.finishedAt.slice(0, 10),
    }),
  };
}

describe('verify --seed, the seed a buyer chose', () => {
  itVerifies(
    'a record drawn from that seed with the default count and budgets verifies; asked for another, not',
    () => {
      const file = join(reusedDir, RECORD_FILE);
      expect(unsigned.generated, 'the run generated inputs').toBeDefined();
      const seed = unsigned.generated!.seed;
      const same = verifyCommand(file, { seed });
      const said = `generated inputs from seed ${seed} with at least the default count and budgets`;
      expect(same.output).toMatch(new RegExp(`verifies, unsigned \\(self-reported\\), ${said}: `));
      expect(same.code).toBe(0);
      const other = verifyCommand(file, { seed: seed + 1 });
      expect(other.code).toBe(1);
      const problem = `^ {2}generated\\.seed: the inputs were drawn from seed ${seed}, not ${seed + 1}$`;
      expect(other.output).toMatch(new RegExp(problem, 'm'));
    },
  );
});

describe('verify --key, a signed record', () => {
  itVerifies('verifies with its public key: exit 0, signed by that key', () => {
    const { code, output } = verifyCommand(join(signedDir, RECORD_FILE), { key: publicKeyFile });
    expect(code).toBe(0);
    expect(output).toMatch(
      /^\S+conformance\.json verifies, signed by key [0-9a-f]{16}… \(\S+conformance\.intoto\.jsonl\): target http:\/\/127\.0\.0\.1:\d+\/v3 \(the embedded reference server\), verdict failed/,
    );
  });

  itVerifies('without --key is answered unsigned (self-reported), the envelope named as not checked', () => {
    const { code, output } = verifyCommand(join(signedDir, RECORD_FILE));
    expect(code).toBe(0);
    expect(output).toMatch(
      / verifies, unsigned \(self-reported\); \S+conformance\.intoto\.jsonl holds a signature this did not check \(give --key PUBLIC_KEY\): /,
    );
  });

  itVerifies('fails with another key, and an unsigned record fails with any', () => {
    expect(verifyCommand(join(signedDir, RECORD_FILE), { key: otherPublicKeyFile }).output).toMatch(
      /^ {2}signature: no signature by this key/m,
    );
    const result = verifyCommand(join(reusedDir, RECORD_FILE), { key: publicKeyFile });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      /^ {2}signature: there is no envelope at \S+conformance\.intoto\.jsonl: the record is unsigned \(self-reported\)$/m,
    );
  });

  itVerifies(
    "fails for the reference server's record relabelled as a vendor's (base URL changed, embedded false), which unsigned is only self-reported",
    () => {
      const relabelled = {
        ...signed.record,
        target: { baseUrl: 'https://api.vendor.example/v3', embedded: false, faults: [], choices: [] },
      };
      const file = place(relabelled, signed.envelope);
      const { code, output } = verifyCommand(file, { key: publicKeyFile });
      expect(code).toBe(1);
      expect(output).toMatch(
        /^ {2}signature: the record's SHA-256 is [0-9a-f]{64}, the signed statement names [0-9a-f]{64} for conformance\.json: the record was changed after it was signed$/m,
      );
      expect(output).toMatch(
        /^ {2}target: the signed statement says \{[^}]*"embedded":true[^}]*"baseUrl":"http:\/\/127\.0\.0\.1:\d+\/v3"\}, the record \{"baseUrl":"https:\/\/api\.vendor\.example\/v3","embedded":false,"faults":\[\],"choices":\[\]\}$/m,
      );
      expect(verifyCommand(file).output).toMatch(/ verifies, unsigned \(self-reported\)/);
    },
  );

  itVerifies('fails for the forged record a signature would have caught, which unsigned is only self-reported', () => {
    // Everything made to agree, the cases and run status too: nothing in the record gives it away.
    const flipped = withRequirement(signed.record, BROKEN, {
      verdict: 'passed',
      evidence: [],
      broken: 0,
      evidenceOmitted: undefined,
    });
    const cases = { ...flipped.cases, passed: flipped.cases.total - flipped.cases.notRun, failed: 0 };
    const forged = agreeing({ ...flipped, cases, runStatus: 'passed' });
    const file = place(forged, signed.envelope);
    expect(verifyCommand(file).output).toMatch(/ verifies, unsigned \(self-reported\)/);
    const { code, output } = verifyCommand(file, { key: publicKeyFile });
    expect(code).toBe(1);
    expect(output).toMatch(/^ {2}verdict: the signed statement says "failed", the record "incomplete"$/m);
  });

  // Every byte of an envelope, through the signature's own check, is reports/attestation.test.ts's; here, bytes spread
  // over all of it, through verify.
  itVerifies('fails after a byte of the envelope changed, wherever it is', () => {
    const bytes = Buffer.from(signed.envelope);
    const positions = [...Array.from({ length: Math.ceil(bytes.length / 13) }, (_, i) => i * 13), bytes.length - 1];
    const verified = positions.filter((at) => {
      const changed = Buffer.from(bytes);
      changed[at] ^= at === bytes.length - 1 ? 0x2c : 0x01;
      return verifyCode(place(signed.bytes, changed.toString('latin1'), 'envelope-flipped'), publicKeyFile) === 0;
    });
    expect(verified).toEqual([]);
  });

  itVerifies(
    'fails after any byte of the record changed (every byte of its target, and bytes spread over the rest)',
    () => {
      const at = (needle: string) => signed.bytes.indexOf(needle);
      const target = at(`"baseUrl": "${signed.record.target.baseUrl}"`);
      const positions = new Set<number>();
      for (let i = target; i < target + signed.record.target.baseUrl.length + 12; i++) positions.add(i);
      const stride = Math.max(1, Math.floor(signed.bytes.length / 200));
      for (let i = 0; i < signed.bytes.length; i += stride) positions.add(i);
      positions.add(signed.bytes.length - 1);
      const verified = [...positions].filter((position) => {
        const changed = Buffer.from(signed.bytes);
        changed[position] ^= 0x01;
        return verifyCode(place(changed, signed.envelope, 'record-flipped'), publicKeyFile) === 0;
      });
      expect(verified).toEqual([]);
      expect(requirement(signed.record, BROKEN).verdict).toBe('failed');
    },
    // About 240 verifications of the whole record: a contract with more operations makes a larger one.
    240_000,
  );
});
