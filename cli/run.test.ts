// `las-conformance run` refuses bad input with one line and exit code 2, before anything runs,
// and never echoes a token.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  DEFAULT_CREDENTIALS,
  FAULTS,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../server/index.ts';
import { DEFAULT_SERVE_PORT } from './serve.ts';
import {
  DEFAULT_GENERATION_BUDGET_SECONDS,
  DEFAULT_OPERATION_BUDGET_SECONDS,
  generationLine,
  generationSettings,
  runDescription,
  runSettings,
  targetFileReader,
} from './run.ts';
import { recordKindLabel, recordKinds, recordMembers, type Operation } from '../contract/index.ts';
import { contract, createWithRecord, creates, itWith, lists, listQuery } from '../contract/test-support.ts';
import { preflightRequest } from '../suites/preflight.ts';
import { settingRow, settingSource } from '../targets/settings.ts';
import { DEFAULT_GENERATED_INPUTS } from '../run-protocol/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { runCli, runCliInProcess, runnable, RUN_NEEDS } from './test-support.ts';
import { buildProgram } from './command-line.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'cli-test-session-token-91ad';
let dir: string;
let reference: StartedReferenceServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'las-run-cli-'));
  writeFileSync(join(dir, 'typo.yaml'), 'baseUrl: http://127.0.0.1:9/v3\ncredentials:\n  sessionTokn: x\n');
  writeFileSync(join(dir, 'generate-typo.yaml'), 'generate:\n  seed: 4\n');
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface UsageCase {
  title: string;
  args: () => string[];
  env?: Record<string, string>;
  stderr: RegExp;
  /** Refused only after the suite ran, so run as a real process: the suite's output is the child's own. */
  runsTheSuite?: true;
  /** What of the contract the refusal needs, when it is refused only once the target is asked. */
  needs?: { operation: Operation | undefined; what: string };
}

const withTokens = ['--session-token', TOKEN, '--pat', 'cli-test-pat-0b7e'];

// A shipped target file waives requirements of the contract it was shipped with, written by hand: one the catalogue no
// longer holds is refused. Its records follow the contract (`npm run targets:settings` writes them).
interface ShippedTargetFile {
  waivers?: { requirement: string }[];
}

/** Why a shipped target file does not read with this contract, or undefined. */
function unreadable(file: string): string | undefined {
  const unknown = ((parseYaml(readFileSync(file, 'utf8')) as ShippedTargetFile).waivers ?? [])
    .map((waiver) => waiver.requirement)
    .filter((id) => !contract.requirements.some((requirement) => requirement.id === id));
  if (unknown.length > 0) return `the catalogue holds no requirement ${unknown.join(', ')}, which the file waives`;
  return undefined;
}

/** `it`, or a skipped test whose title says why (the first reason given). */
function itUnless(...reasons: (string | undefined)[]) {
  const why = reasons.find((reason) => reason !== undefined);
  return (title: string, test: () => void | Promise<void>) =>
    why === undefined ? it(title, test) : it.skip(`${title} (skipped: ${why})`, () => undefined);
}
/** The refusals of a run that asks the target: the run asks its list first. */
const ASKS_THE_TARGET = { operation: runnable, what: RUN_NEEDS };
/** `text` as a regular expression matching it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The path the preflight asks, relative to the base URL, when the contract holds its list. */
const PREFLIGHT_PATH = runnable === undefined ? '' : literally(preflightRequest().path);
/** GET for a list, POST for a create when the contract has no list. */
const PREFLIGHT_METHOD = runnable === undefined ? '' : preflightRequest().method;
/** The kinds of record the first create naming records refers to, in its document's order. */
const FIXTURE_KINDS = createWithRecord === undefined ? [] : recordMembers([createWithRecord]).map((m) => m.kind);
/** An option giving each of those kinds an id the target does not know. */
const unknownIds = () =>
  recordKinds(createWithRecord === undefined ? [] : [createWithRecord]).flatMap((kind, index) => [
    settingRow(kind).flag,
    `64aa${String(index + 1).padStart(20, '0')}`,
  ]);

