// The judges of the kit: what can break a requirement. Every requirement of the catalogue names
// the ones that can break it (`judgedBy`, besides the schema validation its `schemaFindings` route
// to), so a run knows whether anything judged it. The exchange checks are named in
// contract/checks/; these are the others.

/** The schema validation of a message, whose violations the catalogue's `schemaFindings` route. */
export const SCHEMA_JUDGE = 'schema';

/** Judges of contract/validate.ts and contract/judge.ts beside the schema validation. */
export const VALIDATION_JUDGES = ['credentials', 'mediaType', 'objectId', 'unspecifiedOperation'] as const;

/** A suite case's own expectations: the status it expects, what its page walk adds up, what it observes. */
export const CASE_JUDGE = 'suiteCase';

/** What the proxy refuses or notes before it can judge an exchange (proxy/admission.ts and the relay). */
export const PROXY_JUDGE = 'proxyAdmission';

/** Every judge a `judgedBy` may name that is not an exchange check. */
export const JUDGES_OUTSIDE_CHECKS: readonly string[] = [...VALIDATION_JUDGES, CASE_JUDGE, PROXY_JUDGE];
