// What a record says about the kit that wrote it: the commit only when the kit is a checkout of
// its own, and a contract hash that changes with the contract's bytes.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../contract/index.ts';
import { CONTRACT_FILES, contractSha256, kitCommit } from './run-context.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-run-context-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    encoding: 'utf8',
  }).trim();
}

describe('kitCommit', () => {
  it('is the commit of a checkout whose top level is the kit, and undefined for a kit inside another repository', () => {
    const project = join(dir, 'project');
    const kit = join(project, 'node_modules', 'las-conformance');
    mkdirSync(kit, { recursive: true });
    git(project, 'init', '-q');
    writeFileSync(join(project, 'file'), 'x');
    git(project, 'add', 'file');
    git(project, 'commit', '-qm', 'c');
    expect(kitCommit(project)).toBe(git(project, 'rev-parse', 'HEAD'));
    expect(kitCommit(kit)).toBeUndefined();
    expect(kitCommit(join(dir, 'nowhere'))).toBeUndefined();
  });
});

describe('contractSha256', () => {
  it('is stable for the same bytes and changes with any byte of the contract', () => {
    const copy = join(dir, 'schemas');
    mkdirSync(copy);
    for (const name of CONTRACT_FILES) cpSync(join(SCHEMA_DIR, name), join(copy, name));
    expect(contractSha256(copy)).toBe(contractSha256());
    expect(contractSha256()).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(copy, 'requirements.yaml'), '\n', { flag: 'a' });
    expect(contractSha256(copy)).not.toBe(contractSha256());
  });
});