const usageCases: UsageCase[] = [
  {
    title: 'a target file that does not exist',
    args: () => ['--target', join(dir, 'missing.yaml')],
    stderr: /^las-conformance: target file .*missing\.yaml cannot be read \(ENOENT\)$/,
  },
  {
    title: 'a target file with an unknown key',
    args: () => ['--target', join(dir, 'typo.yaml')],
    stderr: /^las-conformance: target file .*typo\.yaml: unknown key "credentials\.sessionTokn"$/,
  },
  {
    title: 'a base URL without tokens',
    args: () => ['--base-url', 'http://127.0.0.1:9/v3'],
    stderr:
      /^las-conformance: no session token: give --session-token, LAS_SESSION_TOKEN or credentials\.sessionToken in the target file$/,
  },
  {
    title: 'a base URL that is not http',
    args: () => ['--base-url', 'ftp://127.0.0.1/v3', ...withTokens],
    stderr: /^las-conformance: the base URL must be http or https, got ftp$/,
  },
  {
    title: 'a token without a base URL',
    args: () => [],
    env: { LAS_SESSION_TOKEN: TOKEN },
    stderr:
      /^las-conformance: --session-token given without a target base URL; give --base-url, LAS_BASE_URL or baseUrl in the target file$/,
  },
  // A gate cannot pass untested: nothing given, or a setting given empty, never falls back to the embedded server.
  {
    title: 'no target at all',
    args: () => [],
    stderr:
      /^las-conformance: no target base URL: give --base-url, LAS_BASE_URL or baseUrl in the target file, or --reference-server to test the kit's own reference server$/,
  },
  {
    title: 'no target in a CI job',
    args: () => ['--report-dir', join(dir, 'ci')],
    env: { CI: 'true', GITHUB_ACTIONS: 'true' },
    stderr: /^las-conformance: no target base URL: give --base-url, /,
  },
  {
    title: 'a base URL variable set but empty',
    args: () => [],
    env: { LAS_BASE_URL: '', LAS_SESSION_TOKEN: TOKEN, LAS_PAT: 'cli-test-pat-0b7e' },
    stderr:
      /^las-conformance: LAS_BASE_URL is set but empty: give it a value or leave it out \(an empty setting is a variable or secret the job did not get\)$/,
  },
  {
    title: 'token secrets set but empty beside a base URL',
    args: () => [],
    env: { LAS_BASE_URL: 'http://127.0.0.1:9/v3', LAS_SESSION_TOKEN: '', LAS_PAT: '' },
    stderr: /^las-conformance: LAS_SESSION_TOKEN, LAS_PAT are set but empty: give them values or leave them out/,
  },
  {
    title: 'an optional secret set but empty',
    args: () => ['--base-url', 'http://127.0.0.1:9/v3', ...withTokens],
    env: { LAS_FORBIDDEN_TOKEN: '' },
    stderr: /^las-conformance: LAS_FORBIDDEN_TOKEN is set but empty/,
  },
  { title: 'an empty --target', args: () => ['--target', ''], stderr: /^las-conformance: --target is set but empty/ },
  {
    title: 'an empty --base-url beside --reference-server',
    args: () => ['--reference-server', '--base-url', ''],
    stderr: /^las-conformance: --base-url is set but empty/,
  },
  {
    title: '--reference-server with a base URL',
    args: () => ['--reference-server', '--base-url', 'http://127.0.0.1:9/v3', ...withTokens],
    stderr:
      /^las-conformance: --reference-server tests the kit's own server, but a target base URL is given \(--base-url, LAS_BASE_URL or baseUrl in the target file\); give one or the other$/,
  },
  {
    title: '--reference-server with a token',
    args: () => ['--reference-server'],
    env: { LAS_PAT: TOKEN },
    stderr:
      /^las-conformance: --pat given with --reference-server, which brings its own credentials and records; leave them out, or give a target base URL instead$/,
  },
  {
    title: 'a fault without --reference-server',
    args: () => ['--fault', 'pat-rejected'],
    stderr: /^las-conformance: --fault applies to the embedded reference server only; add --reference-server$/,
  },
  {
    title: 'a fault with a base URL',
    args: () => ['--base-url', 'http://127.0.0.1:9/v3', ...withTokens, '--fault', 'pat-rejected'],
    stderr: /^las-conformance: --fault applies to the embedded reference server only/,
  },
  {
    title: 'an unknown fault',
    args: () => ['--fault', 'no-such-fault'],
    stderr: /^las-conformance: unknown fault no-such-fault; known faults: session-token-rejected, /,
  },
  {
    title: 'a request timeout that is not a number',
    args: () => ['--request-timeout', 'soon'],
    stderr: /^las-conformance: --request-timeout must be a number, got "soon"$/,
  },
  {
    title: 'a target that does not answer',
    args: () => ['--base-url', 'http://127.0.0.1:9/v3', ...withTokens, '--report-dir', join(dir, 'unreachable')],
    stderr: /^las-conformance: target http:\/\/127\.0\.0\.1:9\/v3 is unreachable: connect ECONNREFUSED 127\.0\.0\.1:9$/,
    needs: ASKS_THE_TARGET,
  },
  {
    title: 'a --grep no case matches',
    args: () => ['--reference-server', '--grep', 'NO-SUCH-REQUIREMENT', '--report-dir', join(dir, 'grep')],
    stderr: /^las-conformance: no case matches --grep "NO-SUCH-REQUIREMENT"/,
    runsTheSuite: true,
    needs: ASKS_THE_TARGET,
  },
  // The preflight: a misconfigured run stops before the suite, with what to check.
  {
    title: 'a session token the target refuses',
    args: () => [
      '--base-url',
      reference.baseUrl,
      '--session-token',
      TOKEN,
      '--pat',
      DEFAULT_CREDENTIALS.pat,
      '--report-dir',
      join(dir, 'refused'),
    ],
    stderr: new RegExp(
      `^las-conformance: ${PREFLIGHT_METHOD} http://127\\.0\\.0\\.1:\\d+/v3${PREFLIGHT_PATH} with the session token \\(Authorization: Bearer r:…\\) ` +
        'was answered 401: the target refused the session token; check --session-token or LAS_SESSION_TOKEN',
    ),
    needs: ASKS_THE_TARGET,
  },
  {
    title: 'a base URL without /v3',
    args: () => [
      '--base-url',
      reference.baseUrl.replace(/\/v3$/, ''),
      '--session-token',
      DEFAULT_CREDENTIALS.sessionToken,
      '--pat',
      DEFAULT_CREDENTIALS.pat,
      '--report-dir',
      join(dir, 'no-v3'),
    ],
    stderr: /was answered 404: the base URL must include the version root, e\.g\. https:\/\/staging\.example\.com\/v3/,
    needs: ASKS_THE_TARGET,
  },
  // Optional inputs the target does not take: one line naming the option, before any case runs.
  {
    title: 'a legacy header name the target does not read',
    args: () => [
      '--base-url',
      reference.baseUrl,
      '--session-token',
      DEFAULT_CREDENTIALS.sessionToken,
      '--pat',
      DEFAULT_CREDENTIALS.pat,
      '--legacy-header',
      'X-Acme-Session-Token',
      '--report-dir',
      join(dir, 'legacy'),
    ],
    stderr: new RegExp(
      `^las-conformance: ${PREFLIGHT_METHOD} http://127\\.0\\.0\\.1:\\d+/v3${PREFLIGHT_PATH} with the session token in X-Acme-Session-Token ` +
        'was answered 401, though the same token was served as Authorization: Bearer r:; the target reads its legacy ' +
        'session header under another name: give it with --legacy-header, LAS_LEGACY_HEADER or legacyHeader in the ' +
        'target file \\(now X-Acme-Session-Token;',
    ),
    needs: ASKS_THE_TARGET,
  },
  {
    title: 'fixture ids the target does not know',
    args: () => [
      '--base-url',
      reference.baseUrl,
      '--session-token',
      DEFAULT_CREDENTIALS.sessionToken,
      '--pat',
      DEFAULT_CREDENTIALS.pat,
      ...unknownIds(),
      '--report-dir',
      join(dir, 'fixtures'),
    ],
    stderr: new RegExp(
      `^las-conformance: ${createWithRecord?.method} http://127\\.0\\.0\\.1:\\d+/v3${literally(createWithRecord?.pathTemplate ?? '')} ` +
        'with the session token \\(Authorization: Bearer r:…\\) was answered 404 Record Not Found: the target does not ' +
        `know the ${FIXTURE_KINDS.map(recordKindLabel).join(' or the ')} the run was given; give ids of records that ` +
        `exist there with ${literally(FIXTURE_KINDS.map(settingSource).join(', and '))}$`,
    ),
    needs: { operation: runnable && createWithRecord, what: runnable ? 'create naming a record' : RUN_NEEDS },
  },
  {
    title: 'a forbidden token the target does not know',
    args: () => [
      '--base-url',
      reference.baseUrl,
      '--session-token',
      DEFAULT_CREDENTIALS.sessionToken,
      '--pat',
      DEFAULT_CREDENTIALS.pat,
      '--forbidden-token',
      TOKEN,
      '--report-dir',
      join(dir, 'forbidden'),
    ],
    stderr: new RegExp(
      `^las-conformance: ${PREFLIGHT_METHOD} \\S+ ` +
        literally(
          'with the forbidden token (Authorization: Bearer r:…) was answered 401: the target does not know the forbidden token, so the 403 cases would test an unknown token; give a session token that is authenticated but not permitted with --forbidden-token, ',
        ),
    ),
    needs: ASKS_THE_TARGET,
  },
  // A setting holding a control character is its own fault, never the target's (ERR_INVALID_CHAR on every request).
  {
    title: 'a session token holding a control character',
    args: () => ['--base-url', reference.baseUrl, '--pat', DEFAULT_CREDENTIALS.pat, '--report-dir', join(dir, 'ctl')],
    env: { LAS_SESSION_TOKEN: `${TOKEN}\u0001` },
    stderr: /^las-conformance: the session token \(--session-token, LAS_SESSION_TOKEN .+?\) holds a control character/,
  },
  {
    title: 'a --header without a colon',
    args: () => ['--header', 'X-Gateway-Key'],
    stderr:
      /^las-conformance: --header must be "Name: value" with a valid header name \(got X-Gateway-Key without a colon\)$/,
  },
  {
    title: '--seed with --generate 0',
    args: () => ['--reference-server', '--generate', '0', '--seed', '3'],
    stderr: /^las-conformance: --seed given with --generate 0 \(or generate\.inputs: 0\), which turns generation off$/,
  },
  {
    title: 'a target file whose generate has no inputs',
    args: () => ['--target', join(dir, 'generate-typo.yaml')],
    stderr: /^las-conformance: target file .*generate-typo\.yaml: generate must have required property 'inputs'$/,
  },
  {
    title: 'a --signing-key file that does not exist',
    args: () => ['--reference-server', '--signing-key', join(dir, 'no-key.pem')],
    stderr: /^las-conformance: the signing key .*no-key\.pem cannot be read \(ENOENT\)$/,
  },
  {
    title: 'a LAS_SIGNING_KEY file that holds no key',
    args: () => ['--reference-server'],
    env: { LAS_SIGNING_KEY: fileURLToPath(import.meta.url) },
    stderr: /^las-conformance: the signing key .*run\.test\.ts holds no private key; give an Ed25519 key in PEM/,
  },
  {
    title: 'a --ca file that does not exist',
    args: () => ['--base-url', 'http://127.0.0.1:9/v3', ...withTokens, '--ca', join(dir, 'no-ca.pem')],
    stderr: /^las-conformance: the certificate authority file .*no-ca\.pem cannot be read \(ENOENT\)$/,
  },
];

