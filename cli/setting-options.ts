// The target settings as command-line options: one option per row of the settings table
// (targets/settings.ts), its help naming its variable, and the settings the flags give.
import type { Command } from 'commander';
import { settingRows, withSetting, type SettingRow, type TargetSettings } from '../targets/settings.ts';
import { parsedSetting, parseHeaderLine } from '../targets/target.ts';
import { collect } from './options.ts';

/** The rows of these keys, or every row. */
function rowsOf(keys?: string[]): SettingRow[] {
  return keys === undefined ? settingRows() : settingRows().filter((row) => keys.includes(row.key));
}

/** One option per setting (of `keys`, else every one), its variable named in its help. */
export function addSettingOptions(command: Command, keys?: string[]): void {
  for (const row of rowsOf(keys)) {
    const flag = `${row.flag} <${row.argument}>`;
    const help = `${row.help} (${row.variable})`;
    if (row.parse === 'headers') command.option(flag, help, collect, []);
    else command.option(flag, help);
  }
}

/** commander's attribute name of a flag: `baseUrl` for --base-url. */
function attributeOf(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** A setting's value as its flag gives it (a repeatable flag: each of its lines), or undefined. */
function flagValue(row: SettingRow, given: unknown): unknown {
  if (Array.isArray(given))
    return given.length === 0
      ? undefined
      : Object.fromEntries(given.map((line) => parseHeaderLine(String(line), row.flag)));
  return typeof given === 'string' ? parsedSetting(row, given, row.flag) : undefined;
}

/** The settings the flags give (of `keys`, else every setting), as commander parsed them. */
export function settingsFromFlags(flags: Record<string, unknown>, keys?: string[]): TargetSettings {
  return rowsOf(keys).reduce(
    (settings, row) => withSetting(settings, row, flagValue(row, flags[attributeOf(row.flag)])),
    {} as TargetSettings,
  );
}
