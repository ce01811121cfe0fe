// The validating reverse proxy (issue 5): build it, start it, close it; and the log format it writes.
export {
  createValidatingProxy,
  startValidatingProxy,
  ValidatingProxy,
  PROXY_DEFAULTS,
  upstreamDisplay,
} from './proxy.ts';
export { VIOLATIONS_HEADER, violationsHeaderValue } from './answers.ts';
export { classifyUpstreamError } from './errors.ts';
export type { ValidatingProxyOptions, ListenOptions, ProxyAddresses, StartedProxy, ProxyMode } from './proxy.ts';
export { createProxyLogger } from './logger.ts';
export { VIOLATION_KEYS } from './violations.ts';
export type { ViolationRecord } from './violations.ts';
export { HOP_BY_HOP_HEADERS } from './headers.ts';
export { UPSTREAM_ERRORS } from './errors.ts';
