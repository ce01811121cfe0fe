// `npm run bench har`: the peak memory of `las-conformance judge` on a large HAR file (200 MiB by
// default, BENCH_HAR_MIB to change it) against the same command on a small one (2 MiB) in the
// same run: a stream keeps one entry at a time, so the ratio stays near 1 whatever the file's
// size. Both files are written to a temporary directory, entry by entry, and removed after.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MEDIA_TYPE } from '../contract/index.ts';

const MIB = 1024 * 1024;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE_MIB = 2;

export default async function harBench(): Promise<void> {
  const largeMiB = Number(process.env.BENCH_HAR_MIB ?? 200);
  const dir = mkdtempSync(join(tmpdir(), 'las-har-bench-'));
  try {
    const small = await writeHar(join(dir, 'small.har'), BASELINE_MIB * MIB);
    const large = await writeHar(join(dir, 'large.har'), largeMiB * MIB);
    const baseline = await judgePeak(small.file);
    const measured = await judgePeak(large.file);
    const line = (name: string, file: { bytes: number; entries: number }, run: { peak: number; ms: number }) =>
      `  ${name.padEnd(8)} ${(file.bytes / MIB).toFixed(0).padStart(5)} MiB, ${file.entries.toLocaleString('en-US').padStart(7)} entries: peak RSS ${(run.peak / MIB).toFixed(0).padStart(4)} MiB, ${(run.ms / 1000).toFixed(1)} s (${(file.bytes / MIB / (run.ms / 1000)).toFixed(1)} MiB/s)\n`;
    process.stdout.write(line('baseline', small, baseline));
    process.stdout.write(line('large', large, measured));
    process.stdout.write(
      `  peak RSS large / baseline: ${(measured.peak / baseline.peak).toFixed(2)}  (file size ratio ${(large.bytes / small.bytes).toFixed(0)}; 1.00 = memory does not grow with the file)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `judge FILE` in a child process and reads the peak resident memory it reports. */
function judgePeak(file: string): Promise<{ peak: number; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/judge-peak.ts'), file], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const match = /peak-rss-bytes (\d+)/.exec(stderr);
      if (code !== 0 || !match)
        return reject(new Error(`judge exited ${code}: ${stderr.split('\n').slice(-3).join(' ')}`));
      resolve({ peak: Number(match[1]), ms: performance.now() - started });
    });
  });
}

/** A HAR of valid list exchanges (100 items each) of at least `bytes`, written entry by entry. */
async function writeHar(file: string, bytes: number): Promise<{ file: string; bytes: number; entries: number }> {
  const out = createWriteStream(file);
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await write('{"log":{"version":"1.2","creator":{"name":"las-conformance bench","version":"1"},"entries":[\n');
  let written = 0;
  let entries = 0;
  while (written < bytes) {
    const entry = JSON.stringify(listEntry(entries));
    await write(`${entries === 0 ? '' : ',\n'}${entry}`);
    written += entry.length + 2;
    entries += 1;
  }
  await write('\n]}}\n');
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return { file, bytes: statSync(file).size, entries };
}

function listEntry(n: number): object {
  const limit = 100;
  const total = 100_000;
  const offset = (n * limit) % total;
  const data = Array.from({ length: limit }, (_, i) => ({
    id: (offset + i).toString(16).padStart(24, '0'),
    type: 'NotificationGroup',
    attributes: {
      groupId: 'Exams',
      label: `Group ${offset + i}`,
      defaultValue: i % 2 === 0,
      description: 'Notifications about exams and their results',
    },
  }));
  const body = JSON.stringify({
    data,
    meta: { total, pages: Math.ceil(total / limit), page: Math.floor(offset / limit) + 1, offset, limit },
  });
  const url = `http://127.0.0.1:4010/v3/notification-groups?filter[type]=portal&page[limit]=${limit}&page[offset]=${offset}`;
  return {
    startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, n % 60)).toISOString(),
    time: 3,
    request: {
      method: 'GET',
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        { name: 'Authorization', value: 'Bearer r:bench-session-token' },
        { name: 'Accept', value: MEDIA_TYPE },
      ],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Content-Type', value: MEDIA_TYPE }],
      content: { size: body.length, mimeType: MEDIA_TYPE, text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: 3, receive: 0 },
  };
}
