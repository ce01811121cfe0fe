// The CI examples of docs/ci.md, run as their CI systems would run them. The GitHub example is one
// step, the kit's own composite action (action.yml at the repository's root): its shell steps run
// here as GitHub runs them, expressions filled in as GitHub fills them, so the kit is packed and
// installed as a package into a directory of its own and run from there. Against a reference
// server with one fault (a list's meta.pages rounded down, when the contract has a list) the job
// fails, annotates it, fills the summary and leaves a per-requirement
// JUnit whose only failure is the requirement the fault breaks; with its variables and secrets
// unset (GitHub expands them to empty strings) the job fails naming them. The GitLab job runs in a
// checkout of the kit (`npm ci` is how these tests were installed): with its variables unset
// (GitLab leaves them undefined) it fails too.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_BASH, shell, type ShellResult } from '../../test-support/shell.ts';
import { parse as parseYaml } from 'yaml';
import {
  DEFAULT_CREDENTIALS,
  FAULTS,
  REFERENCE_FIXTURES,
  startReferenceServer,
  type StartedReferenceServer,
} from '../../server/index.ts';
import { hermeticEnvironment, runnable, RUN_NEEDS } from '../../cli/test-support.ts';
import { contract, itWith, lists } from '../../contract/test-support.ts';
import { recordKinds, type Operation } from '../../contract/index.ts';
import { settingRow, settingRows } from '../../targets/settings.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'las-conformance.js');
const FAULT = FAULTS.find((f) => f.name === 'meta-pages-rounded-down');
/** The list whose meta.pages the fault breaks, when the contract has one. */
const rounded = lists.find((l) => l.roles.metaPages === FAULT?.requirement);
const itFaultyList = itWith(rounded, 'list whose meta.pages the fault meta-pages-rounded-down breaks');
const INSTALL = 'npm ci';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** The flags that would put a setting on the command line, where every process on the machine sees it. */
const SETTING_FLAGS = [
  '--base-url',
  '--session-token',
  '--pat',
  '--forbidden-token',
  ...settingRows()
    .filter((row) => row.record)
    .map((row) => row.flag),
  '--header',
];

interface WorkflowStep {
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

interface GithubWorkflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: WorkflowStep[] }>;
}

interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  runs: { using: string; steps: WorkflowStep[] };
}

const workflow = parseYaml(readFileSync(new URL('github-actions.yml', import.meta.url), 'utf8')) as GithubWorkflow;
const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as CompositeAction;
const workflowSteps = Object.values(workflow.jobs).flatMap((job) => job.steps);
/**
 * The kinds of record the contract names that the action takes no input for: it was written for the contract it was
 * shipped with, and a run given some of a create's records but not all is refused by the preflight's creation.
 */
const recordsTheActionLacks = recordKinds(contract.operations).filter(
  (kind) => !(settingRow(kind).flag.replace(/^--/, '') in action.inputs),
);
/** A test of the job against a faulty target: skipped, saying why, when it cannot run as the contract asks. */
const itFaulty = (title: string, test: (list: Operation) => void) =>
  recordsTheActionLacks.length > 0
    ? it.skip(`${title} (skipped: the action takes no record ${recordsTheActionLacks.join(', ')}, which the contract names)`, () =>
        undefined)
    : itFaultyList(title, test);
/** The example's step that runs the kit's action. */
const gateStep = workflowSteps.find((step) => step.uses?.split('@')[0].endsWith('/las-conformance'))!;

function gitlabCommands(): string[] {
  const jobs = parseYaml(readFileSync(new URL('gitlab-ci.yml', import.meta.url), 'utf8')) as Record<
    string,
    { script: string[] }
  >;
  return Object.values(jobs).flatMap((job) => job.script);
}

/** Fills in `${{ name }}` as GitHub does; an expression the test does not know is an error, never skipped. */
function expand(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
    if (!(name in context)) throw new Error(`the test does not know the expression \${{ ${name} }}`);
    return context[name];
  });
}

/**
 * The `vars.` and `secrets.` the example names, each with its value in `given`, or empty as GitHub expands one not set.
 */
