// Runs the suite against many targets for the fault and choice proofs: the targets are split
// into one group per core, each group one Playwright run (suites/proof.config.ts, one worker,
// one project per target), the groups side by side. A target's record is the one a run of its
// own would write. Measured on 2 cores, a run per target spent about a third of its CPU time
// starting Playwright's runner and rendering reports no proof reads.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { RECORD_FILE, REQUIREMENT_ANNOTATION, type RunDescription } from '../run-protocol/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import type { RegressionCase } from '../targets/regression-cases.ts';
import { TARGET_ENVIRONMENT, type Target } from '../targets/target.ts';
import { targetEnvironment } from '../targets/target-environment.ts';
import { PROOF_TARGETS, type ProofTarget } from './proof-targets.ts';
import { ROOT, runSuite, suiteArguments, playwrightChildEnvironment, CONFIG_FILE } from './runner.ts';

export const PROOF_CONFIG_FILE = join(ROOT, 'suites', 'proof.config.ts');

export interface ProofRun {
  /** kebab-case: the project's name and its record's folder. */
  name: string;
  target: Target;
  /** Only the cases with these titles run; absent: every case. */
  titles?: string[];
}

export interface ListedCase {
  title: string;
  /** The requirements the case names: its own and those it covers. */
  requirements: string[];
}

interface ListedSuite {
  suites?: ListedSuite[];
  specs?: { title: string; tests: { annotations: { type: string; description?: string }[] }[] }[];
}

function casesOf(suite: ListedSuite): ListedCase[] {
  const own = (suite.specs ?? []).map((spec) => ({
    title: spec.title,
    requirements: [
      ...new Set(
        spec.tests.flatMap((t) =>
          t.annotations.filter((a) => a.type === REQUIREMENT_ANNOTATION).map((a) => String(a.description)),
        ),
      ),
    ],
  }));
  return [...own, ...(suite.suites ?? []).flatMap(casesOf)];
}

/**
 * Every case of the suite with the requirements it names, as `playwright test --list` reports them (no request is
 * sent), in the order Playwright deals them out; with a target file's regression cases when given.
 */
export async function listCases(
  target: Target,
  baseEnvironment: Record<string, string | undefined>,
  regressionCases: RegressionCase[] = [],
): Promise<ListedCase[]> {
  const run = {
    target,
    regressionCases,
    reportDir: ROOT,
    failLevel: 'must' as const,
    baseEnvironment,
    output: 'ignore' as const,
    config: CONFIG_FILE,
  };
  const child = spawn(process.execPath, [...suiteArguments(run), '--list', '--reporter=json'], {
    cwd: ROOT,
    env: playwrightChildEnvironment(run),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`listing the suite's cases failed (Playwright exit code ${code})`);
  return casesOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ListedSuite);
}

export interface ProofOutcome {
  /** Each run's record; absent when its project wrote none. */
  records: Map<string, CertificationRecord | undefined>;
  /** The exit code of each Playwright run (one per group). */
  playwrightExitCodes: (number | null)[];
}

/** The groups, dealt out in turn so that each gets a like share. */
export function groupsOf<T>(items: T[], count: number): T[][] {
  const groups: T[][] = Array.from({ length: Math.min(count, items.length) }, () => []);
  items.forEach((item, index) => groups[index % groups.length].push(item));
  return groups;
}

function withoutBaseUrl(environment: Record<string, string>): Record<string, string> {
  const { [TARGET_ENVIRONMENT.baseUrl]: _baseUrl, ...rest } = environment;
  return rest;
}

function recordIn(dir: string): CertificationRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, RECORD_FILE), 'utf8')) as CertificationRecord;
  } catch {
    return undefined;
  }
}

/**
 * Runs the suite once per run, `groups` Playwright runs at a time. The runs must share their
 * credentials: the secret scrubber reads the tokens of the run's environment. `run` describes
 * the runs as the run command would (generated inputs, say); absent, the plain suite.
 */
export async function runProof(
  runs: ProofRun[],
  reportDir: string,
  baseEnvironment: Record<string, string | undefined>,
  groups = cpus().length,
  run?: RunDescription,
): Promise<ProofOutcome> {
  const targets: ProofTarget[] = runs.map((run) => ({
    name: run.name,
    environment: targetEnvironment(run.target),
    ...(run.titles ? { titles: run.titles } : {}),
  }));
  if (targets.some((t) => !isDeepStrictEqual(withoutBaseUrl(t.environment), withoutBaseUrl(targets[0].environment)))) {
    throw new Error('the runs of one proof must share their credentials, fixtures and limits');
  }
  const parts = groupsOf(
    runs.map((run, index) => ({ run, target: targets[index] })),
    groups,
  );
  const playwrightExitCodes = await Promise.all(
    parts.map(async (part, index) => {
      const targetsFile = join(reportDir, `part-${index + 1}-targets.json`);
      mkdirSync(reportDir, { recursive: true });
      writeFileSync(targetsFile, JSON.stringify(part.map((p) => p.target)), { mode: 0o600 });
      const outcome = await runSuite({
        target: part[0].run.target,
        reportDir: join(reportDir, `part-${index + 1}`),
        failLevel: 'must',
        workers: 1,
        config: PROOF_CONFIG_FILE,
        baseEnvironment: { ...baseEnvironment, [PROOF_TARGETS]: targetsFile },
        output: 'ignore',
        ...(run ? { run } : {}),
      });
      return outcome.playwrightExitCode;
    }),
  );
  const records = new Map(
    parts.flatMap((part, index) =>
      part.map(({ run }) => [run.name, recordIn(join(reportDir, `part-${index + 1}`, run.name))] as const),
    ),
  );
  return { records, playwrightExitCodes };
}
