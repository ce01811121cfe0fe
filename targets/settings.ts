// The settings of a target, each written once: its key, flag, variable, target-file key, how its
// text is read, how a person calls it and its help. The run command's options, the environment,
// the target file (its schema included) and the docs read them here. A kind of record the
// contract names (`x-record`) is a setting too, named by one rule from the kind alone:
// ownerUserId is --owner-user-id, LAS_OWNER_USER_ID and fixtures.ownerUserId.
import {
  loadContract,
  recordKindLabel,
  recordKinds,
  recordMembers,
  type Contract,
  type RecordMember,
} from '../contract/index.ts';

/** The ids of records that exist on the target, by the kind the contract names (`x-record`). */
export type Fixtures = Record<string, string>;

/** One source's view of the target: every key optional; the record kinds' ids in `fixtures`. */
export interface TargetSettings {
  baseUrl?: string;
  legacyHeader?: string;
  sessionToken?: string;
  pat?: string;
  forbiddenToken?: string;
  fixtures?: Fixtures;
  requestTimeoutMs?: number;
  maxBodyMiB?: number;
  /** PEM file of certificate authorities to trust besides Node's (an internal authority). */
  caFile?: string;
  /** Extra request headers sent with every request (a gateway key); their values are secrets. */
  headers?: Record<string, string>;
}

/** A setting that is not a record kind. */
export type FixedSettingKey = Exclude<keyof TargetSettings, 'fixtures'>;

/** How a setting's text (a flag's or a variable's) is read. */
export type SettingParse = 'text' | 'number' | 'headers';

export interface SettingRow<Key extends string = string> {
  /** The key of TargetSettings; for a record kind, the kind (its value sits in `fixtures`). */
  key: Key;
  /** True for a kind of record the contract names. */
  record: boolean;
  /** The run command's flag, e.g. `--base-url`. */
  flag: string;
  /** What the flag takes, as its help shows it, e.g. `url`. */
  argument: string;
  variable: string;
  /** Dotted, e.g. `credentials.pat`. */
  fileKey: string;
  parse: SettingParse;
  /** How a person calls it, e.g. `base URL`. */
  label: string;
  /** The flag's help (the variable is added where it is shown). */
  help: string;
  /** Meaningless without a target base URL (the reference server brings its own). */
  targetOnly: boolean;
  /** Its JSON Schema in the target file, but for the description. */
  fileSchema: Record<string, unknown>;
}

