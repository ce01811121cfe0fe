// `npm run bench hostile-cost`: what judging one request of about a kilobyte costs the proxy,
// whatever its encoding and structure. Each of the red team's shapes of request is judged in
// process as the proxy judges a request (locate, admission, judgeRequest with the proxy's
// options), and the bench prints its CPU time per request and per kilobyte sent, the memory the
// judging allocated, and both against a conforming create of the same size measured in the same
// run. Goal: a few milliseconds and a few hundred KB at most per kilobyte sent.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { once } from 'node:events';
import { brotliCompressSync, constants, createBrotliCompress, deflateSync, gzipSync } from 'node:zlib';
import { loadContract, locate, MEDIA_TYPE, type Contract } from '../contract/index.ts';
import { admissionFindings } from '../proxy/admission.ts';
import { judgeRequest, type JudgeOptions } from '../proxy/judge.ts';
import { PROXY_DEFAULTS } from '../proxy/options.ts';

interface HostileRequest {
  name: string;
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const SESSION = { authorization: 'Bearer r:bench-session-token' };
const JSON_BODY = { ...SESSION, 'content-type': MEDIA_TYPE };

function create(
  name: string,
  document: unknown,
  headers: Record<string, string> = {},
  encode: (text: Buffer) => Buffer = (text) => text,
): HostileRequest {
  return {
    name,
    method: 'POST',
    path: '/v3/attribute-configs',
    headers: { ...JSON_BODY, ...headers },
    body: encode(Buffer.from(typeof document === 'string' ? document : JSON.stringify(document))),
  };
}

function list(name: string, query: string): HostileRequest {
  return { name, method: 'GET', path: `/v3/notification-groups?${query}`, headers: SESSION, body: Buffer.alloc(0) };
}

const attributes = (extra: Record<string, unknown>) => ({
  data: { type: 'AttributeConfig', attributes: { label: 'Hostile', ...extra } },
});
const options = (count: number, item: unknown) => new Array<unknown>(count).fill(item);

/** The red team's shapes, each about a kilobyte on the wire. */
async function hostileRequests(): Promise<HostileRequest[]> {
  return [
    create(
      'gzip inflating to 500,000 wrong-typed options',
      attributes({ options: options(500_000, 1) }),
      { 'content-encoding': 'gzip' },
      (text) => gzipSync(text, { level: 9 }),
    ),
    create(
      'brotli (4 MiB window, the default) inflating to 2,000,000 items',
      attributes({ options: options(2_000_000, 1) }),
      { 'content-encoding': 'br' },
      (text) => brotliCompressSync(text),
    ),
    {
      ...create('brotli: a 7-byte first meta-block, then 2,000,000 items', '', { 'content-encoding': 'br' }),
      body: await brotliFlushedEarly(JSON.stringify(attributes({ options: options(2_000_000, 1) }))),
    },
    create(
      'brotli declaring a 16 MiB window, inflating to 8,000,000 items',
      attributes({ options: options(8_000_000, 1) }),
      { 'content-encoding': 'br' },
      (text) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_LGWIN]: 24 } }),
    ),
    create(
      'deflate inflating to 500,000 wrong-typed options',
      attributes({ options: options(500_000, 1) }),
      { 'content-encoding': 'deflate' },
      (text) => deflateSync(text, { level: 9 }),
    ),
    create(
      'gzip twice over, inflating to 4,000,000 wrong-typed options',
      attributes({ options: options(4_000_000, 1) }),
      { 'content-encoding': 'gzip, gzip' },
      (text) => gzipSync(gzipSync(text, { level: 9 }), { level: 9 }),
    ),
    create(
      '801 gzip layers, the inner 800 stored blocks of 60 KB',
      'x',
      { 'content-encoding': Array.from({ length: 801 }, () => 'gzip').join(', ') },
      () =>
        gzipSync(
          Array.from({ length: 800 }, () => 0).reduce<Buffer>(
            (body) => gzipSync(body, { level: 0 }),
            Buffer.alloc(60_000, 0x20),
          ),
          { level: 9 },
        ),
    ),
    create('480 wrong-typed options, plain', attributes({ options: options(480, 1) })),
    create(
      'nesting 480 arrays deep',
      `{"data":{"type":"AttributeConfig","attributes":{"label":"Hostile","options":${'['.repeat(480)}${']'.repeat(480)}}}}`,
    ),
    create('120 unknown members', attributes(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`m${i}`, i])))),
    create('a relationship named with 1,000 slashes', {
      data: {
        type: 'AttributeConfig',
        attributes: { label: 'Hostile' },
        relationships: { ['/'.repeat(1000)]: { data: null } },
      },
    }),
    create('relationship names with line breaks and control characters', {
      data: {
        type: 'AttributeConfig',
        attributes: { label: 'Hostile' },
        relationships: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`a\nb\u001b]0;${i}\u0007\r`, 5])),
      },
    }),
    create(
      'members differing only by case, and prototype keys',
      `{"data":{"type":"AttributeConfig","attributes":{"label":"a","LABEL":"b","Label":"c","__proto__":{"inUse":true},"constructor":{"prototype":{}}}${',"x":1'.repeat(150)}}}`,
    ),
    create(
      'strings of lone surrogates',
      `{"data":{"type":"AttributeConfig","attributes":{"label":"Hostile","description":"${'\\ud800'.repeat(160)}"}}}`,
    ),
    create(
      'numbers past every range',
      `{"data":{"type":"AttributeConfig","attributes":{"label":"Hostile","editPermission":1e999,"viewPermission":-1e999,"options":[${Array.from({ length: 40 }, () => '123456789012345678901234567890').join(',')}]}}}`,
    ),
    list('a query repeating one key 110 times', `filter[type]=portal${'&page[limit]=1'.repeat(110)}`),
    list('a query key nested 300 brackets deep', `filter[type]=portal&f${'[a]'.repeat(300)}=1`),
    list(
      'include naming 500 relationships',
      `filter[type]=portal&include=${Array.from({ length: 500 }, () => 'a').join(',')}`,
    ),
    list(
      'every character of the query percent-encoded',
      Array.from(
        'filter[type]=portal&page[limit]=10&page[offset]=0'.repeat(7),
        (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
      ).join(''),
    ),
    list('a query of 90 unknown parameters', Array.from({ length: 90 }, (_, i) => `q${i}[a][b]=${i}`).join('&')),
  ];
}

