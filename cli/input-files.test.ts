// What `report` and `judge` read from their arguments: globs as the files they match, capture
// directories (one per replica) as the capture files in them; nothing matched is a usage error.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, itWith, list, listQuery } from '../contract/test-support.ts';
import type { Operation } from '../contract/index.ts';
import { expandCaptureDirectories, expandGlobs } from './input-files.ts';
import { runCliInProcess } from './test-support.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-input-files-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A violations line: an operation of the contract answered 500, which no operation may answer. */
const answered = contract.operations[0];
const finding = {
  time: '2026-11-24T10:00:00.000Z',
  method: answered.method,
  path: `${contract.basePath}${answered.pathTemplate}`,
  operationId: answered.operationId,
  direction: 'exchange',
  status: 500,
  rule: 'ERR-NO-5XX',
  level: 'MUST',
  pointer: '',
  message: 'answered 500',
};

/** A capture line: a page of `list` whose meta.pages is wrong for its total and limit. */
function captureLine(list: Operation, requestId: string): string {
  const body = JSON.stringify({ data: [], meta: { total: 12, pages: 0, page: 1, offset: 0, limit: 5 } });
  return JSON.stringify({
    startedDateTime: '2026-11-24T10:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `http://127.0.0.1:4010${contract.basePath}${list.pathTemplate}?${listQuery(list, { limit: 5, offset: 0 })}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        { name: 'Authorization', value: 'Bearer r:***' },
        { name: 'X-Request-Id', value: requestId },
      ],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
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
  });
}

describe('expandGlobs', () => {
  it('gives the files a glob matches in name order, and a named file as it is', () => {
    const logs = join(dir, 'globbed');
    mkdirSync(logs);
    for (const name of ['replica-2.ndjson', 'replica-1.ndjson', 'other.txt']) writeFileSync(join(logs, name), '');
    expect(expandGlobs([join(logs, 'replica-*.ndjson'), join(logs, 'other.txt')])).toEqual([
      join(logs, 'replica-1.ndjson'),
      join(logs, 'replica-2.ndjson'),
      join(logs, 'other.txt'),
    ]);
  });

  it('reads an existing file whose name looks like a glob as that file', () => {
    const literal = join(dir, 'odd[1].ndjson');
    writeFileSync(literal, '');
    expect(expandGlobs([literal])).toEqual([literal]);
  });

  it('refuses a glob that matches nothing, naming it', () => {
    expect(() => expandGlobs([join(dir, 'nothing-*.ndjson')])).toThrow(/nothing-\*\.ndjson matches no file$/);
  });
});

describe('expandCaptureDirectories', () => {
  it('gives the capture files of each directory, oldest first, and leaves other files in it out', () => {
    const replica = join(dir, 'capture-dir');
    mkdirSync(replica);
    for (const name of ['capture-20261124T100500Z-0002.ndjson', 'capture-20261124T100000Z-0001.ndjson', 'notes.ndjson'])
      writeFileSync(join(replica, name), '');
    expect(expandCaptureDirectories([replica, join(dir, 'a.har')])).toEqual([
      join(replica, 'capture-20261124T100000Z-0001.ndjson'),
      join(replica, 'capture-20261124T100500Z-0002.ndjson'),
      join(dir, 'a.har'),
    ]);
  });

  it('refuses a directory without capture files, naming it', () => {
    const empty = join(dir, 'empty-dir');
    mkdirSync(empty);
    expect(() => expandCaptureDirectories([empty])).toThrow(/empty-dir holds no capture files/);
  });
});

describe('the commands', () => {
  it('report merges the logs a glob names', async () => {
    const logs = join(dir, 'fleet-logs');
    mkdirSync(logs);
    writeFileSync(join(logs, 'replica-1.ndjson'), `${JSON.stringify({ ...finding, requestId: 'r1' })}\n`);
    writeFileSync(join(logs, 'replica-2.ndjson'), `${JSON.stringify({ ...finding, requestId: 'r2', repeated: 3 })}\n`);
    const result = await runCliInProcess(['report', join(logs, 'replica-*.ndjson')]);
    expect(result.stdout).toContain(
      `# Violations report: ${join(logs, 'replica-1.ndjson')}, ${join(logs, 'replica-2.ndjson')}`,
    );
    expect(result.stdout).toContain('4 findings, first seen');
    expect(result.code).toBe(1);
  });

  it('report exits 2 on a glob that matches nothing, with one line naming it', async () => {
    const result = await runCliInProcess(['report', join(dir, 'missing-*.ndjson')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^las-conformance: .*missing-\*\.ndjson matches no file$/),
    ]);
  });

  itWith(list, 'list')('judge reads several capture directories, one per replica', async (list) => {
    const replicas = [join(dir, 'replica-a'), join(dir, 'replica-b')];
    replicas.forEach((replica, index) => {
      mkdirSync(replica);
      writeFileSync(
        join(replica, 'capture-20261124T100000Z-0001.ndjson'),
        `${captureLine(list, `${index}-1`)}\n${captureLine(list, `${index}-2`)}\n`,
      );
    });
    writeFileSync(join(replicas[1], 'capture-20261124T110000Z-0002.ndjson'), `${captureLine(list, '1-3')}\n`);
    const result = await runCliInProcess(['judge', ...replicas]);
    expect(result.stderr).toContain('5 entries: 5 judged, 0 outside the API (counted, not judged), 0 malformed;');
    expect(result.stdout).toContain(`| MUST | ${list.roles.metaPages} |`);
    expect(result.code).toBe(1);
  });

  it('judge exits 2 on a directory without capture files, with one line naming it', async () => {
    const empty = join(dir, 'no-captures');
    mkdirSync(empty);
    const result = await runCliInProcess(['judge', empty]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^las-conformance: .*no-captures holds no capture files/),
    ]);
  });
});
