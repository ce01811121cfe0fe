// `las-conformance verify` and `las-conformance diff` over records built in-process, and the
// report directories of `run`: a record verifies only as it was written; a regression between
// two records exits 1; each run keeps its own directory with `latest` pointing at the newest.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordKinds } from '../contract/index.ts';
import { contract, createWithRecord, itWith } from '../contract/test-support.ts';
import { buildRecord, type CaseOutcome, type CertificationRecord } from '../reports/record.ts';
import { clearKitFiles, pointLatestAt, timestampedReportDir } from '../reports/report-dirs.ts';
import { envelopeText, KEY_MAX_BYTES, signRecord } from '../reports/attestation.ts';
import { ENVELOPE_FILE, REPORT_DIR_ENTRIES } from '../run-protocol/index.ts';
import { contractSha256 } from '../reports/run-context.ts';
import type { CaseFinding } from '../run-protocol/index.ts';
import { diffCommand } from './diff.ts';
import { ENVELOPE_MAX_BYTES, verifyCommand } from './verify.ts';
import { runCli, runCliInProcess, runCliWithin, spoiledFiles } from './test-support.ts';
import { RECORD_MAX_BYTES } from './input-files.ts';

const SUITE_CHECKED = contract.requirements
  .filter((r) => !r.checkedBy || r.checkedBy.includes('suite'))
  .map((r) => r.id);
/** Two MUST requirements every operation shares, broken in the records below. */
const BROKEN = 'RES-ID-STRING';
const ALSO_BROKEN = 'ERR-ENVELOPE';
/** The exchange their findings were met on: the contract's first operation, answered with its first status. */
const exchanged = contract.operations[0];
const EXCHANGE = {
  method: exchanged.method,
  path: exchanged.pathTemplate,
  status: exchanged.statuses[0],
  curl: `curl -i -g -X ${exchanged.method} "$LAS_BASE_URL${exchanged.pathTemplate}"`,
};
/** The kinds of record the contract names, each a member of a record's inputs. */
const KINDS = recordKinds(contract.operations);
let dir: string;

function finding(requirement: string, message: string): CaseFinding {
  return { ...contract.finding(requirement, 'response', { pointer: '/data/id', message }), exchange: EXCHANGE };
}

/** `text` as a regular expression matching it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function record(findings: CaseFinding[]): CertificationRecord {
  const exercised = SUITE_CHECKED.map((requirement) => ({
    requirement,
    judged: 1,
    broken: findings.some((f) => f.requirement === requirement) ? 1 : 0,
  }));
  const cases: CaseOutcome[] = [
    {
      title: 'everything',
      requirements: SUITE_CHECKED,
      status: findings.length > 0 ? 'failed' : 'passed',
      findings,
      exercised,
    },
  ];
  return buildRecord({
    contract,
    kit: { name: 'las-conformance', version: '0.1.0' },
    target: 'http://127.0.0.1:1/v3',
    context: { contractSha256: contractSha256() },
    failLevel: 'must',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    durationMs: 10,
    runStatus: findings.length > 0 ? 'failed' : 'passed',
    cases,
  });
}

function write(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-records-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A record as format 3 wrote it: each kind of record a boolean member of inputs. */
function formatThree(record: CertificationRecord): unknown {
  return { ...record, format: 3, inputs: formatThreeInputs(record) };
}

/** The kinds of record format 3 had members of inputs for: fixed by that format, whatever the contract. */
const FORMAT_THREE_KINDS = ['ownerUserId', 'collectionItemId'];

function formatThreeInputs(record: CertificationRecord): Record<string, unknown> {
  const { records, ...rest } = record.inputs;
  return { ...rest, ...Object.fromEntries(FORMAT_THREE_KINDS.map((kind) => [kind, records[kind] ?? false])) };
}