function repositorySettings(given: Record<string, string>): Record<string, string> {
  const names = Object.values(gateStep.with ?? {}).flatMap((value) =>
    [...value.matchAll(/\$\{\{\s*((?:vars|secrets)\.(\w+))\s*\}\}/g)].map((m) => [m[1], m[2]]),
  );
  return Object.fromEntries(names.map(([expression, name]) => [expression, given[name] ?? '']));
}

/** The action's inputs as the example's step gives them, defaults for the rest. */
function actionInputs(repository: Record<string, string>): Record<string, string> {
  const given = Object.fromEntries(
    Object.entries(gateStep.with ?? {}).map(([name, value]) => [name, expand(value, repository)]),
  );
  return Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [`inputs.${name}`, given[name] ?? input.default ?? '']),
  );
}

/**
 * The action's shell steps, run in `workspace` as GitHub runs a composite action's steps; stops at the first that
 * fails, as a job does.
 */
async function runActionSteps(
  workspace: string,
  runnerTemp: string,
  repository: Record<string, string>,
  env: Record<string, string>,
): Promise<ShellResult[]> {
  const context = { ...actionInputs(repository), 'runner.temp': runnerTemp };
  const results: ShellResult[] = [];
  for (const step of action.runs.steps.filter((s) => s.run !== undefined)) {
    expect(step.shell).toBe('bash');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value, context)]),
    );
    const result = await shell(
      expand(step.run!, context),
      workspace,
      { ...env, GITHUB_ACTION_PATH: ROOT, ...stepEnv },
      GITHUB_BASH,
    );
    results.push(result);
    if (result.code !== 0) break;
  }
  return results;
}

/** Where the action writes its reports, relative to the job's working directory. */
const reportDirOf = (inputs: Record<string, string>) => inputs['inputs.report-dir'];

describe('the CI examples', () => {
  it('gate pull requests and deployments (workflow_call), not only a schedule', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['pull_request', 'workflow_call']));
  });

  it("on GitHub, the kit is one step: this repository's action at the release of this version, given every input it requires", () => {
    expect(gateStep.uses).toMatch(new RegExp(`@v${VERSION.replace(/\./g, '\\.')}$`));
    expect(action.runs.using).toBe('composite');
    const required = Object.entries(action.inputs)
      .filter(([, input]) => input.required)
      .map(([name]) => name);
    expect(Object.keys(gateStep.with ?? {})).toEqual(expect.arrayContaining(required));
    expect(workflowSteps.filter((step) => step.run !== undefined)).toEqual([]);
  });

  it('take every setting from repository variables and secrets, tokens from secrets', () => {
    for (const [name, value] of Object.entries(gateStep.with ?? {})) {
      expect(value, name).toMatch(/^\$\{\{\s*(vars|secrets)\.\w+\s*\}\}$/);
      if (/token|pat/.test(name)) expect(value, name).toMatch(/secrets\./);
    }
  });

  it('never put a setting on a command line: the action hands its inputs to the kit as variables', () => {
    const commands = [...action.runs.steps.flatMap((step) => step.run ?? []), ...gitlabCommands()];
    for (const flag of SETTING_FLAGS) expect(commands.join('\n'), flag).not.toContain(flag);
    for (const step of action.runs.steps)
      for (const value of Object.values(step.env ?? {}))
        expect(value).not.toMatch(/^\$\{\{\s*inputs\.[\w-]+\s*\}\}\s+\S/);
  });

  it('on GitLab, run the commands docs/ci.md shows, the install first', () => {
    const guide = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
    const shown = /```sh\n([\s\S]*?)```/.exec(guide)?.[1].trim().split('\n');
    expect(shown).toEqual(gitlabCommands());
    expect(gitlabCommands()[0]).toBe(INSTALL);
  });

  it('give GitLab the per-requirement JUnit file the run writes, where the GitHub action keeps its reports', () => {
    const jobs = parseYaml(readFileSync(new URL('gitlab-ci.yml', import.meta.url), 'utf8')) as Record<
      string,
      { artifacts: { reports: { junit: string } } }
    >;
    const reportDir = /--report-dir (\S+)/.exec(gitlabCommands()[1])?.[1];
    expect(Object.values(jobs)[0].artifacts.reports.junit).toBe(`${reportDir}/junit.xml`);
    expect(action.inputs['report-dir'].default).toBe(reportDir);
  });
});