const TEXT = { type: 'string', minLength: 1 };
/** The target file's group of the record kinds' ids: there, if empty, when the contract names no kind. */
const RECORDS_GROUP = 'fixtures';
const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/** The settings every target has, whatever the contract names. */
const FIXED_ROWS: SettingRow<FixedSettingKey>[] = [
  {
    key: 'baseUrl',
    record: false,
    flag: '--base-url',
    argument: 'url',
    variable: 'LAS_BASE_URL',
    fileKey: 'baseUrl',
    parse: 'text',
    label: 'base URL',
    help: 'target base URL including the version root, e.g. https://staging.example.com/v3',
    targetOnly: false,
    fileSchema: TEXT,
  },
  {
    key: 'sessionToken',
    record: false,
    flag: '--session-token',
    argument: 'token',
    variable: 'LAS_SESSION_TOKEN',
    fileKey: 'credentials.sessionToken',
    parse: 'text',
    label: 'session token',
    help: 'valid session token; prefer the variable: a file or a command line is easily shared',
    targetOnly: true,
    fileSchema: TEXT,
  },
  {
    key: 'pat',
    record: false,
    flag: '--pat',
    argument: 'token',
    variable: 'LAS_PAT',
    fileKey: 'credentials.pat',
    parse: 'text',
    label: 'personal access token',
    help: 'valid personal access token; prefer the variable: a file or a command line is easily shared',
    targetOnly: true,
    fileSchema: TEXT,
  },
  {
    key: 'forbiddenToken',
    record: false,
    flag: '--forbidden-token',
    argument: 'token',
    variable: 'LAS_FORBIDDEN_TOKEN',
    fileKey: 'credentials.forbiddenToken',
    parse: 'text',
    label: 'forbidden token',
    help: 'session token that is authenticated but not permitted; without it the 403 cases are reported not run',
    targetOnly: true,
    fileSchema: TEXT,
  },
  {
    key: 'legacyHeader',
    record: false,
    flag: '--legacy-header',
    argument: 'name',
    variable: 'LAS_LEGACY_HEADER',
    fileKey: 'legacyHeader',
    parse: 'text',
    label: 'legacy header name',
    help: "name of the legacy session header; the specification writes X-Svc-Session-Token, Svc standing for the service's short name (the default)",
    targetOnly: false,
    fileSchema: TEXT,
  },
  {
    key: 'requestTimeoutMs',
    record: false,
    flag: '--request-timeout',
    argument: 'ms',
    variable: 'LAS_REQUEST_TIMEOUT_MS',
    fileKey: 'limits.requestTimeoutMs',
    parse: 'number',
    label: 'request timeout',
    help: 'how long one request may take, answer included, in milliseconds; default 10000',
    targetOnly: false,
    fileSchema: { type: 'integer', minimum: 100, maximum: 600000 },
  },
  {
    key: 'maxBodyMiB',
    record: false,
    flag: '--max-body-mib',
    argument: 'n',
    variable: 'LAS_MAX_BODY_MIB',
    fileKey: 'limits.maxBodyMiB',
    parse: 'number',
    label: 'body size cap',
    help: 'the largest answer the kit reads, in MiB; a larger one fails its case; default 8',
    targetOnly: false,
    fileSchema: { type: 'number', exclusiveMinimum: 0, maximum: 1024 },
  },
  {
    key: 'caFile',
    record: false,
    flag: '--ca',
    argument: 'file',
    variable: 'LAS_CA_FILE',
    fileKey: 'ca',
    parse: 'text',
    label: 'certificate authorities',
    help: "PEM file of certificate authorities to trust besides Node's, for a target behind an internal authority",
    targetOnly: true,
    fileSchema: TEXT,
  },
  {
    key: 'headers',
    record: false,
    flag: '--header',
    argument: 'header',
    variable: 'LAS_HEADERS',
    fileKey: 'headers',
    parse: 'headers',
    label: 'extra headers',
    help: "extra request headers sent with every request, e.g. a gateway key: the flag is repeatable, 'Name: value', the variable holds one per line; values are secrets, never written anywhere",
    targetOnly: true,
    fileSchema: {
      type: 'object',
      propertyNames: { pattern: HEADER_NAME_PATTERN },
      additionalProperties: { type: 'string' },
    },
  },
];

/** The request members that name a kind of record, in the contract's order. */
export function membersNaming(kind: string, contract: Contract = loadContract()): RecordMember[] {
  return recordMembers(contract.operations).filter((m) => m.kind === kind);
}

/** The setting of a kind of record, by the one rule: flag, variable and file key from the kind's name. */
export function recordSetting(kind: string, contract: Contract = loadContract()): SettingRow {
  const words = recordKindLabel(kind).split(' ');
  const named = membersNaming(kind, contract).map((m) => `${m.operation.operationId} ${m.pointer}`);
  return {
    key: kind,
    record: true,
    flag: `--${words.join('-')}`,
    argument: 'id',
    variable: `LAS_${words.join('_').toUpperCase()}`,
    fileKey: `${RECORDS_GROUP}.${kind}`,
    parse: 'text',
    label: words.join(' '),
    help: `id of a record that exists on the target, for ${named.join(' and ')}; without it the creation cases that need one are not run`,
    targetOnly: true,
    fileSchema: TEXT,
  };
}

const rowsOf = new WeakMap<Contract, SettingRow[]>();

/** Every setting of a target: the fixed ones, with the contract's record kinds after the legacy header. */
export function settingRows(contract: Contract = loadContract()): SettingRow[] {
  let rows = rowsOf.get(contract);
  if (!rows) {
    const at = FIXED_ROWS.findIndex((row) => row.key === 'legacyHeader') + 1;
    rows = [
      ...FIXED_ROWS.slice(0, at),
      ...recordKinds(contract.operations).map((kind) => recordSetting(kind, contract)),
      ...FIXED_ROWS.slice(at),
    ];
    refuseCollisions(rows);
    rowsOf.set(contract, rows);
  }
  return rows;
}

/**
 * A kind of record whose flag or variable another setting has would be read as that setting: the contract must name it
 * otherwise.
 */
export function refuseCollisions(rows: SettingRow[]): void {
  for (const [i, row] of rows.entries()) {
    const other = rows.slice(0, i).find((r) => r.flag === row.flag || r.variable === row.variable);
    if (other)
      throw new Error(
        `the contract's x-record kind ${row.key} would be given by ${row.flag} and ${row.variable}, as ${other.key} is: name the kind otherwise`,
      );
  }
}

