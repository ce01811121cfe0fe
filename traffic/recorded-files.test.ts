// Reading recorded traffic: HAR files and capture lines, as a stream; a malformed entry is one
// error naming it and the rest is still read; a file that is neither is refused in one line.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../cli/test-support.ts';
import type { Operation } from '../contract/index.ts';
import { contract, describeWith, list, listQuery } from '../contract/test-support.ts';
import { readRecorded, UnreadableFileError, type RecordedItem } from './recorded-files.ts';

/** Paths a reader takes as they come (made up: reading judges nothing). */
const READ = '/v3/records?filter[kind]=a';
const READ_OTHER = '/v3/records?filter[kind]=b';
const WRITE = '/v3/records';

/** A request for the first page of five of a list, and the requirement its answer's meta.pages is judged by. */
const firstPage = (operation: Operation) =>
  `${operation.pathTemplate}?${listQuery(operation, { limit: 5, offset: 0 })}`;
const metaPagesOf = (operation: Operation) => contract.requirementOf(operation, 'metaPages')!.id;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-recorded-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function entry(path: string, status = 200, body = '{"data":[]}'): object {
  return {
    startedDateTime: '2026-11-24T10:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `http://127.0.0.1:4010${path}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Authorization', value: 'Bearer r:token' }],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Content-Type', value: 'application/vnd.api+json' }],
      content: { size: body.length, mimeType: 'application/vnd.api+json', text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

async function readAll(file: string): Promise<RecordedItem[]> {
  const items: RecordedItem[] = [];
  for await (const item of readRecorded(file)) items.push(item);
  return items;
}

const summary = (items: RecordedItem[]) =>
  items.map((item) =>
    'error' in item
      ? `#${item.entry} ${item.error}`
      : `#${item.entry} ${item.recorded.exchange.method} ${item.recorded.exchange.path}`,
  );

describe('readRecorded', () => {
  it('reads a HAR file entry by entry, naming a malformed entry and reading on', async () => {
    const broken = { ...entry(WRITE), request: { url: `http://127.0.0.1:4010${WRITE}`, headers: [] } };
    const file = join(dir, 'mixed.har');
    writeFileSync(
      file,
      JSON.stringify(
        {
          log: {
            version: '1.2',
            creator: { name: 'test', version: '1' },
            entries: [entry(READ), broken, entry('/favicon.ico', 404, '')],
          },
        },
        null,
        2,
      ),
    );
    expect(summary(await readAll(file))).toEqual([
      `#1 GET ${READ}`,
      '#2 request.method is not a non-empty string',
      '#3 GET /favicon.ico',
    ]);
  });

  it('never assembles a string longer than the bound: such a body stands as not kept, the rest of the entry as recorded', async () => {
    const file = join(dir, 'huge-body.har');
    const huge = JSON.stringify({ data: [], filler: 'x'.repeat(200_000) });
    writeFileSync(
      file,
      JSON.stringify({
        log: {
          version: '1.2',
          entries: [entry(READ, 200, huge), entry(READ_OTHER)],
        },
      }),
    );
    const items = [];
    for await (const item of readRecorded(file, 1000)) items.push(item);
    expect(summary(items)).toEqual([`#1 GET ${READ}`, `#2 GET ${READ_OTHER}`]);
    const [first, second] = items as Extract<RecordedItem, { recorded: unknown }>[];
    expect(first.recorded.exchange.response?.body).toEqual({
      kind: 'omitted',
      reason: 'body too large to read from the recording',
      cause: 'size',
    });
    expect(second.recorded.exchange.response?.body).toEqual({ kind: 'captured', raw: Buffer.from('{"data":[]}') });
    expect(first.recorded.exchange.requestHeaders).toEqual({ authorization: 'Bearer r:token' });
  });

  it('keeps what came before JSON that breaks, and says where reading stopped', async () => {
    const file = join(dir, 'cut.har');
    const whole = JSON.stringify({
      log: {
        version: '1.2',
        entries: [entry(READ_OTHER), entry(READ)],
      },
    });
    // A file cut in the middle of its second entry, as by a crash.
    writeFileSync(file, whole.slice(0, whole.lastIndexOf('"response"')) + '}');
    const items = summary(await readAll(file));
    expect(items[items.length - 1]).toMatch(/^#\d not JSON from here on, reading stopped \(/);
    expect(items.length).toBeLessThanOrEqual(2);
  });

  it('reads capture lines one by one: a line that is not JSON is named and skipped', async () => {
    const file = join(dir, 'capture.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify(entry(READ_OTHER))}\n{"cut by a cra\n\n${JSON.stringify(entry(WRITE, 201))}\n`,
    );
    expect(summary(await readAll(file))).toEqual([
      `#1 GET ${READ_OTHER}`,
      expect.stringMatching(/^#2 not JSON \(/),
      `#3 GET ${WRITE}`,
    ]);
  });

  it('never holds a capture line past the bound: it is named and skipped, the next line read', async () => {
    const file = join(dir, 'long-line.ndjson');
    const long = JSON.stringify(entry(READ, 200, JSON.stringify({ data: [], filler: 'y'.repeat(1_200_000) })));
    writeFileSync(file, `${long}\r\n${JSON.stringify(entry(READ_OTHER))}\r\n`);
    const items: RecordedItem[] = [];
    for await (const item of readRecorded(file, 100)) items.push(item);
    expect(summary(items)).toEqual([
      expect.stringMatching(/^#1 longer than \d+ bytes, not read$/),
      `#2 GET ${READ_OTHER}`,
    ]);
  });

  const unreadable: { title: string; make: () => string; message: RegExp }[] = [
    { title: 'a missing file', make: () => join(dir, 'missing.har'), message: /^cannot read .*missing\.har: ENOENT$/ },
    {
      title: 'a directory',
      make: () => (mkdirSync(join(dir, 'folder'), { recursive: true }), join(dir, 'folder')),
      message: /folder is a directory, not a HAR or capture file$/,
    },
    {
      title: 'a file of something else',
      make: () => (writeFileSync(join(dir, 'notes.txt'), 'hello\n'), join(dir, 'notes.txt')),
      message: /notes\.txt is neither a HAR file/,
    },
  ];
  for (const c of unreadable) {
    it(`refuses ${c.title} in one line`, async () => {
      await expect(readAll(c.make())).rejects.toThrow(UnreadableFileError);
      await expect(readAll(c.make())).rejects.toThrow(c.message);
    });
  }
});

describeWith(list, 'list')('las-conformance judge, the findings of a list answer', (list) => {
  it('names each malformed entry on one line, judges the rest, and exits by the findings', async () => {
    const file = join(dir, 'judge-mixed.har');
    const wrongPages = JSON.stringify({ data: [], meta: { total: 0, pages: 0, page: 1, offset: 0, limit: 5 } });
    const broken = { ...entry(WRITE), response: { status: 'OK' } };
    writeFileSync(
      file,
      JSON.stringify({
        log: {
          version: '1.2',
          entries: [
            broken,
            entry(`${contract.basePath}${firstPage(list)}`, 200, wrongPages.replace('"total":0', '"total":12')),
          ],
        },
      }),
    );
    const result = await runCli(['judge', file]);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('las-conformance: '));
    expect(errors).toEqual([`las-conformance: ${file} entry #1: GET ${WRITE}: response.status is not an HTTP status`]);
    expect(result.stderr).toContain('2 entries: 1 judged, 0 outside the API (counted, not judged), 1 malformed');
    expect(result.stdout).toContain(metaPagesOf(list));
    expect(result.code).toBe(1);
  }, 30_000);

  it("--base-url judges only the entries under it, as under the contract's base path; the rest are counted outside the API", async () => {
    const file = join(dir, 'prefixed.har');
    const wrongPages = JSON.stringify({ data: [], meta: { total: 0, pages: 5, page: 1, offset: 0, limit: 5 } });
    const prefixed = entry(`/api${contract.basePath}${firstPage(list)}`, 200, wrongPages);
    const elsewhere = {
      ...entry(`${contract.basePath}${firstPage(list)}`, 200, wrongPages),
      request: {
        ...(entry('') as { request: object }).request,
        url: `http://cdn.example.com${contract.basePath}${firstPage(list)}`,
      },
    };
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [prefixed, elsewhere] } }));
    const violations = join(dir, 'prefixed.ndjson');
    const result = await runCli([
      'judge',
      file,
      '--base-url',
      'http://127.0.0.1:4010/api/v3',
      '--violations',
      violations,
    ]);
    expect(result.stderr).toContain('2 entries: 1 judged, 1 outside the API (counted, not judged), 0 malformed');
    const lines = readFileSync(violations, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { rule: string; path: string });
    expect(lines.map((l) => [l.rule, l.path])).toEqual([[metaPagesOf(list), `${contract.basePath}${firstPage(list)}`]]);
    expect(result.code).toBe(1);
  }, 30_000);
});