describe('las-conformance run, usage errors', () => {
  for (const c of usageCases) {
    const test = c.needs === undefined ? it : itWith(c.needs.operation, c.needs.what);
    test(`refuses ${c.title}: exit 2, one line, no token${c.runsTheSuite ? ' (a real process)' : ''}`, async () => {
      const result = await (c.runsTheSuite ? runCli : runCliInProcess)(['run', ...c.args()], c.env);
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch(c.stderr);
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
      // Stopped before any case could judge the target: no requirement failed.
      const args = c.args();
      const record = args.includes('--report-dir')
        ? join(args[args.indexOf('--report-dir') + 1], 'conformance.json')
        : undefined;
      if (record && existsSync(record))
        expect(
          (JSON.parse(readFileSync(record, 'utf8')) as CertificationRecord).requirements.filter(
            (r) => r.verdict === 'failed',
          ),
        ).toEqual([]);
    });
  }

  const parseErrors: { title: string; args: string[]; stderr: RegExp }[] = [
    {
      title: 'a worker count of 0',
      args: ['--workers', '0'],
      stderr: /^error: option '--workers <n>' argument '0' is invalid\. expected a whole number of at least 1\.$/,
    },
    {
      title: 'a negative --generate',
      args: ['--generate', '-1'],
      stderr: /^error: option '--generate <n>' argument '-1' is invalid\. expected a whole number of at least 0\.$/,
    },
    {
      title: 'an unknown level',
      args: ['--level', 'may'],
      stderr: /^error: option '--level <level>' argument 'may' is invalid\. Allowed choices are must, should\.$/,
    },
  ];
  for (const c of parseErrors) {
    it(`refuses ${c.title}: exit 2, one line, no usage text, no stack trace`, async () => {
      const result = await runCliInProcess(['run', ...c.args]);
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch(c.stderr);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }
});

describe('generation settings: flags over the target file', () => {
  const flags = { level: 'must' as const, fault: [], choice: [], header: [], requirement: [] };

  it(`on by default: the boundary phase and ${DEFAULT_GENERATED_INPUTS} random inputs per operation, from a seed drawn and printed`, () => {
    expect(generationSettings(flags, {})).toMatchObject({ inputs: DEFAULT_GENERATED_INPUTS });
    expect(generationLine(generationSettings({ ...flags, seed: 7 }, {}))).toBe(
      `Generating inputs per operation: the boundary phase, then ${DEFAULT_GENERATED_INPUTS} random inputs from seed 7 (--seed 7 draws them again; --generate 0 turns generation off)`,
    );
  });

  it('--generate 0 (or generate.inputs: 0) turns it off, and the record is told so; a seed or budget beside it is a usage error', () => {
    expect(generationSettings({ ...flags, generate: 0 }, {})).toBeUndefined();
    expect(generationSettings(flags, { inputs: 0 })).toBeUndefined();
    expect(runDescription({ ...flags, generate: 0 })).toMatchObject({ generationOff: true });
    expect(runDescription({ ...flags, generate: 0 }).generate).toBeUndefined();
    expect(() => generationSettings({ ...flags, generate: 0, seed: 3 }, {})).toThrow(
      '--seed given with --generate 0 (or generate.inputs: 0), which turns generation off',
    );
  });

  it('the target file gives them; flags override each; budgets in milliseconds', () => {
    const file = { inputs: 50, seed: 9, budgetSeconds: 60, operationBudgetSeconds: 20 };
    expect(generationSettings(flags, file)).toEqual({
      inputs: 50,
      seed: 9,
      totalBudgetMs: 60_000,
      operationBudgetMs: 20_000,
    });
    expect(
      generationSettings({ ...flags, generate: 200, seed: 1, generateBudget: 30, generateOperationBudget: 5 }, file),
    ).toEqual({ inputs: 200, seed: 1, totalBudgetMs: 30_000, operationBudgetMs: 5_000 });
  });

  it('defaults the budgets and draws a seed when none is given, so the record can name it', () => {
    const settings = generationSettings({ ...flags, generate: 10 }, {})!;
    expect(settings).toMatchObject({
      inputs: 10,
      totalBudgetMs: DEFAULT_GENERATION_BUDGET_SECONDS * 1000,
      operationBudgetMs: DEFAULT_OPERATION_BUDGET_SECONDS * 1000,
    });
    expect(Number.isSafeInteger(settings.seed) && settings.seed >= 0).toBe(true);
  });
});

describe('las-conformance run stopped before its suite', () => {
  it('leaves no timestamped report folder behind (its one line says what to check)', async () => {
    const baseUrl = 'http://127.0.0.1:9/left-behind-check/v3';
    const result = await runCliInProcess(['run', '--base-url', baseUrl, ...withTokens]);
    expect(result.code).toBe(2);
    const reports = join(ROOT, 'reports');
    const left = readdirSync(reports).filter(
      (name) =>
        /^\d{4}-/.test(name) &&
        existsSync(join(reports, name, 'run.log')) &&
        readFileSync(join(reports, name, 'run.log'), 'utf8').includes('left-behind-check'),
    );
    expect(left).toEqual([]);
  });
});

describe('the run commands of the README and the reference', () => {
  /** The shell lines of a document's sh blocks, comments cut. */
  const shellLinesOf = (file: string) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)]
      .flatMap((block) => block[1].split('\n'))
      .map((line) => line.replace(/\s+#.*$/, '').trim());
  const readmeLines = shellLinesOf('README.md');
  const shellLines = [...readmeLines, ...shellLinesOf('docs/reference.md')];
  // A command may start with variables set for it: the command is what follows them.
  const runLines = shellLines
    .filter((line) => line.includes('npx las-conformance run'))
    .map((line) => line.slice(line.indexOf('npx las-conformance run')));
  /** The flags that would put a token on the command line, where every process on the machine sees it. */
  const TOKEN_FLAGS = ['--session-token', '--pat', '--forbidden-token', '--header'];

  it('are there to check', () => {
    expect(runLines.length).toBeGreaterThan(5);
  });

  it('name only flags run has, and keep tokens in variables', async () => {
    const program = await buildProgram(['node', 'las-conformance', 'run']);
    const flags = program.commands.find((command) => command.name() === 'run')!.options.map((option) => option.long);
    for (const line of runLines) {
      const named = line.split(/\s+/).filter((word) => word.startsWith('--'));
      expect(
        named.filter((flag) => !flags.includes(flag)),
        line,
      ).toEqual([]);
      expect(
        named.filter((flag) => TOKEN_FLAGS.includes(flag)),
        line,
      ).toEqual([]);
    }
  });

  it('start with the two commands the README gives: npm start runs the suite against the embedded reference server, npm test every test', () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(readmeLines).toEqual(expect.arrayContaining(['npm ci && npm start', 'npm ci && npm test']));
    expect(scripts.start).toContain(' run --reference-server');
    expect(scripts.test).toContain('vitest run');
  });

  // README's `--target staging.yaml` and `--target vendor.yaml` are the user's own files: each is
  // shown as examples/targets/NAME, linked from the README, and reads as a complete target with
  // the tokens in variables.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const readmeTargets = [
    ...new Set(readmeLines.flatMap((line) => [...line.matchAll(/--target (\S+\.yaml)/g)].map((m) => m[1]))),
  ];

  it('name target files that examples/targets/ shows, linked from the README', () => {
    expect(readmeTargets).toEqual(['staging.yaml', 'vendor.yaml']);
    for (const name of readmeTargets) expect(readme, name).toContain(`(examples/targets/${name})`);
  });

  for (const name of ['staging.yaml', 'vendor.yaml']) {
    const file = join(ROOT, 'examples', 'targets', name);
    itUnless(unreadable(file))(
      `examples/targets/${name} reads as a target, with tokens from the variables and waivers of the catalogue`,
      () => {
        const flags = { target: file, level: 'must' as const, fault: [], choice: [], header: [], requirement: [] };
        const env = {
          LAS_SESSION_TOKEN: TOKEN,
          LAS_PAT: 'cli-test-pat-5c2e',
          LAS_FORBIDDEN_TOKEN: 'cli-test-forbidden-77d0',
        };
        const settings = runSettings(flags, env, targetFileReader(file));
        expect(settings.baseUrl).toMatch(/^https:\/\/\S+\/v3$/);
        expect(Object.keys(settings.fixtures ?? {}).sort()).toEqual(Object.keys(REFERENCE_FIXTURES).sort());
        expect(() => runDescription(flags, targetFileReader(file))).not.toThrow();
      },
    );
  }

  it('give a target in the variables the README exports, tokens among them', () => {
    const exported = readmeLines
      .filter((line) => line.startsWith('export '))
      .flatMap((line) =>
        line
          .slice('export '.length)
          .split(/\s+/)
          .map((word) => word.split('=')[0]),
      );
    expect(exported).toEqual(
      expect.arrayContaining([
        'LAS_BASE_URL',
        'LAS_SESSION_TOKEN',
        'LAS_PAT',
        'LAS_FORBIDDEN_TOKEN',
        'LAS_OWNER_USER_ID',
        'LAS_COLLECTION_ITEM_ID',
      ]),
    );
  });
});

