// The CI examples of docs/ci.md: both jobs run the same commands, and those commands, run as a
// GitHub Actions job would (GITHUB_ACTIONS=true, a step summary file), against a reference server
// with one fault, fail the job, annotate it, fill the summary, and leave a per-requirement JUnit
// whose only failure is the requirement the fault breaks. The install step (`npm ci`) is how
// these tests were installed; every command after it runs here as written, in a directory of
// its own where the kit is the project's local `las-conformance`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell, type ShellResult } from '../../test-support/shell.ts';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_CREDENTIALS, FAULTS, REFERENCE_FIXTURES, startReferenceServer, type StartedReferenceServer } from '../../server/index.ts';
import { hermeticEnvironment } from '../../cli/test-support.ts';

const BIN = fileURLToPath(new URL('../../bin/las-conformance.js', import.meta.url));
const FAULT = 'meta-pages-rounded-down';
const INSTALL = 'npm ci';

interface GithubWorkflow {
  jobs: Record<string, { steps: { run?: string; uses?: string }[] }>;
}

function githubCommands(): string[] {
  const workflow = parseYaml(readFileSync(new URL('github-actions.yml', import.meta.url), 'utf8')) as GithubWorkflow;
  return Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : [])));
}

function gitlabCommands(): string[] {
  const jobs = parseYaml(readFileSync(new URL('gitlab-ci.yml', import.meta.url), 'utf8')) as Record<string, { script: string[]; artifacts: { reports: { junit: string } } }>;
  return Object.values(jobs).flatMap((job) => job.script);
}

describe('the CI examples', () => {
  it('run the same commands, the install first, on GitHub Actions and GitLab CI', () => {
    expect(githubCommands()).toEqual(gitlabCommands());
    expect(githubCommands()[0]).toBe(INSTALL);
    expect(githubCommands().slice(1).every((command) => command.startsWith('npx las-conformance '))).toBe(true);
  });

  it('run the commands docs/ci.md shows', () => {
    const guide = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
    const shown = /```sh\n([\s\S]*?)```/.exec(guide)?.[1].trim().split('\n');
    expect(shown).toEqual(githubCommands());
  });

  it('give GitLab the per-requirement JUnit file the run writes', () => {
    const jobs = parseYaml(readFileSync(new URL('gitlab-ci.yml', import.meta.url), 'utf8')) as Record<string, { artifacts: { reports: { junit: string } } }>;
    const reportDir = /--report-dir (\S+)/.exec(gitlabCommands()[1])?.[1];
    expect(Object.values(jobs)[0].artifacts.reports.junit).toBe(`${reportDir}/junit.xml`);
  });
});

describe('the CI examples\' commands, as a GitHub Actions job runs them against a faulty target', () => {
  let server: StartedReferenceServer;
  let dir: string;
  let results: ShellResult[];
  let reportDir: string;
  let stepSummary: string;

  beforeAll(async () => {
    server = await startReferenceServer({ faults: [FAULT] });
    dir = mkdtempSync(join(tmpdir(), 'las-ci-example-'));
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(dir, 'node_modules', '.bin', 'las-conformance'));
    stepSummary = join(dir, 'step-summary.md');
    writeFileSync(stepSummary, '');
    reportDir = join(dir, /--report-dir (\S+)/.exec(githubCommands()[1])![1]);
    const env = hermeticEnvironment({
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: stepSummary,
      // npx must run the kit of this checkout, never fetch a package.
      npm_config_yes: 'false',
      LAS_BASE_URL: server.baseUrl,
      LAS_SESSION_TOKEN: DEFAULT_CREDENTIALS.sessionToken,
      LAS_PAT: DEFAULT_CREDENTIALS.pat,
      LAS_FORBIDDEN_TOKEN: DEFAULT_CREDENTIALS.forbiddenToken,
      LAS_OWNER_USER_ID: REFERENCE_FIXTURES.ownerUserId,
      LAS_COLLECTION_ITEM_ID: REFERENCE_FIXTURES.collectionItemId,
    });
    results = [];
    for (const command of githubCommands().slice(1)) results.push(await shell(command, dir, env));
  }, 10 * 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const requirement = FAULTS.find((f) => f.name === FAULT)!.requirement;

  it('fails the job (exit 1)', () => {
    expect(results.at(-1)?.code, results.at(-1)?.stderr).toBe(1);
  });

  it('leaves a junit.xml whose only failing test case is the requirement the fault breaks', () => {
    const junit = readFileSync(join(reportDir, 'junit.xml'), 'utf8');
    const failing = [...junit.matchAll(/<testcase name="([A-Z0-9-]+) · [^"]*"[^>]*>((?:(?!<\/testcase>)[\s\S])*)<\/testcase>/g)].filter(([, , body]) => body.includes('<failure')).map(([, id]) => id);
    expect(failing).toEqual([requirement]);
    expect(junit).toMatch(new RegExp(`<failure message="${requirement}: [^"]+ at /meta/pages [^"]+ \\| reproduce: curl -i -g -X GET `));
  });

  it('annotates the job with the failed requirement and its curl line', () => {
    const errors = results.at(-1)!.stdout.split('\n').filter((line) => line.startsWith('::error '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^::error title=${requirement} \\(MUST%2C section 4\\.1\\)::.*%0Acurl -i -g -X GET "\\$LAS_BASE_URL/notification-groups`));
  });

  it('lists the failed requirement with its finding and curl line on the console, before the verdict', () => {
    const stdout = results.at(-1)!.stdout;
    const failures = stdout.indexOf('Failed requirements (1):');
    expect(failures).toBeGreaterThan(-1);
    expect(stdout.indexOf('Verdict: FAILED')).toBeGreaterThan(failures);
    expect(stdout.slice(failures)).toMatch(new RegExp(`\\n  ${requirement} \\(MUST, section 4\\.1; judged on \\d+ exchanges?, \\d+ broke it\\): .*\\n    .* at /meta/pages .*\\n    curl -i -g -X GET `));
  });

  it('appends summary.md to the step summary and writes the certification report', () => {
    expect(readFileSync(stepSummary, 'utf8')).toBe(`${readFileSync(join(reportDir, 'summary.md'), 'utf8')}\n`);
    expect(readFileSync(stepSummary, 'utf8')).toMatch(/^# Conformance verdict: FAILED\n/);
    expect(existsSync(join(reportDir, 'junit-cases.xml'))).toBe(true);
    expect(readFileSync(join(reportDir, 'certification.html'), 'utf8')).toContain('<h1>FAILED</h1>');
  });
});
