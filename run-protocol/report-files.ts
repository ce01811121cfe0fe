/** The files a run leaves in its report directory. */
export const RECORD_FILE = 'conformance.json';
/**
 * The record's signature, when the run was given a signing key: a DSSE envelope on one line, as in-toto attestation
 * bundles hold them.
 */
export const ENVELOPE_FILE = 'conformance.intoto.jsonl';
export const SUMMARY_FILE = 'summary.md';
/** The record rendered per requirement, for CI systems. */
export const REQUIREMENTS_JUNIT_FILE = 'junit.xml';
/** Playwright's own JUnit, per case. */
export const CASES_JUNIT_FILE = 'junit-cases.xml';
export const CERTIFICATION_FILE = 'certification.html';
/**
 * Written instead of a record when the run can have no verdict: one line saying why (a case file that failed to load,
 * say).
 */
export const NO_VERDICT_FILE = 'no-verdict.txt';
/** The run command's log. */
export const RUN_LOG_FILE = 'run.log';
/** Playwright's HTML report, its test artifacts and its blob report (sharded runs), each a directory. */
export const PLAYWRIGHT_HTML_DIR = 'html';
export const ARTIFACTS_DIR = 'artifacts';
export const BLOB_DIR = 'blob';
/** Everything a run writes into its report directory: what a reused directory is cleared of, and nothing else. */
export const REPORT_DIR_ENTRIES = [
  RECORD_FILE,
  ENVELOPE_FILE,
  SUMMARY_FILE,
  REQUIREMENTS_JUNIT_FILE,
  CASES_JUNIT_FILE,
  CERTIFICATION_FILE,
  NO_VERDICT_FILE,
  RUN_LOG_FILE,
  PLAYWRIGHT_HTML_DIR,
  ARTIFACTS_DIR,
  BLOB_DIR,
] as const;
