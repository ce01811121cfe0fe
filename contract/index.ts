// The contract module: everything the kit knows about the API, read from schemas/.
export {
  Contract,
  loadContract,
  useSchemaDirectory,
  createAjv,
  querySchema,
  routeSpecificity,
  MEDIA_TYPE,
  SCHEMA_DIR,
  OPERATION_ROLES,
  LIST_ROLES,
} from './contract.ts';
export type { Operation, OperationRole, CompiledRoute, SchemaViolation } from './contract.ts';
export {
  route,
  originForm,
  relativePath,
  parseQuery,
  queryString,
  validateRequest,
  validateResponse,
  validateGenericRequest,
  validateGenericResponse,
  mediaTypeEssence,
  parseJson,
  parsedBody,
  forgetLargeParses,
} from './validate.ts';
export {
  assessChecks,
  checkExchange,
  exchangeChecks,
  judgesOf,
  refusableFindings,
  refusalsFor,
  acceptsRefusable,
  requirementsBoundTo,
  requirementsBoundFor,
} from './checks/index.ts';
export {
  assessExchange,
  judgeExchange,
  judgeRequest,
  judgeResponse,
  locate,
  unspecifiedOperationKey,
  UNSPECIFIED_OPERATION,
} from './judge.ts';
export type { JudgedRequest } from './judge.ts';
export type { CheckVerdict, Exchange, ExchangeCheck } from './checks/index.ts';
export { CASE_JUDGE, JUDGES_OUTSIDE_CHECKS, PROXY_JUDGE, SCHEMA_JUDGE, VALIDATION_JUDGES } from './judges.ts';
export { readCredentials, headerValue, DEFAULT_LEGACY_HEADER } from './credentials.ts';
export type { CredentialReading, Scheme } from './credentials.ts';
export {
  bodyMembers,
  namesShownAt,
  recordKindLabel,
  recordKinds,
  recordMembers,
  schemaMembers,
  mergeAllOf,
  serverAttributes,
  successBody,
  wrongTypes,
  withValueAt,
  withoutValueAt,
  SAMPLE_OF_TYPE,
  JSON_TYPES,
  jsonTypeOfValue,
} from './members.ts';
export type { BodyMember, JsonType, RecordMember, ServerAttribute } from './members.ts';
export {
  parseQueryPairs,
  buildQuery,
  coerce,
  parameterName,
  decodeComponent,
  memberValue,
  smallestQuery,
} from './query.ts';
export type { RecordIds } from './query.ts';
export { problemsFromErrors, showValue, jsonTypeOf } from './messages.ts';
export { scalarText } from './scalar-text.ts';
export {
  maskCredentialQuery,
  maskedQueryPairs,
  maskedRequestTarget,
  maskedHeaderValue,
  maskedBody,
  maskedText,
  maskKnownValues,
  credentialLikeName,
  credentialHeader,
  headerSecrets,
  querySecrets,
  bodySecrets,
  scrubber,
  scrubDeep,
  scrubValues,
  MASK,
  SHORT_SECRET_LENGTH,
  CREDENTIAL_HEADERS,
  CREDENTIAL_NAME_FRAGMENTS,
  CREDENTIAL_NAME_WORDS,
} from './credential-policy.ts';
export type { MaskedBody, Scrub, Secret } from './credential-policy.ts';
export {
  boundFindings,
  boundList,
  cutFinding,
  cutText,
  occurrences,
  ruleAndDirection,
  FINDING_LIMITS,
  FINDING_TEXT_MAX,
  SCHEMA_ERRORS_DESCRIBED,
} from './bounds.ts';
export type { SummaryFinding, FindingLimits } from './bounds.ts';
export { LEVELS, LOCATIONS } from './levels.ts';
export { hasValueAt, inlineRefs, resolvePointer, escapeToken, unescapeToken } from './resolve.ts';
export type * from './types.ts';
export { escapeRegExp, pathWithoutQuery, withoutTrailingSlashes } from './validate.ts';
export type { Located } from './judge.ts';
export {
  deprecatedMetaMembers,
  filterMembers,
  filterRequired,
  freeFilterMember,
  includeNames,
  isListOperation,
  listIncludedSchema,
  listItemAttributes,
  listItemSchema,
  listMetaSchema,
  listOperations,
  pageMembers,
  parameterSchema,
  requiredMetaMembers,
  servedFilterMember,
  FILTER_PARAMETER,
  INCLUDE_PARAMETER,
  PAGE_PARAMETER,
} from './lists.ts';
export type { FilterMember } from './lists.ts';
export {
  firstInvalidUtf8,
  memberNameReading,
  PROTOTYPE_KEYS,
  repeatedMemberName,
  utf8Reading,
  utf8Text,
  wholeNumbersWithFraction,
} from './json-text.ts';
export type { MemberNameReading, NumberLiteral, Utf8Reading } from './json-text.ts';