// targets/example.yaml as shipped names what `serve` starts: its address and the records it holds.
// A run with it (the base URL moved to this test's server) creates a record of each kind the
// contract creates, with those records.
describe('targets/example.yaml', { timeout: 120_000 }, () => {
  const example = join(ROOT, 'targets', 'example.yaml');

  it(`names serve's default address and the records the reference server holds`, () => {
    const settings = runSettings(
      { target: example, level: 'must', fault: [], choice: [], header: [], requirement: [] },
      {},
      targetFileReader(example),
    );
    expect(settings.baseUrl).toBe(`http://127.0.0.1:${DEFAULT_SERVE_PORT}/v3`);
    expect(settings.fixtures ?? {}).toEqual(REFERENCE_FIXTURES);
  });

  const created = creates.map((c) => c.roles.success!);
  // Without a record a create refers to, the preflight's creation is answered 404 and the run refused.
  itUnless(runnable ? undefined : `the contract holds no ${RUN_NEEDS}`)(
    'runs against the reference server: the creation cases that need its records pass',
    async () => {
      const reportDir = join(dir, 'example');
      const args = [
        'run',
        '--target',
        example,
        '--base-url',
        reference.baseUrl,
        '--grep',
        created.join('|'),
        '--allow-partial',
        '--generate',
        '0',
        '--workers',
        '1',
        '--report-dir',
        reportDir,
      ];
      const result = await runCli(args, {
        LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken,
        LAS_PAT: DEFAULT_CREDENTIALS.pat,
      });
      const record = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as CertificationRecord;
      const verdicts = Object.fromEntries(
        record.requirements.filter((r) => created.includes(r.id)).map((r) => [r.id, r.verdict]),
      );
      expect(verdicts).toEqual(Object.fromEntries(created.map((id) => [id, 'passed'])));
      expect(result.code, result.stderr).toBe(0);
    },
  );
});