/** The row of a key; a key no row has is a mistake in the kit. */
export function settingRow(key: string): SettingRow {
  const row = settingRows().find((r) => r.key === key);
  if (!row) throw new Error(`no target setting ${key}`);
  return row;
}

/** The variable of each setting that is not a record kind. */
export const TARGET_ENVIRONMENT = Object.fromEntries(FIXED_ROWS.map((row) => [row.key, row.variable])) as Record<
  FixedSettingKey,
  string
>;

/** Every variable a target setting is read from, record kinds' included. */
export function targetVariables(): string[] {
  return settingRows().map((row) => row.variable);
}

/** A setting's value in one source's settings. */
export function settingValue(settings: TargetSettings, row: SettingRow): unknown {
  return row.record ? settings.fixtures?.[row.key] : settings[row.key as FixedSettingKey];
}

/** The settings with one more value (undefined leaves them as they are). */
export function withSetting(settings: TargetSettings, row: SettingRow, value: unknown): TargetSettings {
  if (value === undefined) return settings;
  if (row.record) return { ...settings, fixtures: { ...settings.fixtures, [row.key]: value as string } };
  return { ...settings, [row.key]: value };
}

/** How a setting is named to a person: its flag, variable and target-file key. */
export function settingSource(key: string): string {
  const row = settingRow(key);
  return `${row.flag}, ${row.variable} or ${row.fileKey} in the target file`;
}

type JsonObject = Record<string, unknown>;

/** A row's property in the target file's schema: its schema, described by its help, variable and flag. */
function fileProperty(row: SettingRow): JsonObject {
  return {
    description: `${row.help[0].toUpperCase()}${row.help.slice(1)} (${row.variable}, ${row.flag}).`,
    ...row.fileSchema,
  };
}

/** The groups of the target file (`credentials.pat`: credentials), the records' among them. */
function fileGroups(rows: SettingRow[]): string[] {
  return [
    ...new Set([
      ...rows.flatMap((row) => (row.fileKey.includes('.') ? [row.fileKey.split('.')[0]] : [])),
      RECORDS_GROUP,
    ]),
  ];
}

/**
 * The target file's schema with every setting's key as the table has it: `base` (the schema file)
 * keeps its other keys (waivers, regression cases, generation) and the descriptions of the groups
 * (credentials, fixtures, limits); each group holds exactly its rows, in the table's order, so a
 * kind of record the contract no longer names is an unknown key.
 */
export function targetFileSchema(base: JsonObject, rows: SettingRow[] = settingRows()): JsonObject {
  const properties = { ...(base.properties as Record<string, JsonObject>) };
  for (const row of rows.filter((r) => !r.fileKey.includes('.'))) properties[row.fileKey] = fileProperty(row);
  for (const group of fileGroups(rows)) {
    const grouped = rows.filter((r) => r.fileKey.startsWith(`${group}.`));
    properties[group] = {
      ...properties[group],
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(grouped.map((r) => [r.fileKey.slice(group.length + 1), fileProperty(r)])),
    };
  }
  return { ...base, properties };
}

const PARSE_WORDS: Record<SettingParse, string> = {
  text: 'text',
  number: 'a number',
  headers: '`Name: value` lines (a flag: one per flag)',
};

/** docs/settings.md: every setting of a target as the table has it, the contract's record kinds included. */
export function settingsMarkdown(rows: SettingRow[] = settingRows()): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '# Target settings',
    '',
    '<!-- Written by `npm run targets:settings` from the settings table (targets/settings.ts) and the contract; do not edit by hand. -->',
    '',
    "Each setting of a run's target, from the target file (`--target FILE`), then its variable, then",
    'its flag: a later source wins, key by key. A kind of record the contract names (`x-record` on a',
    'request member) is a setting of its own, named from the kind: `ownerUserId` is',
    '`--owner-user-id`, `LAS_OWNER_USER_ID` and `fixtures.ownerUserId`.',
    '',
    'A text setting holding a control character (a stray line break or escape sequence in a variable,',
    "say; a tab is taken in an extra header's value) stops the run before anything is sent, in one",
    'line naming the setting and where it is given, never its value: sent as it is, it would fail',
    "every request and read as the target's fault.",
    '',
    '| setting | flag | variable | target file | read as | what it is |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.label}${row.record ? ' (a record)' : ''} | \`${row.flag}\` | \`${row.variable}\` | \`${row.fileKey}\` | ${PARSE_WORDS[row.parse]} | ${cell(row.help)} |`,
    ),
    '',
  ].join('\n');
}
