// The run is described once: `las-conformance run --target FILE` reads the target file once, and
// the suite's processes (its runner and each worker, which load the regression cases' spec file)
// get its regression cases as data in the run's description. The target file is a named pipe
// here, so every open of it is counted: each reader is served the file's text once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_FILE } from '../run-protocol/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { DEFAULT_CREDENTIALS, startReferenceServer, type StartedReferenceServer } from '../server/index.ts';
import { runCli } from './test-support.ts';

/** Far longer than a reader takes to close a pipe after its end; a reader opening meanwhile waits. */
const READER_CLOSES_MS = 300;

interface CountedPipe {
  reads: () => number;
  stop: () => Promise<void>;
}

/** A named pipe at `path` that gives `text` to every process that opens it, counting them, until stopped. */
function countedPipe(path: string, text: string): CountedPipe {
  execFileSync('mkfifo', [path]);
  let reads = 0;
  let stopped = false;
  const serving = (async () => {
    while (!stopped) {
      // Opening a pipe to write waits until a reader opens it.
      const handle = await open(path, 'w');
      if (!stopped) reads++;
      await handle.writeFile(text);
      await handle.close();
      // Until this reader has seen the end and closed, a new writer would write into its pipe again.
      await setTimeout(READER_CLOSES_MS);
    }
  })();
  return {
    reads: () => reads,
    stop: async () => {
      stopped = true;
      // The writer waits for one more reader: this one, after which it ends.
      await readFile(path);
      await serving;
    },
  };
}

describe('the target file of a run', () => {
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

  it('is read once, by the run command; its regression case runs in the suite all the same', async () => {
    const targetFile = join(dir, 'target.yaml');
    const pipe = countedPipe(targetFile, targetText(reference.baseUrl));
    const reportDir = join(dir, 'report');
    try {
      const args = ['--target', targetFile, '--grep', 'regression: ', '--allow-partial', '--report-dir', reportDir];
      const { code, stdout, stderr } = await runCli(['run', ...args]);
      expect(stderr, stderr).toBe('');
      expect(code, stdout.slice(-1500)).toBe(0);
    } finally {
      await pipe.stop();
    }
    expect(pipe.reads()).toBe(1);
    const record = JSON.parse(readFileSync(join(reportDir, RECORD_FILE), 'utf8')) as CertificationRecord;
    expect(record.cases.total).toBe(1);
    expect(record.cases.passed).toBe(1);
  }, 120_000);
});

function targetText(baseUrl: string): string {
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
      path: /notification-groups?filter[type]=portal
      credentials: session
`;
}
