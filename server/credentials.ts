// The server's decision on a request's credentials (section 5; docs/certification.md §2). The contract reads
// which scheme was used; only the server knows which tokens are valid.
import type { CredentialReading, Scheme } from '../contract/index.ts';
import type { CredentialDecision, Tokens } from './types.ts';

const SCHEME_NAMES: Record<Scheme, string> = {
  session: 'session token (Bearer r:)',
  pat: 'personal access token (Bearer p:)',
  legacy: 'session token in the legacy header',
};

/** The token a scheme accepts: the legacy header carries a session token (section 5). */
function tokenOf(scheme: Scheme, tokens: Tokens): string {
  return scheme === 'pat' ? tokens.pat : tokens.sessionToken;
}

/** The token the other Bearer prefix accepts, for telling a wrong prefix from an unknown token. */
function otherPrefixToken(scheme: Scheme, tokens: Tokens): string | undefined {
  if (scheme === 'session') return tokens.pat;
  if (scheme === 'pat') return tokens.sessionToken;
  return undefined;
}

export function judgeCredentials(reading: CredentialReading, tokens: Tokens, legacyHeader: string): CredentialDecision {
  if (reading.kind === 'none') {
    return {
      outcome: 'unauthenticated',
      code: 'AUTH-401-NO-CREDENTIALS',
      detail: `no credentials: send Authorization: Bearer r:<session token> or Bearer p:<personal access token>, or the ${legacyHeader} header`,
    };
  }
  if (reading.kind === 'malformed') {
    return {
      outcome: 'unauthenticated',
      code: 'AUTH-401-MALFORMED',
      detail: `malformed credentials: ${reading.reason}`,
    };
  }
  const { scheme, token } = reading;
  if (token === tokens.forbiddenToken) return { outcome: 'forbidden', scheme };
  if (token === tokenOf(scheme, tokens)) return { outcome: 'permitted', scheme };
  if (token === otherPrefixToken(scheme, tokens)) {
    return {
      outcome: 'unauthenticated',
      code: 'AUTH-401-WRONG-PREFIX',
      detail: `the token is not a valid ${SCHEME_NAMES[scheme]}; each token is valid under its own prefix only`,
    };
  }
  return {
    outcome: 'unauthenticated',
    code: 'AUTH-401-UNKNOWN-TOKEN',
    detail: `the ${SCHEME_NAMES[scheme]} is not known`,
  };
}

/** Every token the server knows, in any scheme. */
export function knownTokens(tokens: Tokens): Set<string> {
  return new Set([tokens.sessionToken, tokens.pat, tokens.forbiddenToken]);
}
