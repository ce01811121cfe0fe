// Tokens never leave the kit: every text the suite or its reports write passes through a
// scrubber (the kit's one credential policy, contract/credential-policy.ts) that replaces each
// token with the name of the variable that holds it, so a message or a curl line still reads
// `Bearer r:$LAS_SESSION_TOKEN`. This names the run's secrets and their placeholders.
import { SHORT_SECRET_LENGTH, type Secret } from '../contract/credential-policy.ts';
import { TARGET_ENVIRONMENT, type Credentials, type Target } from '../targets/target.ts';

export {
  scrubber,
  scrubDeep,
  scrubValues,
  SHORT_SECRET_LENGTH,
  type Scrub,
  type Secret,
} from '../contract/credential-policy.ts';

const CREDENTIAL_KEYS = ['sessionToken', 'pat', 'forbiddenToken'] as const;

export function credentialSecrets(credentials: Partial<Credentials>): Secret[] {
  return CREDENTIAL_KEYS.flatMap((key) => {
    const value = credentials[key];
    return value ? [{ value, placeholder: `$${TARGET_ENVIRONMENT[key]}` }] : [];
  });
}

/** Values of the extra request headers (--header): secrets like the tokens, named by their header. */
export function headerSecrets(headers: Record<string, string>): Secret[] {
  return Object.entries(headers)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => ({ value, placeholder: `<value of ${name}>` }));
}

export function targetSecrets(target: Target): Secret[] {
  return [...credentialSecrets(target.credentials), ...headerSecrets(target.extraHeaders ?? {})];
}

/** The secrets of a target's settings: its tokens and the values of its extra headers. */
export function settingsSecrets(settings: Partial<Credentials> & { headers?: Record<string, string> }): Secret[] {
  return [...credentialSecrets(settings), ...headerSecrets(settings.headers ?? {})];
}

/**
 * One warning per secret short enough to turn up inside other text. Every occurrence is masked,
 * whatever its length (a minimum would let short tokens through), so the reports of a run with a
 * one-letter token read `$LAS_PAT` in place of every such letter: the run says so before it starts.
 */
export function shortSecretWarnings(secrets: Secret[]): string[] {
  return secrets
    .filter((secret) => secret.value !== '' && secret.value.length < SHORT_SECRET_LENGTH)
    .map(
      (secret) =>
        `warning: ${secret.placeholder} is ${secret.value.length} character${secret.value.length === 1 ? '' : 's'} long; the reports replace every occurrence of it with ${secret.placeholder}, so text that merely contains it is masked too`,
    );
}
