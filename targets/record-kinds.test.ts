// Every kind of record the contract names (`x-record` on a request member) is one a target can
// supply and the reference server holds. A contract that names a new kind fails here, saying what
// to add, instead of every creation that needs such a record going unrun against a target and
// answered 404 by the reference server.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../contract/index.ts';
import { registerRunCommand } from '../cli/run.ts';
import { REFERENCE_FIXTURES } from '../server/index.ts';
import { fixtureMembers } from '../suites/documents.ts';
import { TARGET_ENVIRONMENT, type TargetSettings } from './target.ts';

const recordKinds = [...new Set(loadContract().operations.flatMap((operation) => fixtureMembers(operation).map(([, kind]) => kind as string)))];
const program = new Command();
registerRunCommand(program);
const runFlags = program.commands.find((command) => command.name() === 'run')!.options.map((option) => option.attributeName());
const fileFixtures = (JSON.parse(readFileSync(new URL('target.schema.json', import.meta.url), 'utf8')) as { properties: { fixtures: { properties: Record<string, unknown> } } }).properties.fixtures.properties;

describe('the kinds of record the contract names', () => {
  test('there is at least one (the creation cases that must succeed need them)', () => {
    expect(recordKinds.length).toBeGreaterThan(0);
  });

  for (const kind of recordKinds) {
    test(`${kind}: a target supplies it (a flag, a variable, a target-file key) and the reference server holds one`, () => {
      const where = 'add it to TargetSettings, TARGET_ENVIRONMENT and SETTING_SOURCES (targets/target.ts), fixtures in targets/target.schema.json, the run command\'s flags (cli/run.ts) and REFERENCE_FIXTURES (server/defaults.ts)';
      expect(TARGET_ENVIRONMENT[kind as keyof TargetSettings], `${kind}: no variable; ${where}`).toBeDefined();
      expect(runFlags, `${kind}: no flag of run; ${where}`).toContain(kind);
      expect(fileFixtures[kind], `${kind}: no target-file key; ${where}`).toBeDefined();
      expect(REFERENCE_FIXTURES[kind as keyof typeof REFERENCE_FIXTURES], `${kind}: the reference server holds none; ${where}`).toMatch(/^[0-9a-f]{24}$/);
    });
  }
});
