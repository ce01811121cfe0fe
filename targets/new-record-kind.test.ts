// The proof that a kind of record is named by the contract alone: a copy of schemas/ in which
// the first create whose document has attributes names one more kind there (`x-record:
// kitProofRecordId`, a name no revision of the specification will use), and with no other change
// to the kit its flag, variable and target-file key give it, the record says whether it was given,
// the reference server holds one and the shipped target files, rewritten, give it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { SCHEMA_DIR, useSchemaDirectory } from '../contract/contract.ts';

const KIND = 'kitProofRecordId';

interface SchemaYaml {
  $ref?: string;
  properties?: Record<string, SchemaYaml>;
}

/** The component a `$ref` names, by its name. */
const componentName = (schema: SchemaYaml | undefined) => schema?.$ref?.split('/').pop();

/** A copy of schemas/ whose first create's attributes name one more kind of record. */
function contractWithKind(): string {
  const openapi = parseYaml(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8')) as {
    paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: SchemaYaml }> } } }>;
    components: { schemas: Record<string, SchemaYaml> };
  };
  const component = (schema: SchemaYaml | undefined) =>
    openapi.components.schemas[componentName(schema) ?? ''] ?? schema;
  const attributes = Object.values(openapi.paths)
    .map((item) => Object.values(item.post?.requestBody?.content ?? {})[0]?.schema)
    .map((document) => componentName(component(component(document)?.properties?.data)?.properties?.attributes))
    .find((name) => name !== undefined);
  if (attributes === undefined) throw new Error('the contract holds no create whose document has attributes');
  openapi.components.schemas[attributes].properties![KIND] = { type: 'string', 'x-record': KIND } as SchemaYaml;
  const directory = mkdtempSync(join(tmpdir(), 'las-new-record-kind-'));
  writeFileSync(join(directory, 'openapi.yaml'), stringifyYaml(openapi));
  writeFileSync(join(directory, 'requirements.yaml'), readFileSync(join(SCHEMA_DIR, 'requirements.yaml')));
  return directory;
}

// Every part of the kit reads the one process-wide contract: point it at the copy before any
// module that loads it is imported.
const directory = contractWithKind();
useSchemaDirectory(directory);
const { loadContract, recordKindLabel, recordKinds } = await import('../contract/index.ts');
const { registerRunCommand, runSettings } = await import('../cli/run.ts');
const { inputsOf } = await import('../run-protocol/run-inputs.ts');
const { buildRecord } = await import('../reports/record.ts');
const { summaryMarkdown, consoleSummary } = await import('../reports/console-summary.ts');
const { certificationHtml } = await import('../reports/certification-html.ts');
const { recordProblems } = await import('../reports/verify.ts');
const { contractSha256 } = await import('../reports/run-context.ts');
const { DEFAULT_CREDENTIALS, REFERENCE_FIXTURES, startReferenceServer } = await import('../server/index.ts');
const { preflight } = await import('../suites/preflight.ts');
const { resolveTarget } = await import('./target.ts');
const { settingRows } = await import('./settings.ts');
const { parseTargetFile } = await import('./target-file.ts');
const { readFixturesBlock } = await import('./fixtures-block.ts');
const { SHIPPED_TARGET_FILES, shippedTargetFileText, shippedTargetFileUrl } = await import('./shipped-target-files.ts');
const { referenceRecordId } = await import('../server/defaults.ts');

const contract = loadContract();
const kinds = () => recordKinds(contract.operations);
const noneGiven = () => Object.fromEntries(kinds().map((kind) => [kind, false]));
/** The kinds the contract named before, each with an id. */
const otherRecords = () => Object.fromEntries(kinds().flatMap((kind) => (kind === KIND ? [] : [[kind, 'other']])));
const BASE = ['--base-url', 'http://127.0.0.1:1/v3'];

/** The run command's flags as commander reads them from `args`, without running anything. */
function flagsOf(args: string[]) {
  const program = new Command();
  registerRunCommand(program);
  const run = program.commands.find((command) => command.name() === 'run')!;
  run.parseOptions(args);
  return run.opts<Parameters<typeof runSettings>[0]>();
}

/** The id a file of ids of its own gives a new kind, as it states: the one after its highest, its first if none. */
function idAfter(ids: string[], first: string): string {
  if (ids.length === 0) return first;
  const highest = ids.map((id) => BigInt(`0x${id}`)).reduce((a, b) => (a > b ? a : b));
  return (highest + 1n).toString(16).padStart(24, '0');
}