describe('the target file is read once per run', () => {
  it('settings, waivers and generation all come from one reading: the file gone after it, none reads it again', () => {
    const waived = contract.requirements[0].id;
    const file = join(dir, 'read-once.yaml');
    writeFileSync(
      file,
      `baseUrl: http://127.0.0.1:9/v3\ngenerate:\n  inputs: 3\n  seed: 5\nwaivers:\n  - requirement: ${waived}\n    reason: known\n    expires: 2999-01-01\n`,
    );
    const flags = { target: file, level: 'must' as const, fault: [], choice: [], header: [], requirement: [] };
    const targetFile = targetFileReader(file);
    expect(targetFile()?.path).toBe(file);
    rmSync(file);
    expect(runSettings(flags, {}, targetFile).baseUrl).toBe('http://127.0.0.1:9/v3');
    expect(runDescription(flags, targetFile)).toMatchObject({
      waivers: [{ requirement: waived, reason: 'known', expires: '2999-01-01' }],
      generate: { inputs: 3, seed: 5 },
    });
  });
});

describe('a hostile target file: what run prints from it', { timeout: 120_000 }, () => {
  /** Retitle the terminal, ring it, clear the screen: what a hostile file's writer plants in its text. */
  const ESCAPES = '\u001b]0;PWNED\u0007\u001b[2J';
  /** The same as the console must show it: each control character as its picture. */
  const SHOWN = '\u241b]0;PWNED\u2407\u241b[2J';
  /** Any control character but the line feed between lines. */
  const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
  const quoted = (text: string) => JSON.stringify(text);
  /** A fault a regression case of a list can break: meta.pages rounded down, and the list it breaks. */
  const fault = FAULTS.find((f) => f.name === 'meta-pages-rounded-down');
  const rounded = lists.find((l) => l.roles.metaPages === fault?.requirement);

  itWith(rounded, 'list whose meta.pages the fault meta-pages-rounded-down breaks')(
    "a waiver's reason and a regression case's request reach the console and the job's annotations as pictures",
    async (list) => {
      const broken = list.roles.metaPages!;
      const query = [listQuery(list), `x=${ESCAPES}`].filter((part) => part !== '').join('&');
      const file = join(dir, 'hostile.yaml');
      writeFileSync(
        file,
        [
          'waivers:',
          `  - requirement: ${broken}`,
          `    reason: ${quoted(`rounding ${ESCAPES} fix`)}`,
          '    expires: 2999-12-31',
          'regressionCases:',
          `  - name: ${quoted(`pages ${ESCAPES} rounded`)}`,
          `    requirement: ${broken}`,
          `    why: ${quoted(`seen ${ESCAPES} in production`)}`,
          '    request:',
          '      method: GET',
          `      path: ${quoted(`${list.pathTemplate}?${query}`)}`,
          '      credentials: pat',
          '',
        ].join('\n'),
      );
      // The regression case alone, its requirement broken and waived; on GitHub Actions, so the annotations print too.
      const args = ['run', '--reference-server', '--fault', fault!.name, '--target', file];
      const selection = ['--grep', 'regression', '--allow-partial', '--generate', '0', '--workers', '1'];
      const reportDir = join(dir, 'hostile-reports');
      const job = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'hostile-step-summary.md') };
      const result = await runCli([...args, ...selection, '--report-dir', reportDir], job);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
      const section = contract.requirement(broken).section;
      expect(result.stdout).toContain(
        `${broken} (MUST, section ${section}): waived until 2999-12-31: rounding ${SHOWN} fix`,
      );
      const notice = result.stdout.split('\n').find((line) => line.startsWith(`::notice title=${broken} `));
      expect(notice).toContain(`rounding ${SHOWN} fix`);
      expect(notice).toContain(query.replace(ESCAPES, SHOWN));
    },
  );
});
