// The settings table is the one place a target setting is written: the run command's flags, the
// variables, the target file's keys and its schema follow it, and the names people already use stay.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerRunCommand } from '../cli/run.ts';
import { createAjv, loadContract, recordKinds } from '../contract/index.ts';
import {
  recordSetting,
  refuseCollisions,
  settingRows,
  settingsMarkdown,
  settingSource,
  targetFileSchema,
} from './settings.ts';
import { targetOnlySettingsGiven } from './target.ts';
import { parseTargetFile, targetSchemaFile, targetSchemaText } from './target-file.ts';
import { settingsFromEnvironment } from './target-environment.ts';
import { readFileSync } from 'node:fs';
import { referenceRecordId } from '../server/defaults.ts';
import { SHIPPED_TARGET_FILES, shippedTargetFileText, shippedTargetFileUrl } from './shipped-target-files.ts';

const kinds = recordKinds(loadContract().operations);
const program = new Command();
registerRunCommand(program);
const run = program.commands.find((command) => command.name() === 'run')!;

describe('the settings table', () => {
  // A kind of record the contract names adds a row of its own (targets/record-kinds.test.ts); these stay.
  it('keeps the names of every setting as people use them', () => {
    expect(settingRows().map(({ key, flag, variable, fileKey }) => `${key} ${flag} ${variable} ${fileKey}`)).toEqual(
      expect.arrayContaining([
        'baseUrl --base-url LAS_BASE_URL baseUrl',
        'sessionToken --session-token LAS_SESSION_TOKEN credentials.sessionToken',
        'pat --pat LAS_PAT credentials.pat',
        'forbiddenToken --forbidden-token LAS_FORBIDDEN_TOKEN credentials.forbiddenToken',
        'legacyHeader --legacy-header LAS_LEGACY_HEADER legacyHeader',
        'requestTimeoutMs --request-timeout LAS_REQUEST_TIMEOUT_MS limits.requestTimeoutMs',
        'maxBodyMiB --max-body-mib LAS_MAX_BODY_MIB limits.maxBodyMiB',
        'caFile --ca LAS_CA_FILE ca',
        'headers --header LAS_HEADERS headers',
      ]),
    );
  });

  it("names a record kind's flag, variable and file key by one rule from the kind", () => {
    expect(recordSetting('learningPathStepId')).toMatchObject({
      key: 'learningPathStepId',
      record: true,
      flag: '--learning-path-step-id',
      variable: 'LAS_LEARNING_PATH_STEP_ID',
      fileKey: 'fixtures.learningPathStepId',
      label: 'learning path step id',
    });
  });

  it('refuses a kind of record whose flag or variable another setting has', () => {
    expect(() => refuseCollisions([...settingRows(), recordSetting('baseUrl')])).toThrow(
      "the contract's x-record kind baseUrl would be given by --base-url and LAS_BASE_URL, as baseUrl is: name the kind otherwise",
    );
    expect(() => refuseCollisions(settingRows())).not.toThrow();
  });

  it('gives the run command one option per setting, its help naming its variable', () => {
    for (const row of settingRows()) {
      const option = run.options.find((o) => o.long === row.flag);
      expect(option, row.flag).toBeDefined();
      expect(option!.description).toContain(`(${row.variable})`);
    }
  });

  it('is what the schema file says of every setting (npm run targets:settings writes it)', () => {
    expect(readFileSync(new URL('target.schema.json', import.meta.url), 'utf8')).toBe(targetSchemaText());
    expect(readFileSync(new URL('../docs/settings.md', import.meta.url), 'utf8')).toBe(settingsMarkdown());
    const properties = targetSchemaFile().properties as Record<
      string,
      { properties?: Record<string, { description: string }>; description?: string }
    >;
    for (const row of settingRows()) {
      const [group, key] = row.fileKey.includes('.') ? row.fileKey.split('.') : [undefined, row.fileKey];
      const described = group ? properties[group].properties![key] : (properties[key] as { description: string });
      expect(described.description, row.fileKey).toContain(`(${row.variable}, ${row.flag})`);
    }
  });

  it('gives the file no key of a kind of record the contract does not name, none when it names no kind', () => {
    const schema = targetFileSchema(
      targetSchemaFile(),
      settingRows().filter((row) => !row.record),
    );
    const { fixtures } = schema.properties as Record<string, { properties?: object }>;
    expect(fixtures).toMatchObject({ type: 'object', additionalProperties: false });
    expect(fixtures.properties).toEqual({});
    const validate = createAjv().compile(schema);
    for (const kind of [...kinds, 'learningPathStepId'])
      expect(validate({ fixtures: { [kind]: '6553f100c0ffee0000000001' } }), kind).toBe(false);
  });

  for (const file of SHIPPED_TARGET_FILES) {
    it(`is what ${file.path} gives as records (npm run targets:settings writes its fixtures)`, () => {
      const text = readFileSync(shippedTargetFileUrl(file), 'utf8');
      expect(text).toBe(shippedTargetFileText(file, text, referenceRecordId));
    });
  }

  it('reads each text setting from its variable and its file key, into the same place', () => {
    const file = settingRows()
      .filter((row) => row.parse === 'text')
      .map((row) => row.fileKey);
    for (const row of settingRows().filter((r) => r.parse === 'text')) {
      const [group, key] = row.fileKey.includes('.') ? row.fileKey.split('.') : [undefined, row.fileKey];
      const yaml = group ? `${group}:\n  ${key}: v\n` : `${key}: v\n`;
      expect(parseTargetFile(yaml, 't.yaml'), row.fileKey).toEqual(settingsFromEnvironment({ [row.variable]: 'v' }));
    }
    expect(file.length).toBeGreaterThan(0);
  });

  it('says where each setting comes from in one form', () => {
    expect(settingSource('pat')).toBe('--pat, LAS_PAT or credentials.pat in the target file');
    expect(settingSource('baseUrl')).toBe('--base-url, LAS_BASE_URL or baseUrl in the target file');
  });

  it('knows which settings need a target base URL: the tokens and the records', () => {
    const records = Object.fromEntries(kinds.map((kind) => [kind, 'id']));
    expect(targetOnlySettingsGiven({ legacyHeader: 'X-A', fixtures: records, pat: 'p' })).toEqual([
      '--pat',
      ...kinds.map((kind) => recordSetting(kind).flag),
    ]);
  });
});