let server: Awaited<ReturnType<typeof startReferenceServer>>;
beforeAll(async () => {
  server = await startReferenceServer({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe(`a kind of record the contract alone names (${KIND})`, () => {
  it('is a setting of the table, named by the rule', () => {
    expect(settingRows().find((row) => row.key === KIND)).toMatchObject({
      record: true,
      flag: '--kit-proof-record-id',
      variable: 'LAS_KIT_PROOF_RECORD_ID',
      fileKey: `fixtures.${KIND}`,
      label: 'kit proof record id',
    });
  });

  it('is given by its flag, its variable and its target-file key', () => {
    expect(runSettings(flagsOf([...BASE, '--kit-proof-record-id', 'from-flag']), {}).fixtures).toEqual({
      [KIND]: 'from-flag',
    });
    expect(runSettings(flagsOf(BASE), { LAS_KIT_PROOF_RECORD_ID: 'from-variable' }).fixtures).toEqual({
      [KIND]: 'from-variable',
    });
    const file = join(directory, 'target.yaml');
    const others = Object.keys(otherRecords()).map((kind) => `  ${kind}: other\n`);
    writeFileSync(file, `fixtures:\n  ${KIND}: from-file\n${others.join('')}`);
    expect(
      runSettings(flagsOf([...BASE, '--target', file]), { LAS_KIT_PROOF_RECORD_ID: 'from-variable' }).fixtures,
    ).toEqual({ [KIND]: 'from-variable', ...otherRecords() });
  });

  it('is listed in the record, given or not, and in every rendering of it', () => {
    const given = runSettings(flagsOf([...BASE, '--kit-proof-record-id', 'x']), {});
    const inputs = inputsOf(given, contract.legacyHeader);
    expect(inputs.records).toEqual({ ...noneGiven(), [KIND]: true });
    const record = buildRecord({
      contract,
      kit: { name: 'las-conformance', version: '0.1.0' },
      target: 'http://127.0.0.1:1/v3',
      context: { contractSha256: contractSha256(), inputs },
      failLevel: 'must',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      durationMs: 10,
      runStatus: 'passed',
      cases: [],
    });
    expect(recordProblems(record, contract, contractSha256())).toEqual([]);
    const line = kinds()
      .map((kind) => `${recordKindLabel(kind)} ${kind === KIND ? 'given' : 'not given'}`)
      .join(', ');
    expect(line).toContain('kit proof record id given');
    expect(summaryMarkdown(record)).toContain(`- Records the creation cases name: ${line}\n`);
    expect(consoleSummary(record, { dir: process.cwd(), files: [] }, process.cwd())).toContain(`Records: ${line}\n`);
    const notGiven = [
      'forbidden token',
      ...Object.keys(otherRecords()).map(recordKindLabel),
      'legacy header name',
      'certificate authorities',
    ];
    expect(certificationHtml(record)).toContain(
      `<tr><th scope="row">Optional inputs</th><td>given: kit proof record id<br>not given: ${notGiven.join(', ')}</td></tr>`,
    );
    const none = buildRecord({
      contract,
      kit: { name: 'las-conformance', version: '0.1.0' },
      target: 'http://127.0.0.1:1/v3',
      context: { contractSha256: contractSha256() },
      failLevel: 'must',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      durationMs: 10,
      runStatus: 'passed',
      cases: [],
    });
    expect(none.inputs.records).toEqual(noneGiven());
  });

  it('is given by each shipped target file once npm run targets:settings rewrites its fixtures', () => {
    const naming = contract.operations.find((operation) => recordKinds([operation]).includes(KIND))!;
    for (const file of SHIPPED_TARGET_FILES) {
      const shipped = readFileSync(shippedTargetFileUrl(file), 'utf8');
      const written = shippedTargetFileText(file, shipped, referenceRecordId);
      expect(Object.keys(parseTargetFile(written, file.path).fixtures ?? {}).sort(), file.path).toEqual(kinds().sort());
      const before = readFixturesBlock(shipped, file.path);
      const record = readFixturesBlock(written, file.path).find((line) => line.kind === KIND)!;
      if (file.ids === 'reference server') {
        expect(record).toEqual({
          kind: KIND,
          id: REFERENCE_FIXTURES[KIND],
          comment: `an existing kit proof record, for ${naming.operationId}`,
        });
        continue;
      }
      expect(readFixturesBlock(written, file.path).slice(0, -1), file.path).toEqual(before);
      expect(record.id, file.path).toBe(
        idAfter(
          before.map((line) => line.id),
          file.ids.first,
        ),
      );
    }
  });

  it("is held by the reference server, which refuses another id of it in the preflight's creation", async () => {
    expect(REFERENCE_FIXTURES[KIND]).toMatch(/^[0-9a-f]{24}$/);
    const target = (fixtures: Record<string, string>) =>
      resolveTarget({ baseUrl: server.baseUrl, ...DEFAULT_CREDENTIALS, fixtures }, contract.legacyHeader);
    await expect(preflight(target({ ...REFERENCE_FIXTURES }))).resolves.toBeUndefined();
    await expect(preflight(target({ ...REFERENCE_FIXTURES, [KIND]: 'ffffffffffffffffffffffff' }))).rejects.toThrow(
      /the target does not know the (.* or the )?kit proof record id( or the .*)? the run was given; give ids of records that exist there with (.*, and )?--kit-proof-record-id, LAS_KIT_PROOF_RECORD_ID or fixtures\.kitProofRecordId in the target file(, and |$)/,
    );
  });
});