describe('las-conformance verify', () => {
  it('verifies a record as the kit wrote it: exit 0, its verdict and contract named', () => {
    const { code, output } = verifyCommand(write('passed.json', record([])));
    expect(code).toBe(0);
    expect(output).toMatch(
      /passed\.json verifies, unsigned \(self-reported\): target http:\/\/127\.0\.0\.1:1\/v3, verdict passed, gate pass, las-conformance 0\.1\.0, contract [0-9a-f]{12}…\n$/,
    );
  });

  const tampered: [string, (r: CertificationRecord) => unknown, RegExp][] = [
    [
      'a verdict changed to passed over a failed MUST',
      (r) => ({ ...r, verdict: 'passed' }),
      /^ {2}verdict: passed, but its requirements make it failed$/m,
    ],
    [
      'a gate changed to pass',
      (r) => ({ ...r, gate: { ...r.gate, result: 'pass' } }),
      /^ {2}gate\.result: "pass", but its verdict \(failed\), waivers, baseline and allowPartial \(false\) make it "fail"$/m,
    ],
    [
      'a failed requirement changed to passed, the tally left',
      (r) => ({
        ...r,
        requirements: r.requirements.map((q) =>
          q.id === BROKEN ? { ...q, verdict: 'passed', evidence: [], broken: 0 } : q,
        ),
      }),
      /^ {2}tally\.MUST\.passed: \d+, but its requirements say \d+$/m,
    ],
    [
      'a failed requirement changed to passed, its broken exchange left',
      (r) => ({
        ...r,
        requirements: r.requirements.map((q) => (q.id === BROKEN ? { ...q, verdict: 'passed', evidence: [] } : q)),
      }),
      new RegExp(`/requirements/\\d+ \\(${BROKEN}, verdict passed\\)/broken: must be equal to constant`),
    ],
    [
      "a requirement not exercised claimed as the target's choice",
      (r) => ({
        ...r,
        requirements: r.requirements.map((q) =>
          q.id === 'AUTH-401-UNKNOWN-TOKEN'
            ? {
                ...q,
                verdict: 'not-run',
                judged: 0,
                reason: 'not exercised: no answer was 401',
                notExercised: true,
                byTargetChoice: true,
              }
            : q,
        ),
      }),
      /requirements\/AUTH-401-UNKNOWN-TOKEN\.byTargetChoice: AUTH-401-UNKNOWN-TOKEN was not exercised, which the catalogue does not leave to the target's choice/,
    ],
    [
      'another contract',
      (r) => ({ ...r, contract: { sha256: 'a'.repeat(64) } }),
      /contract\.sha256: judged by another contract: its SHA-256 is a{64}, this kit's is [0-9a-f]{64}/,
    ],
    [
      'a member the schema does not have',
      (r) => ({ ...r, certifiedBy: 'someone' }),
      /^\s+\/: must NOT have additional properties \(certifiedBy\)$/m,
    ],
    [
      'a kind of record the contract does not name',
      (r) => ({ ...r, inputs: { ...r.inputs, records: { ...r.inputs.records, courseId: true } } }),
      /^ {2}inputs\.records: courseId, which the contract names no record of$/m,
    ],
  ];
  it('verifies a record of format 3, whose kinds of record are members of inputs', () => {
    const old = formatThree(record([]));
    expect(old).toMatchObject({ format: 3, inputs: { ownerUserId: false, collectionItemId: false } });
    expect(verifyCommand(write('format-3.json', old)).code).toBe(0);
    expect(verifyCommand(write('format-3-new-inputs.json', { ...record([]), format: 3 })).code).toBe(1);
  });

  for (const [what, change, problem] of tampered) {
    it(`does not verify ${what}: exit 1, the problem named`, () => {
      const { code, output } = verifyCommand(write('tampered.json', change(record([finding(BROKEN, 'data.id is 2')]))));
      expect(code).toBe(1);
      expect(output).toMatch(problem);
    });
  }

  it('does not verify format 4 with the inputs of format 3: exit 1, the problem named', () => {
    const { code, output } = verifyCommand(
      write('tampered.json', { ...record([]), inputs: formatThreeInputs(record([])) }),
    );
    expect(code).toBe(1);
    expect(output).toMatch(/\/inputs: must NOT have additional properties/);
  });

  itWith(createWithRecord, 'create naming a record')(
    'does not verify a kind of record left out of inputs: exit 1, the problem named',
    () => {
      const [left, ...kept] = KINDS;
      const records = Object.fromEntries(kept.map((kind) => [kind, true]));
      const withoutOne = (r: CertificationRecord) => ({ ...r, inputs: { ...r.inputs, records } });
      const { code, output } = verifyCommand(write('tampered.json', withoutOne(record([]))));
      expect(code).toBe(1);
      expect(output).toMatch(
        new RegExp(
          `^ {2}inputs\\.records: it does not say whether the run was given ${left}, which the contract names$`,
          'm',
        ),
      );
    },
  );

  it('--help says a record without a checked signature is unsigned (self-reported)', async () => {
    const help = await runCliInProcess(['verify', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'Without --key a record is unsigned (self-reported): consistent, but nothing shows who produced it',
    );
  });

  const notRecords: [string, string, RegExp][] = [
    ['a file that is not JSON', 'not a record', /^las-conformance: .*given\.txt is not JSON: /],
    [
      'a JSON list',
      '[1, 2]',
      /^las-conformance: .*given\.txt is not a conformance record \(conformance\.json\): it is not an object with requirements$/,
    ],
    [
      'a JSON object without requirements (a violations line, say)',
      '{"rule":"AUTH-401-NO-CREDENTIALS","level":"MUST"}',
      /^las-conformance: .*given\.txt is not a conformance record \(conformance\.json\)/,
    ],
  ];
  for (const [what, content, message] of notRecords) {
    it(`${what} is a usage error (exit 2, one line)`, async () => {
      writeFileSync(join(dir, 'given.txt'), content);
      const result = await runCliInProcess(['verify', join(dir, 'given.txt')]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch(message);
    });
  }
});

describe('las-conformance diff', () => {
  it('a requirement that newly fails is a regression: exit 1, in Markdown and JSON', () => {
    const before = write('before.json', record([finding(ALSO_BROKEN, 'errors is 7; expected an array')]));
    const after = write(
      'after.json',
      record([finding(BROKEN, 'data.id is 2'), finding(ALSO_BROKEN, 'errors is 6; expected an array')]),
    );
    const markdown = diffCommand(before, after, { markdown: join(dir, 'diff.md'), jsonFile: join(dir, 'diff.json') });
    expect(markdown.code).toBe(1);
    expect(markdown.output.split('\n')[0]).toBe('# Conformance diff: 1 regression');
    expect(markdown.output).toMatch(
      new RegExp(
        '## Newly failing\n\n\\| Requirement \\| Level \\| Was \\| Now \\| Evidence \\|\n\\|---\\|---\\|---\\|---\\|---\\|\n' +
          literally(`| ${BROKEN} | MUST | passed | failed | data.id is 2 at /data/id `) +
          literally(`(${EXCHANGE.method} ${EXCHANGE.path} → ${EXCHANGE.status}) |`),
      ),
    );
    expect(markdown.output).toMatch(
      new RegExp(
        `## Changed evidence\n\n[^\n]+\n[^\n]+\n\\| ${ALSO_BROKEN} \\| MUST \\| errors is 7; expected an array at /data/id ` +
          `[^|]+\\| errors is 6; expected an array`,
      ),
    );
    expect(readFileSync(join(dir, 'diff.md'), 'utf8')).toBe(markdown.output);
    const json = JSON.parse(diffCommand(before, after, { json: true }).output) as {
      regressions: string[];
      fixed: unknown[];
    };
    expect(json).toMatchObject({ regressions: [BROKEN], fixed: [] });
    expect(JSON.parse(readFileSync(join(dir, 'diff.json'), 'utf8'))).toEqual(json);
  });

  it('reads a record of format 3 beside one of format 4', () => {
    const before = write('before-format-3.json', formatThree(record([])));
    const after = write('after-format-4.json', record([finding(BROKEN, 'data.id is 2')]));
    const diff = diffCommand(before, after, { json: true });
    expect(diff.code).toBe(1);
    expect(JSON.parse(diff.output)).toMatchObject({ regressions: [BROKEN] });
    expect(diffCommand(after, before, {}).code).toBe(0);
  });

  it('a fix is no regression: exit 0, listed as fixed', () => {
    const before = write('before.json', record([finding(BROKEN, 'data.id is 2')]));
    const after = write('after.json', record([]));
    const { code, output } = diffCommand(before, after, {});
    expect(code).toBe(0);
    expect(output).toMatch(
      new RegExp(`## Fixed\n\n[^\n]+\n[^\n]+\n\\| ${BROKEN} \\| MUST \\| failed \\| data\\.id is 2`),
    );
  });

  it('says so when the two records name different targets, and not for two runs of one', () => {
    const ours = record([]);
    const vendor = { ...ours, target: { ...ours.target, baseUrl: 'https://api.vendor.example/v3' } };
    const different = diffCommand(write('ours.json', ours), write('vendor.json', vendor), {});
    expect(different.output.split('\n').slice(0, 6).join('\n')).toContain(
      '**The two records name different targets** (http://127.0.0.1:1/v3 and https://api.vendor.example/v3): this compares two implementations, not two runs of one.',
    );
    expect(
      (
        JSON.parse(diffCommand(write('ours.json', ours), write('vendor.json', vendor), { json: true }).output) as {
          sameTarget: boolean;
        }
      ).sameTarget,
    ).toBe(false);
    const same = diffCommand(write('ours.json', ours), write('again.json', record([])), {});
    expect(same.output).not.toContain('different targets');
    // The embedded reference server listens on a new port each run: two of its runs with the same faults are one
    // target.
    const embedded = (port: number, faults: string[]) => ({
      ...ours,
      target: { baseUrl: `http://127.0.0.1:${port}/v3`, embedded: true, faults, choices: [] },
    });
    expect(
      diffCommand(write('a.json', embedded(4010, [])), write('b.json', embedded(4020, [])), {}).output,
    ).not.toContain('different targets');
    expect(
      diffCommand(write('a.json', embedded(4010, [])), write('b.json', embedded(4010, ['pat-rejected'])), {}).output,
    ).toContain('different targets');
  });

  it('a file that is no record is a usage error (exit 2, one line; a real process)', async () => {
    const result = await runCli(['diff', write('list.json', [1, 2]), write('after.json', record([]))]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(
      /^las-conformance: .*list\.json is not a conformance record \(conformance\.json\)/,
    );
  });
});

/** What a hostile record's writer puts in a requirement id: retitle the terminal, ring it, clear the screen. */
const ESCAPES = '\u001b]0;PWNED\u0007\u001b[2J';
/** The same as a terminal shows the kit's answer: each control character as its picture. */
const ESCAPES_SHOWN = '\u241b]0;PWNED\u2407\u241b[2J';
/** Any control character but the line feed between lines. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function withHostileId(value: CertificationRecord, id: string): CertificationRecord {
  return { ...value, requirements: value.requirements.map((q) => (q.id === id ? { ...q, id: `${id}${ESCAPES}` } : q)) };
}

function retargeted(value: CertificationRecord, baseUrl: string): CertificationRecord {
  return { ...value, target: { ...value.target, baseUrl } };
}

describe('a hostile file: what verify, diff and judge print from it', () => {
  const failing = () => withHostileId(record([finding(BROKEN, `data.id is 2${ESCAPES}`)]), BROKEN);
  const diffHostile = () => runCliInProcess(['diff', write('old.json', record([])), write('new.json', failing())]);
  // A capture line without a response: judge names it by its method and path, the method as the file has it.
  const malformedEntry = () => ({ request: { method: `GET${ESCAPES}`, url: 'http://127.0.0.1:1/v3/x' } });
  const hostileTarget = () => retargeted(record([]), `http://127.0.0.1:1/v3${ESCAPES}`);
  const answers: [string, () => Promise<{ stdout: string; stderr: string }>][] = [
    ['verify, a requirement id', () => runCliInProcess(['verify', write('hostile.json', failing())])],
    ['diff, a requirement id and evidence', () => diffHostile()],
    ['verify, a target', () => runCliInProcess(['verify', write('target.json', hostileTarget())])],
    ["judge, a malformed entry's method", () => runCliInProcess(['judge', write('capture.ndjson', malformedEntry())])],
  ];
  for (const [what, answer] of answers) {
    it(`${what}: its control characters reach the terminal as pictures, never raw`, async () => {
      const { stdout, stderr } = await answer();
      expect(stdout + stderr).not.toMatch(RAW_CONTROL);
      expect(stdout + stderr).toContain(ESCAPES_SHOWN.slice(0, 6));
    });
  }
});

describe('verify: files it refuses to read, in one line (exit 2)', () => {
  const signedRecord = () => {
    const folder = join(dir, `signed-${Math.random().toString(36).slice(2)}`);
    mkdirSync(folder);
    const keys = generateKeyPairSync('ed25519');
    const bytes = Buffer.from(JSON.stringify(record([])));
    writeFileSync(join(folder, 'conformance.json'), bytes);
    writeFileSync(join(folder, ENVELOPE_FILE), envelopeText(signRecord(bytes, record([]), keys.privateKey)));
    writeFileSync(join(folder, 'key.pub.pem'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    return { folder, file: join(folder, 'conformance.json'), key: join(folder, 'key.pub.pem') };
  };
  const linkToZero = (path: string) => {
    rmSync(path, { force: true });
    symlinkSync('/dev/zero', path);
  };
  type Signed = ReturnType<typeof signedRecord>;
  const withKey = (s: Signed, ...more: string[]) => ['verify', s.file, '--key', s.key, ...more];
  const envelopeOf = (s: Signed) => join(s.folder, ENVELOPE_FILE);
  const refusals: [string, (signed: Signed) => string[], RegExp][] = [
    ['the record linked to /dev/zero', (s) => (linkToZero(s.file), withKey(s)), /the record \S+ is a character device/],
    ['--key linked to /dev/zero', (s) => (linkToZero(s.key), withKey(s)), /the public key \S+ is a character/],
    ['the envelope linked to /dev/zero', (s) => (linkToZero(envelopeOf(s)), withKey(s)), /the envelope \S+ is a char/],
    [
      '--envelope as a pipe',
      (s) => (execFileSync('mkfifo', [join(s.folder, 'pipe')]), withKey(s, '--envelope', join(s.folder, 'pipe'))),
      /the envelope \S+pipe is a pipe/,
    ],
    ['the record as a directory', (s) => ['verify', s.folder], /the record \S+ is a directory/],
    [
      'an envelope past its size',
      (s) => (writeFileSync(envelopeOf(s), ' '.repeat(ENVELOPE_MAX_BYTES + 1)), withKey(s)),
      /the envelope \S+ holds more than 1 MiB, the most it may hold/,
    ],
    [
      'a key past its size',
      (s) => (writeFileSync(s.key, ' '.repeat(KEY_MAX_BYTES + 1)), withKey(s)),
      /the public key \S+ holds more than 64 KiB/,
    ],
  ];
  it('verifies the signed record these start from', () => {
    const signed = signedRecord();
    const verified = expect.stringMatching(/ verifies, signed by key /) as string;
    expect(verifyCommand(signed.file, { key: signed.key })).toMatchObject({ code: 0, output: verified });
  });
  for (const [what, spoil, message] of refusals) {
    it(`${what}`, async () => {
      const result = await runCliInProcess(spoil(signedRecord()));
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    });
  }
});

describe('diff and run --baseline: records they refuse to read, in one line (exit 2, at once)', () => {
  const commands: [string, (path: string) => string[], string][] = [
    ['diff, the earlier record', (path) => ['diff', path, write('later.json', record([]))], 'the record'],
    ['run --baseline', (path) => ['run', '--reference-server', '--generate', '0', '--baseline', path], 'the baseline'],
  ];
  for (const [command, args, what] of commands)
    for (const [how, spoil, message] of spoiledFiles(RECORD_MAX_BYTES)) {
      it(`${command} ${how}`, async () => {
        const path = join(dir, `spoiled-${Math.random().toString(36).slice(2)}.json`);
        spoil(path);
        const result = await runCliWithin(args(path), 15);
        expect(result.code).toBe(2);
        expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(`${what} ${path} `);
        expect(result.stderr).toMatch(message);
      });
    }
});

describe('verify: a record another version of the kit wrote', () => {
  it('verifies its signature and says which kit wrote it and which checked it', () => {
    const folder = join(dir, 'other-kit');
    mkdirSync(folder, { recursive: true });
    const keys = generateKeyPairSync('ed25519');
    const older = { ...record([]), kit: { name: 'las-conformance', version: '0.0.9' } };
    const bytes = Buffer.from(JSON.stringify(older));
    writeFileSync(join(folder, 'conformance.json'), bytes);
    writeFileSync(join(folder, ENVELOPE_FILE), envelopeText(signRecord(bytes, older, keys.privateKey)));
    writeFileSync(join(folder, 'key.pub.pem'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    const { code, output } = verifyCommand(join(folder, 'conformance.json'), { key: join(folder, 'key.pub.pem') });
    expect(code).toBe(0);
    expect(output.split('\n')[0]).toMatch(/ verifies, signed by key [0-9a-f]{16}… /);
    const kit = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const ours = `this kit is las-conformance ${kit.version}`;
    const said = `  kit: the record was written by las-conformance 0.0.9; ${ours}, whose contract checked it`;
    expect(output.split('\n')[1]).toBe(said);
  });
});

describe('report directories', () => {
  it('a reused directory loses the files a run writes there, and keeps every other', () => {
    const reused = join(dir, 'reused');
    mkdirSync(join(reused, 'html', 'data'), { recursive: true });
    mkdirSync(join(reused, 'artifacts'), { recursive: true });
    mkdirSync(join(reused, 'mine'), { recursive: true });
    for (const name of [
      ...REPORT_DIR_ENTRIES.filter((e) => e.includes('.')),
      'notes.txt',
      'conformance.old.json',
      join('mine', 'conformance.json'),
    ])
      writeFileSync(join(reused, name), 'earlier');
    writeFileSync(join(reused, 'html', 'data', 'x.json'), '{}');
    const cleared = clearKitFiles(reused);
    expect(cleared).toEqual(
      expect.arrayContaining([
        'conformance.json',
        'conformance.intoto.jsonl',
        'summary.md',
        'junit.xml',
        'certification.html',
        'run.log',
        'html',
        'artifacts',
      ]),
    );
    expect(readdirSync(reused).sort()).toEqual(['conformance.old.json', 'mine', 'notes.txt']);
    expect(readdirSync(join(reused, 'mine'))).toEqual(['conformance.json']);
    expect(clearKitFiles(reused)).toEqual([]);
  });

  it('names each run by its start time, never reusing a directory, and points latest at the newest', () => {
    const root = join(dir, 'reports');
    mkdirSync(join(root, 'latest'), { recursive: true });
    writeFileSync(join(root, 'latest', 'conformance.json'), '{}');
    const first = timestampedReportDir(root, new Date('2026-11-22T20:15:04.123Z'));
    expect(first).toBe(join(root, '2026-11-22T20-15-04Z'));
    mkdirSync(first);
    const second = timestampedReportDir(root, new Date('2026-11-22T20:15:04.900Z'));
    expect(second).toBe(join(root, '2026-11-22T20-15-04Z-2'));
    mkdirSync(second);
    pointLatestAt(first);
    expect(readlinkSync(join(root, 'latest'))).toBe('2026-11-22T20-15-04Z');
    pointLatestAt(second);
    expect(readlinkSync(join(root, 'latest'))).toBe('2026-11-22T20-15-04Z-2');
    // The directory an older kit left at latest was kept, under its own time stamp.
    const kept = readdirSync(root).filter((name) => name !== 'latest' && !name.startsWith('2026-11-22T20-15-04Z'));
    expect(kept).toHaveLength(1);
    expect(existsSync(join(root, kept[0], 'conformance.json'))).toBe(true);
  });
});
