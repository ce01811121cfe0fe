// A target in environment variables and in a description of the run: the settings the variables
// give, and a resolved target turned back into variables, its secrets apart from the rest.
import { scalarText } from '../contract/index.ts';
import { settingRows, settingValue, targetVariables, withSetting, type TargetSettings } from './settings.ts';
import { MIB, parsedSetting, TOKEN_NAMES, type Target } from './target.ts';

/** The settings the environment gives (each row's variable); empty values count as unset. */
export function settingsFromEnvironment(env: Record<string, string | undefined>): TargetSettings {
  return settingRows().reduce((settings, row) => {
    const value = env[row.variable];
    return value === undefined || value === ''
      ? settings
      : withSetting(settings, row, parsedSetting(row, value, row.variable));
  }, {} as TargetSettings);
}
/** The target settings' variables set to an empty value, by name. */
export function emptyEnvironmentSettings(env: Record<string, string | undefined>): string[] {
  return targetVariables().filter((variable) => env[variable] === '');
}

/**
 * The settings whose values are secrets (the tokens, the extra headers): they travel apart from the rest of a
 * description of the run, which may be written where a person reads it.
 */
const SECRET_SETTINGS = [...(Object.keys(TOKEN_NAMES) as (keyof typeof TOKEN_NAMES)[]), 'headers'] as const;

/** A target's secrets alone: its tokens and the values of its extra headers. */
export type TargetSecrets = Pick<TargetSettings, (typeof SECRET_SETTINGS)[number]>;

/** Settings without their secrets: what may be written into a description of the run. */
export function withoutSecrets(settings: TargetSettings): TargetSettings {
  const kept: TargetSettings = { ...settings };
  for (const key of SECRET_SETTINGS) delete kept[key];
  return kept;
}

/** Only the secrets of the settings. */
export function secretsOnly(settings: TargetSettings): TargetSecrets {
  return Object.fromEntries(
    SECRET_SETTINGS.filter((key) => settings[key] !== undefined).map((key) => [key, settings[key]]),
  );
}

/** A resolved target as settings, secrets left out. */
export function describedTarget(target: Target): TargetSettings {
  return withoutSecrets(settingsOfTarget(target));
}

/** A resolved target's secrets, as settings. */
export function targetSecretsOf(target: Target): TargetSecrets {
  return secretsOnly(settingsOfTarget(target));
}

/** A resolved target as the settings that resolve to it again. */
function settingsOfTarget(target: Target): TargetSettings {
  return settingsFromEnvironment(targetEnvironment(target));
}

/** The environment variables that carry a resolved target to the suite's processes. */
export function targetEnvironment(target: Target): Record<string, string> {
  const settings: TargetSettings = {
    baseUrl: target.baseUrl,
    legacyHeader: target.legacyHeader,
    ...target.credentials,
    fixtures: target.fixtures,
    requestTimeoutMs: target.limits.requestTimeoutMs,
    maxBodyMiB: target.limits.maxBodyBytes / MIB,
    caFile: target.caFile,
    headers: target.extraHeaders,
  };
  const env: Record<string, string> = {};
  for (const row of settingRows()) {
    const value = settingValue(settings, row);
    if (value === undefined) continue;
    if (row.parse === 'headers') {
      const lines = Object.entries(value as Record<string, string>).map(([name, header]) => `${name}: ${header}`);
      if (lines.length > 0) env[row.variable] = lines.join('\n');
    } else env[row.variable] = scalarText(value);
  }
  return env;
}