/**
 * A brotli stream whose first meta-block is its first 7 bytes, flushed, and whose second holds the
 * rest: the first meta-block's length says nothing of the second, which the decoder may expand to
 * its whole 4 MiB window before a byte comes out (what no encoder writes for a small body).
 */
async function brotliFlushedEarly(text: string): Promise<Buffer> {
  const encoder = createBrotliCompress();
  const chunks: Buffer[] = [];
  encoder.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(encoder, 'end');
  encoder.write(text.slice(0, 7));
  await new Promise<void>((resolve) => encoder.flush(constants.BROTLI_OPERATION_FLUSH, resolve));
  encoder.end(text.slice(7));
  await ended;
  return Buffer.concat(chunks);
}

/** The baseline: a conforming create of about a kilobyte. */
const CONFORMING = create('conforming create of about a kilobyte (the baseline)', {
  data: {
    type: 'AttributeConfig',
    attributes: {
      label: 'Receives the newsletter',
      target: 'User',
      type: 'boolean',
      description: 'd'.repeat(700),
      options: [{ value: 'yes', label: 'Yes' }],
      required: false,
    },
  },
});

const JUDGE_OPTIONS: JudgeOptions = { includeValues: false, maxBody: PROXY_DEFAULTS.maxBody };

function sentBytes(request: HostileRequest): number {
  return (
    request.path.length +
    Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0) +
    request.body.length
  );
}

