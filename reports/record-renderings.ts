// The files rendered from the certification record next to conformance.json: the per-requirement
// JUnit that CI systems ingest and the HTML certification report. Playwright's own per-case JUnit
// is written under CASES_JUNIT_FILE (run-protocol/) beside them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CERTIFICATION_FILE, REQUIREMENTS_JUNIT_FILE } from '../run-protocol/index.ts';
import { UNSIGNED_RECORD, type RecordSignature } from './attestation.ts';
import { certificationHtml } from './certification-html.ts';
import type { CertificationRecord } from './record.ts';
import { requirementsJunit } from './requirements-junit.ts';

export interface RenderingPaths {
  junit: string;
  certification: string;
}

export function writeRecordRenderings(
  record: CertificationRecord,
  outputDir: string,
  signature: RecordSignature = UNSIGNED_RECORD,
): RenderingPaths {
  const paths = { junit: join(outputDir, REQUIREMENTS_JUNIT_FILE), certification: join(outputDir, CERTIFICATION_FILE) };
  writeFileSync(paths.junit, requirementsJunit(record));
  writeFileSync(paths.certification, certificationHtml(record, signature));
  return paths;
}
