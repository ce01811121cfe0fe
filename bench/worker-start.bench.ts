// `npm run bench worker-start`: what a Playwright process of the suite loads before any case runs.
// Every process Playwright starts (its runner, a worker per core, and a new worker after every
// failed test) evaluates playwright.config.ts; a worker then loads its spec files, which import
// suites/fixtures.ts. Each is imported in a fresh process (tsx's loader, as the kit runs), told a
// run the way a worker is (LAS_RUN); the baseline is a process of the
// same kind that imports nothing of the kit, measured in the same run. A module is a file of the
// kit's own (node_modules left out), counted as the loader resolves it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;

/** Loader hooks, registered in the child, that write every kit module the child resolves to LAS_BENCH_MODULES. */
const COUNTING_HOOKS = `
import { appendFileSync } from 'node:fs';
const root = ${JSON.stringify(pathToFileURL(ROOT).href)};
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith(root) && !resolved.url.includes('/node_modules/')) {
    appendFileSync(process.env.LAS_BENCH_MODULES, resolved.url + '\\n');
  }
  return resolved;
}`;
const HOOKS_URL = `data:text/javascript,${encodeURIComponent(COUNTING_HOOKS)}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(HOOKS_URL)});`;

/** What a worker is told: a run against a target, as the run command tells it (LAS_RUN, its secrets beside it). */
const WORKER_ENVIRONMENT = {
  LAS_RUN: JSON.stringify({
    run: {
      failLevel: 'must',
      readOnly: false,
      allowPartial: false,
      waivers: [],
      target: { baseUrl: 'http://127.0.0.1:9/v3' },
    },
    secrets: { sessionToken: 'bench-session-token', pat: 'bench-personal-access-token' },
  }),
};

interface Start {
  modules: number;
  ms: number;
}

/** A fresh process that imports `files` in turn (none: nothing of the kit): kit modules it resolved, ms to import. */
function start(files: string[]): Start {
  const dir = mkdtempSync(join(tmpdir(), 'las-worker-start-'));
  const log = join(dir, 'modules');
  try {
    const imports = files.map((file) => `await import(${JSON.stringify(pathToFileURL(join(ROOT, file)).href)});`);
    const script = `${imports.join('\n')}
process.stdout.write(String(performance.now()));`;
    const args = ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`];
    const child = spawnSync(process.execPath, [...args, '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, ...WORKER_ENVIRONMENT, LAS_BENCH_MODULES: log },
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`importing ${files.join(', ') || 'nothing'} failed: ${child.stderr}`);
    const modules = new Set(readFileSync(log, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean));
    return { modules: modules.size, ms: Number(child.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median start over RUNS processes. */
function medianStart(files: string[]): Start {
  const starts = Array.from({ length: RUNS }, () => start(files)).sort((a, b) => a.ms - b.ms);
  return starts[Math.floor(RUNS / 2)];
}

export default function workerStartBench(): Promise<void> {
  const baseline = medianStart([]);
  process.stdout.write(`nothing of the kit: ${baseline.ms.toFixed(0)} ms (baseline, median of ${RUNS})\n`);
  for (const files of [
    ['playwright.config.ts'],
    ['suites/fixtures.ts'],
    ['playwright.config.ts', 'suites/fixtures.ts'],
  ]) {
    const measured = medianStart(files);
    const ratio = (measured.ms / baseline.ms).toFixed(2);
    const what = files.join(' + ');
    process.stdout.write(
      `${what}: ${measured.modules} modules, ${measured.ms.toFixed(0)} ms, ${ratio}x the baseline\n`,
    );
  }
  return Promise.resolve();
}