/** Judges the request as the proxy does before forwarding or refusing it. */
function judge(contract: Contract, request: HostileRequest): number {
  const located = locate(contract, request.method, request.path);
  const rawHeaders = Object.entries(request.headers).flat();
  const admission = admissionFindings(contract, {
    method: request.method,
    path: request.path,
    rawHeaders,
    operation: located.operation,
  });
  const body = request.body.length > 0 ? { kind: 'captured' as const, raw: request.body } : { kind: 'none' as const };
  return (
    admission.length +
    judgeRequest(contract, request.method, request.path, request.headers, body, JUDGE_OPTIONS, located).findings.length
  );
}

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Bytes of heap and of buffers one judgement allocates (no collection runs in between: the young generation holds it).
 */
function allocatedBytes(contract: Contract, request: HostileRequest): number {
  collectGarbage();
  const before = process.memoryUsage();
  judge(contract, request);
  const after = process.memoryUsage();
  return after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
}

/** Allocated KB as printed; a judgement during which a collection ran shows "collected" (its delta says nothing). */
function allocatedText(bytes: number): string {
  return bytes < 0 ? 'collected' : (bytes / 1024).toFixed(0);
}

/** CPU µs per judgement: the best of five rounds of `count`. */
function cpuMicros(contract: Contract, request: HostileRequest, count: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round += 1) {
    const started = process.cpuUsage();
    for (let i = 0; i < count; i += 1) judge(contract, request);
    const spent = process.cpuUsage(started);
    best = Math.min(best, (spent.user + spent.system) / count);
  }
  return best;
}

export default async function hostileCostBench(): Promise<void> {
  const contract = loadContract();
  const requests = await hostileRequests();
  const count = Math.max(20, Math.round(Number(process.env.BENCH_SECONDS ?? 10) * 20));
  const wallStart = performance.now();
  for (const request of [CONFORMING, ...requests]) judge(contract, request);
  const baseline = { micros: cpuMicros(contract, CONFORMING, count), bytes: allocatedBytes(contract, CONFORMING) };
  process.stdout.write(
    `\nJudging one request as the proxy does (locate, admission, judgeRequest; ${count} judgements a round, the best of five rounds), in process.\n` +
      `Goal: a few milliseconds of CPU and a few hundred KB allocated at most per kilobyte sent.\n` +
      `${'request'.padEnd(62)} ${'sent B'.padStart(7)} ${'CPU µs'.padStart(8)} ${'µs/KB'.padStart(8)} ${'vs base'.padStart(8)} ${'alloc KB'.padStart(9)} ${'KB/KB'.padStart(7)}\n`,
  );
  const row = (request: HostileRequest, micros: number, bytes: number) => {
    const kilobytes = sentBytes(request) / 1024;
    process.stdout.write(
      `${request.name.padEnd(62)} ${String(sentBytes(request)).padStart(7)} ${micros.toFixed(1).padStart(8)} ${(micros / kilobytes).toFixed(1).padStart(8)} ${`${(micros / baseline.micros).toFixed(2)}×`.padStart(8)} ${allocatedText(bytes).padStart(9)} ${(bytes < 0 ? '-' : (bytes / 1024 / kilobytes).toFixed(0)).padStart(7)}\n`,
    );
    return { perKilobyte: micros / kilobytes, allocatedPerKilobyte: bytes / 1024 / kilobytes };
  };
  row(CONFORMING, baseline.micros, baseline.bytes);
  let worst = { name: '', perKilobyte: 0, allocatedPerKilobyte: 0 };
  for (const request of requests) {
    const measured = row(request, cpuMicros(contract, request, count), allocatedBytes(contract, request));
    if (measured.perKilobyte > worst.perKilobyte) worst = { name: request.name, ...measured };
  }
  process.stdout.write(
    `Worst per kilobyte sent: ${worst.name}, ${(worst.perKilobyte / 1000).toFixed(2)} ms of CPU and ${worst.allocatedPerKilobyte < 0 ? 'more than a young generation' : `${worst.allocatedPerKilobyte.toFixed(0)} KB`} allocated (${((performance.now() - wallStart) / 1000).toFixed(1)} s).\n`,
  );
}