describe('las-conformance judge, files it cannot judge whole', () => {
  const noExchange = [
    {
      title: 'a HAR file with no entry',
      name: 'empty.har',
      text: JSON.stringify({ log: { version: '1.2', entries: [] } }),
      stderr: [/^las-conformance: no entry of .*empty\.har could be read as an exchange$/],
    },
    {
      title: 'a capture file whose only line is malformed',
      name: 'broken.ndjson',
      text: '{"request": 1}\n',
      stderr: [
        /^las-conformance: .*broken\.ndjson entry #1: /,
        /^las-conformance: no entry of .*broken\.ndjson could be read as an exchange \(1 malformed\)$/,
      ],
    },
  ];
  for (const c of noExchange) {
    it(`on ${c.title} prints only its error, no empty report: exit 2`, async () => {
      writeFileSync(join(dir, c.name), c.text);
      const result = await runCliInProcess(['judge', join(dir, c.name)]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toEqual(c.stderr.map((line): unknown => expect.stringMatching(line)));
    }, 30_000);
  }

  it('exits 2 with one line for a file that is not recorded traffic', async () => {
    writeFileSync(join(dir, 'plain.txt'), 'not traffic\n');
    const result = await runCliInProcess(['judge', join(dir, 'plain.txt')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^las-conformance: .*plain\.txt is neither a HAR file/),
    ]);
  }, 30_000);
});
