// `npm run contract:change -- remove PATH` or `npm run contract:change -- add FILE`: makes in this
// checkout the change a contributor makes when the specification loses an operation or gains the
// ones FILE holds (suites/new-operation.yaml is such a file), data only: schemas/openapi.yaml and
// schemas/requirements.yaml (test-support/contract-copy.ts), the case files of components gone
// (and those FILE brings under `caseFiles`), then the generated files. Run `npm test` afterwards
// to see that the kit follows; `git checkout -- . && git clean -fd schemas docs server` undoes it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CASE_DIR } from '../contract/schema-cases.ts';
import { SCHEMA_DIR } from '../contract/contract.ts';
import { contractCopy, type ContractChange } from './contract-copy.ts';

const USAGE = 'usage: npm run contract:change -- remove PATH | add FILE';
const GENERATORS = ['schemas:generate', 'docs:requirements', 'faults:table', 'targets:settings'];

function changeOf(args: string[]): ContractChange & { caseFiles?: Record<string, unknown> } {
  const [verb, operand, ...rest] = args;
  if (operand === undefined || rest.length > 0) throw new Error(USAGE);
  if (verb === 'remove') return { removedPaths: [operand] };
  if (verb === 'add') return parseYaml(readFileSync(operand, 'utf8')) as ContractChange;
  throw new Error(USAGE);
}

function main(): void {
  const change = changeOf(process.argv.slice(2));
  const directory = contractCopy(change);
  try {
    for (const file of ['openapi.yaml', 'requirements.yaml'])
      copyFileSync(join(directory, file), join(SCHEMA_DIR, file));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  for (const [name, file] of Object.entries(change.caseFiles ?? {}))
    writeFileSync(new URL(name, CASE_DIR), `${JSON.stringify(file, null, 2)}\n`);
  const components = new Set(
    Object.keys(
      (parseYaml(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8')) as { components: { schemas: object } })
        .components.schemas,
    ),
  );
  for (const name of readdirSync(CASE_DIR).filter((n) => n.endsWith('.json'))) {
    const { schema } = JSON.parse(readFileSync(new URL(name, CASE_DIR), 'utf8')) as { schema: string };
    if (!components.has(schema)) rmSync(new URL(name, CASE_DIR));
  }
  for (const script of GENERATORS) execFileSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
  // Written back as a contributor's editor would save them.
  execFileSync('npx', ['prettier', '--log-level', 'warn', '--write', SCHEMA_DIR, CASE_DIR.pathname], {
    stdio: 'inherit',
  });
}

try {
  main();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}
