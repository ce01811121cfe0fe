// The run is described once: `las-conformance run --target FILE` reads the target file once, and
// the suite's processes (its runner and each worker, which load the regression cases' spec file)
// get its regression cases as data in the run's description. Every process of the run counts its
// reads of the target file (test-support/count-opens.mjs): the file is read once in all.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Operation } from '../contract/index.ts';
import { itWith, listQuery } from '../contract/test-support.ts';
import { RECORD_FILE } from '../run-protocol/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { runCli, runnable, RUN_NEEDS } from './test-support.ts';

const COUNT_OPENS = new URL('../test-support/count-opens.mjs', import.meta.url).href;

/** How many times a process read the watched file: count-opens.mjs writes a line each time. */
function countedReads(log: string): number {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('the target file of a run', { timeout: 120_000 }, () => {
  let dir: string;
  let reference: StartedReferenceServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'las-target-reads-'));
    reference = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await reference?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  itWith(runnable, RUN_NEEDS)(
    'is read once, by the run command; its regression case runs in the suite all the same',
    async (list) => {
      const targetFile = join(dir, 'target.yaml');
      writeFileSync(targetFile, targetText(reference.baseUrl, list));
      const log = join(dir, 'reads.log');
      const reportDir = join(dir, 'report');
      const args = ['--target', targetFile, '--grep', 'regression: ', '--allow-partial', '--report-dir', reportDir];
      const counting = {
        NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import ${COUNT_OPENS}`].filter(Boolean).join(' '),
        COUNT_OPENS_OF: targetFile,
        COUNT_OPENS_LOG: log,
      };
      const { code, stdout, stderr } = await runCli(['run', ...args], counting);
      expect(stderr, stderr).toBe('');
      expect(code, stdout.slice(-1500)).toBe(0);
      expect(countedReads(log)).toBe(1);
      const record = JSON.parse(readFileSync(join(reportDir, RECORD_FILE), 'utf8')) as CertificationRecord;
      expect(record.cases.total).toBe(1);
      expect(record.cases.passed).toBe(1);
    },
  );
});

/** A target file holding one regression case: a request to `list` the reference server answers right. */
function targetText(baseUrl: string, list: Operation): string {
  return `baseUrl: ${baseUrl}
credentials:
  sessionToken: ${DEFAULT_CREDENTIALS.sessionToken}
  pat: ${DEFAULT_CREDENTIALS.pat}
regressionCases:
  - name: the list answers with a status string
    requirement: ERR-STATUS-STRING
    why: a client once saw a number here
    request:
      method: GET
      path: ${list.pathTemplate}?${listQuery(list)}
      credentials: session
`;
}
