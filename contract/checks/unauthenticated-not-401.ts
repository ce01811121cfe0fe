// Judges AUTH-401-NO-CREDENTIALS and AUTH-401-BEFORE-400: a request without credentials is answered 401.
import { type ExchangeCheck, is2xx, is4xx } from './exchange.ts';
import { hasNoCredentials, isValidationProblem } from './refusals.ts';

// Section 5: an unauthenticated request yields 401, whatever else is wrong with it. Visible in one
// exchange when it carries no credentials at all and is answered 401, served, or answered another
// 4xx (one the operation lists, or one the contract names for no condition, such as 422); a
// generic status such as 429 says nothing either way.
export const unauthenticatedNot401: ExchangeCheck = {
  name: 'unauthenticatedNot401',
  appliesTo: (x) => x.operation !== null && (is2xx(x.response.status) || is4xx(x.response.status)),
  run(contract, x, _options, verdict) {
    if (!hasNoCredentials(contract, x)) return [];
    const status = x.response.status;
    if (contract.genericStatuses.has(status)) {
      verdict.cannotJudge(
        'AUTH-401-NO-CREDENTIALS',
        `${status} is a generic status, answered whatever the credentials`,
      );
      return [];
    }
    const invalid = x.requestFindings.some(isValidationProblem);
    if (status === 401) {
      verdict.held('AUTH-401-NO-CREDENTIALS');
      if (invalid) verdict.held('AUTH-401-BEFORE-400');
      return [];
    }
    const validatedFirst = status === 400 && invalid;
    const requirement = validatedFirst ? 'AUTH-401-BEFORE-400' : 'AUTH-401-NO-CREDENTIALS';
    const message = validatedFirst
      ? 'a request without credentials was answered 400: credentials are judged before the request is validated'
      : `a request without credentials was answered ${status}`;
    return [contract.finding(requirement, 'exchange', { message, expected: '401', actual: String(status) })];
  },
};
