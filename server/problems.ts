// Error documents (section 7): `{"errors": [...]}`, every member a string, `status` the HTTP
// status as a string, `source.pointer` into the request document or `source.parameter` naming the
// query parameter. `code` is the requirement id a finding cites, or a condition name below.
import { STATUS_CODES } from 'node:http';
import { boundList, MEDIA_TYPE, type Finding } from '../contract/index.ts';
import type { Problem, Reply } from './types.ts';

/** Codes of conditions no requirement covers (the specification leaves them open). */
export const CONDITION_CODES = {
  notFound: 'not-found',
  methodNotAllowed: 'method-not-allowed',
  bodyTooLarge: 'body-too-large',
  unsupportedMediaType: 'unsupported-media-type',
  nestingTooDeep: 'nesting-too-deep',
  numberOutOfRange: 'number-out-of-range',
  invalidRelationship: 'invalid-relationship',
  recordNotFound: 'record-not-found',
  duplicateCustomId: 'duplicate-custom-id',
  typeConflict: 'type-conflict',
  badHttp: 'bad-http-request',
  internal: 'internal-error',
} as const;

export function statusTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

export function errorObject(status: number, problem: Problem): Record<string, unknown> {
  const source =
    problem.pointer !== undefined
      ? { pointer: problem.pointer }
      : problem.parameter !== undefined
        ? { parameter: problem.parameter }
        : undefined;
  return {
    status: String(status),
    code: problem.code,
    title: problem.title,
    detail: problem.detail,
    ...(source ? { source } : {}),
  };
}

/**
 * An error document; a request breaking one rule thousands of times gets a bounded one, each code listed a few times
 * and then summed up.
 */
export function errorReply(status: number, problems: Problem[], headers?: Record<string, string>): Reply {
  const listed = boundList(
    problems,
    (p) => p.code,
    (first, count) => ({
      code: first.code,
      title: first.title,
      detail: `and ${count} more ${first.code} error${count === 1 ? '' : 's'} in this request, not listed`,
    }),
  );
  return { status, contentType: MEDIA_TYPE, headers, document: { errors: listed.map((p) => errorObject(status, p)) } };
}

export function conditionProblem(
  status: number,
  code: string,
  detail: string,
  where: { pointer?: string; parameter?: string } = {},
): Problem {
  return { code, title: statusTitle(status), detail, ...where };
}

/** 401 with the challenge HTTP asks for (RFC 9110 11.6.1); `code` is the requirement the 401 enforces. */
export function unauthorizedReply(code: string, detail: string): Reply {
  return errorReply(401, [conditionProblem(401, code, detail)], { 'www-authenticate': 'Bearer realm="v3"' });
}

/**
 * A request finding as an error: a body pointer becomes `source.pointer` only when the body was
 * a JSON document it can point into; a query location becomes `source.parameter`.
 */
export function problemFromFinding(finding: Finding, bodyParsed: boolean): Problem {
  const inBody = finding.pointer === '' || finding.pointer.startsWith('/');
  const where = inBody ? (bodyParsed ? { pointer: finding.pointer } : {}) : { parameter: finding.pointer };
  const title = inBody
    ? bodyParsed
      ? 'Invalid request document'
      : 'Unreadable request body'
    : 'Invalid query parameter';
  return { code: finding.requirement, title, detail: finding.message, ...where };
}

/** Whether a reply's document is an error document the server built. */
export function isErrorDocument(document: unknown): document is { errors: Record<string, unknown>[] } {
  return document !== null && typeof document === 'object' && Array.isArray((document as { errors?: unknown }).errors);
}
