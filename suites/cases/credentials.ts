// Credentials (section 5), for each of the three operations: every scheme accepted;
// no, unknown, malformed and misplaced credentials answered 401 with an error document (and
// WWW-Authenticate, SHOULD), before any validation; the forbidden session token answered 403 in
// each scheme that carries a session token.
import type { Target } from '../../targets/target.ts';
import type { CredentialHeaders } from '../case.ts';
import { missingFixtures } from '../documents.ts';
import {
  invalidInput,
  NO_FORBIDDEN_TOKEN,
  noFixturesReason,
  operations,
  refusedUnshownValues,
  successStatuses,
  validInput,
} from '../operations.ts';
import type { SuiteCase } from './suite-case.ts';

/** A token no target issues; not a secret. */
const UNKNOWN_TOKEN = 'las-conformance-unknown-token-0000';

type Expectation = 'success' | 'success-or-401' | 401 | 403;

interface CredentialKind {
  title: string;
  requirement: string;
  headers: (headers: CredentialHeaders, target: Target) => Record<string, string> | undefined;
  expect: Expectation;
  /** Send an input the operation must reject too: 401 must still come first. */
  invalid?: boolean;
}

const bearer = (value: string) => ({ authorization: value });

const credentialKinds: CredentialKind[] = [
  {
    requirement: 'AUTH-SESSION-ACCEPTED',
    title: 'the session token as Authorization: Bearer r:<token>',
    headers: (h) => h.session,
    expect: 'success',
  },
  {
    requirement: 'AUTH-PAT-ACCEPTED',
    title: 'the personal access token as Authorization: Bearer p:<token>',
    headers: (h) => h.pat,
    expect: 'success',
  },
  {
    requirement: 'AUTH-LEGACY-ACCEPTED',
    title: 'the session token in the legacy header',
    headers: (h) => h.legacy,
    expect: 'success',
  },
  { requirement: 'AUTH-401-NO-CREDENTIALS', title: 'no credentials', headers: (h) => h.none, expect: 401 },
  {
    requirement: 'AUTH-401-UNKNOWN-TOKEN',
    title: 'an unknown session token (Bearer r:)',
    headers: () => bearer(`Bearer r:${UNKNOWN_TOKEN}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-UNKNOWN-TOKEN',
    title: 'an unknown personal access token (Bearer p:)',
    headers: () => bearer(`Bearer p:${UNKNOWN_TOKEN}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-UNKNOWN-TOKEN',
    title: 'an unknown token in the legacy header',
    headers: (_, t) => ({ [t.legacyHeader]: UNKNOWN_TOKEN }),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token without "Bearer"',
    headers: (_, t) => bearer(t.credentials.sessionToken),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token after "Bearer" without an r:/p: prefix',
    headers: (_, t) => bearer(`Bearer ${t.credentials.sessionToken}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token under an unknown prefix x:',
    headers: (_, t) => bearer(`Bearer x:${t.credentials.sessionToken}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token under an upper-case prefix R:',
    headers: (_, t) => bearer(`Bearer R:${t.credentials.sessionToken}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'an empty token after Bearer r:',
    headers: () => bearer('Bearer r:'),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: '"Bearer" and nothing else',
    headers: () => bearer('Bearer'),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token under another scheme (Basic)',
    headers: (_, t) => bearer(`Basic ${Buffer.from(`user:${t.credentials.sessionToken}`).toString('base64')}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'an empty legacy header',
    headers: (_, t) => ({ [t.legacyHeader]: '' }),
    expect: 401,
  },
  // RFC 9110 section 11.1: auth-schemes are case-insensitive, so serving `bearer` is as right as refusing it.
  {
    requirement: 'AUTH-401-MALFORMED',
    title: 'the session token after a lower-case "bearer" (served or 401, never anything else)',
    headers: (_, t) => bearer(`bearer r:${t.credentials.sessionToken}`),
    expect: 'success-or-401',
  },
  {
    requirement: 'AUTH-401-WRONG-PREFIX',
    title: 'the session token under the p: prefix',
    headers: (_, t) => bearer(`Bearer p:${t.credentials.sessionToken}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-WRONG-PREFIX',
    title: 'the personal access token under the r: prefix',
    headers: (_, t) => bearer(`Bearer r:${t.credentials.pat}`),
    expect: 401,
  },
  {
    requirement: 'AUTH-401-BEFORE-400',
    title: 'no credentials and an invalid input',
    headers: (h) => h.none,
    expect: 401,
    invalid: true,
  },
  {
    requirement: 'AUTH-401-BEFORE-400',
    title: 'an unknown token and an invalid input',
    headers: () => bearer(`Bearer r:${UNKNOWN_TOKEN}`),
    expect: 401,
    invalid: true,
  },
  {
    requirement: 'AUTH-403-FORBIDDEN',
    title: 'the forbidden session token as Authorization: Bearer r:<token>',
    headers: (h) => h.forbidden,
    expect: 403,
  },
  {
    requirement: 'AUTH-403-FORBIDDEN',
    title: 'the forbidden session token in the legacy header',
    headers: (h) => h.forbiddenLegacy,
    expect: 403,
  },
];

const isSuccess = (status: number) => status >= 200 && status < 300;

function expectedStatuses(expectation: Expectation, success: number[]): number[] {
  if (expectation === 'success') return success;
  if (expectation === 'success-or-401') return [...success, 401];
  return [expectation];
}

function expectationText(expectation: Expectation): string {
  return { success: 'served', 'success-or-401': 'served or 401', 401: '401', 403: '403' }[expectation];
}

export const credentialCases: SuiteCase[] = operations.flatMap((operation) =>
  credentialKinds.map((c): SuiteCase => ({
    title: `${operation.operationId}: ${c.title} → ${expectationText(c.expect)}`,
    requirements: [c.requirement],
    covers: c.expect === 401 ? ['AUTH-WWW-AUTHENTICATE'] : [],
    async run(conformance) {
      const headers = c.headers(conformance.credentials, conformance.target);
      if (headers === undefined) conformance.skip(NO_FORBIDDEN_TOKEN);
      // A document without the records a target did not name may be refused (which attributes are required is not
      // shown).
      const missing =
        c.invalid || (c.expect !== 'success' && c.expect !== 'success-or-401')
          ? []
          : missingFixtures(operation, conformance.target.fixtures);
      if (missing.length > 0) conformance.skip(noFixturesReason(missing));
      const input = c.invalid ? invalidInput(operation) : validInput(operation, conformance.target.fixtures);
      const answer = await conformance.send({ operation, credentials: headers!, ...input });
      // Being served at all is what a credential case is about; which 2xx is the creation cases' business.
      // A 400 refusing only a value whose meaning is not shown comes after authentication: served too.
      if (
        c.expect !== 401 &&
        c.expect !== 403 &&
        (isSuccess(answer.status) || (!c.invalid && refusedUnshownValues(operation, answer)))
      )
        return conformance.held(c.requirement, answer);
      conformance.expectStatus(answer, expectedStatuses(c.expect, successStatuses(operation)));
    },
  })),
);