describe('the GitLab job with its variables unset', () => {
  let dir: string;
  let result: ShellResult;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'las-ci-gitlab-'));
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(dir, 'node_modules', '.bin', 'las-conformance'));
    // npx must run the kit of this checkout, never fetch a package.
    const env = hermeticEnvironment({ CI: 'true', GITLAB_CI: 'true', npm_config_yes: 'false' });
    for (const command of gitlabCommands().slice(1)) result = await shell(command, dir, env);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails the job (exit 2) with one line naming the base URL to give, and tests nothing', () => {
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      "las-conformance: no target base URL: give --base-url, LAS_BASE_URL or baseUrl in the target file, or --reference-server to test the kit's own reference server",
    ]);
    expect(result.stdout).not.toContain('Embedded reference server');
  });
});

describe('the GitHub example, its action run as GitHub runs it', { timeout: 120_000 }, () => {
  let server: StartedReferenceServer;
  let workspace: string;
  let runnerTemp: string;
  let stepSummary: string;
  let install: ShellResult;
  let unset: ShellResult[];
  let faulty: ShellResult[];
  let faultyReportDir: string;
  const jobEnvironment = () =>
    hermeticEnvironment({ CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary });

  beforeAll(async () => {
    server = await startReferenceServer({ faults: rounded === undefined ? [] : [FAULT!.name] });
    workspace = mkdtempSync(join(tmpdir(), 'las-ci-github-'));
    runnerTemp = join(workspace, '.runner-temp');
    mkdirSync(runnerTemp);
    stepSummary = join(runnerTemp, 'step-summary.md');
    writeFileSync(stepSummary, '');
    // Variables and secrets not set: the install runs, the gate refuses.
    unset = await runActionSteps(workspace, runnerTemp, repositorySettings({}), jobEnvironment());
    install = unset[0];
    const settings = {
      LAS_BASE_URL: server.baseUrl,
      LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken,
      LAS_PAT: DEFAULT_CREDENTIALS.pat,
      LAS_FORBIDDEN_TOKEN: DEFAULT_CREDENTIALS.forbiddenToken,
      ...Object.fromEntries(Object.entries(REFERENCE_FIXTURES).map(([kind, id]) => [settingRow(kind).variable, id])),
    };
    if (rounded === undefined || recordsTheActionLacks.length > 0) return;
    faulty = await runActionSteps(workspace, runnerTemp, repositorySettings(settings), jobEnvironment());
    faultyReportDir = join(workspace, reportDirOf(actionInputs(repositorySettings(settings))));
  }, 10 * 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  const requirement = rounded?.roles.metaPages ?? '';
  const section = rounded === undefined ? '' : contract.requirement(requirement).section.replace(/\./g, '\\.');
  const kitProject = () => join(runnerTemp, 'las-conformance-kit');

  it('installs the kit as a package: the tarball npm pack makes, into a directory of its own', () => {
    expect(install.code, install.stderr).toBe(0);
    const kit = join(runnerTemp, 'las-conformance-kit', 'node_modules', 'las-conformance');
    expect(existsSync(join(kit, 'package.json'))).toBe(true);
    expect(existsSync(join(kit, 'playwright.config.ts'))).toBe(true);
    // A package holds what runs, not the kit's own tests.
    expect(readdirSync(join(kit, 'cli')).filter((name) => name.endsWith('.test.ts'))).toEqual([]);
  });

  itWith(runnable, RUN_NEEDS)(
    'runs from the project it was installed in: npx las-conformance run --reference-server, its reports under that directory',
    async (operation) => {
      const required = operation.roles.success!;
      const result = await shell(
        `npx --no-install las-conformance run --reference-server --requirement ${required} --allow-partial --workers 1 --report-dir reports/embedded`,
        kitProject(),
        hermeticEnvironment({ CI: 'true' }),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Embedded reference server at http://127.0.0.1:');
      const record = JSON.parse(
        readFileSync(join(kitProject(), 'reports', 'embedded', 'conformance.json'), 'utf8'),
      ) as {
        requirements: { id: string; verdict: string }[];
        gate: { result: string };
      };
      expect(record.requirements.find((r) => r.id === required)?.verdict).toBe('passed');
      expect(record.gate.result).toBe('pass');
    },
  );

  it('there, in CI and given no target, refuses to run (exit 2) instead of testing its own server', async () => {
    const result = await shell(
      'npx --no-install las-conformance run',
      kitProject(),
      hermeticEnvironment({ CI: 'true' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^las-conformance: no target base URL: /);
  }, 60_000);

  it('with the variables and secrets unset, fails the job (exit 2) with one line naming them, and tests nothing', () => {
    const gate = unset.at(-1)!;
    expect(unset).toHaveLength(2);
    expect(gate.code).toBe(2);
    expect(gate.stderr.trimEnd().split('\n')).toEqual([
      'las-conformance: LAS_BASE_URL, LAS_SESSION_TOKEN, LAS_PAT are set but empty: give them values or leave them out (an empty setting is a variable or secret the job did not get)',
    ]);
    expect(gate.stdout).not.toContain('Embedded reference server');
  });

  itFaulty('against a faulty target, fails the job (exit 1)', () => {
    expect(faulty.at(-1)?.code, faulty.at(-1)?.stderr).toBe(1);
  });

  itFaulty("writes the reports under the job's working directory, not inside the installed package", () => {
    expect(faultyReportDir.startsWith(workspace)).toBe(true);
    expect(existsSync(join(faultyReportDir, 'conformance.json'))).toBe(true);
    expect(
      existsSync(join(runnerTemp, 'las-conformance-kit', 'node_modules', 'las-conformance', 'reports', 'conformance')),
    ).toBe(false);
  });

  itFaulty('leaves a junit.xml whose only failing test case is the requirement the fault breaks', () => {
    const junit = readFileSync(join(faultyReportDir, 'junit.xml'), 'utf8');
    const failing = [
      ...junit.matchAll(/<testcase name="([A-Z0-9-]+) · [^"]*"[^>]*>((?:(?!<\/testcase>)[\s\S])*)<\/testcase>/g),
    ]
      .filter(([, , body]) => body.includes('<failure'))
      .map(([, id]) => id);
    expect(failing).toEqual([requirement]);
    expect(junit).toMatch(
      new RegExp(`<failure message="${requirement}: [^"]+ at /meta/pages [^"]+ \\| reproduce: curl -i -g -X GET `),
    );
  });

  itFaulty('annotates the job with the failed requirement and its curl line', (list) => {
    const errors = faulty
      .at(-1)!
      .stdout.split('\n')
      .filter((line) => line.startsWith('::error '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^::error title=${requirement} \\(MUST%2C section ${section}\\)::.*%0Acurl -i -g -X GET "\\$LAS_BASE_URL${list.pathTemplate}`,
      ),
    );
  });

  itFaulty('lists the failed requirement with its finding and curl line on the console, before the verdict', () => {
    const stdout = faulty.at(-1)!.stdout;
    const failures = stdout.indexOf('Failed requirements (1):');
    expect(failures).toBeGreaterThan(-1);
    expect(stdout.indexOf('Verdict: FAILED')).toBeGreaterThan(failures);
    expect(stdout.slice(failures)).toMatch(
      new RegExp(
        `\\n  ${requirement} \\(MUST, section ${section}; judged on \\d+ exchanges?, \\d+ broke it\\): .*\\n    .* at /meta/pages .*\\n    curl -i -g -X GET `,
      ),
    );
  });

  itFaulty('appends summary.md to the step summary and writes the certification report', () => {
    expect(readFileSync(stepSummary, 'utf8')).toBe(`${readFileSync(join(faultyReportDir, 'summary.md'), 'utf8')}\n`);
    expect(readFileSync(stepSummary, 'utf8')).toMatch(/^# Conformance verdict: FAILED\n/);
    expect(existsSync(join(faultyReportDir, 'junit-cases.xml'))).toBe(true);
    expect(readFileSync(join(faultyReportDir, 'certification.html'), 'utf8')).toContain('<h1>FAILED</h1>');
  });
});
