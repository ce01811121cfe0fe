// The contract module: everything the kit knows about the API, read from schemas/.
export { Contract, loadContract, createAjv, querySchema, MEDIA_TYPE, SCHEMA_DIR } from './contract.ts';
export type { Operation, CompiledRoute, SchemaViolation } from './contract.ts';
export { route, originForm, relativePath, parseQuery, queryString, validateRequest, validateResponse, validateGenericRequest, validateGenericResponse, mediaTypeEssence, parseJson, parsedBody } from './validate.ts';
export { checkExchange, exchangeChecks, refusableFindings, acceptsRefusable } from './checks.ts';
export { judgeExchange, judgeRequest, judgeResponse, locate, unspecifiedOperationKey, UNSPECIFIED_OPERATION } from './judge.ts';
export type { JudgedRequest } from './judge.ts';
export type { Exchange, ExchangeCheck } from './checks.ts';
export { readCredentials, headerValue, DEFAULT_LEGACY_HEADER } from './credentials.ts';
export type { CredentialReading, Scheme } from './credentials.ts';
export { bodyMembers, schemaMembers, wrongTypes, withValueAt, withoutValueAt, SAMPLE_OF_TYPE, JSON_TYPES, jsonTypeOfValue } from './members.ts';
export type { BodyMember, JsonType } from './members.ts';
export { parseQueryPairs, buildQuery, coerce, parameterName, decodeComponent } from './query.ts';
export { problemsFromErrors, showValue, jsonTypeOf } from './messages.ts';
export { maskCredentialQuery, credentialLikeName, MASK, CREDENTIAL_NAME_FRAGMENTS, CREDENTIAL_NAME_WORDS } from './mask.ts';
export { boundFindings, boundList, occurrences, FINDING_LIMITS, SCHEMA_ERRORS_DESCRIBED } from './bounds.ts';
export type { SummaryFinding, FindingLimits } from './bounds.ts';
export { inlineRefs, resolvePointer, escapeToken, unescapeToken } from './resolve.ts';
export type * from './types.ts';
