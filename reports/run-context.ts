// What a record says about the run itself: which kit (version, and commit when it runs from a
// checkout), which contract (a SHA-256 of its files, so a record can be checked against the kit
// that reads it), and which Node and Playwright ran it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_DIR } from '../contract/index.ts';
import type { RunContext } from './record.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The files the contract is read from; their bytes, in this order, are what the hash covers. */
export const CONTRACT_FILES = ['openapi.yaml', 'requirements.yaml'] as const;

/** SHA-256 over each contract file's name and bytes. */
export function contractSha256(schemaDir = SCHEMA_DIR): string {
  const hash = createHash('sha256');
  for (const name of CONTRACT_FILES) {
    const bytes = readFileSync(join(schemaDir, name));
    hash.update(`${name}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/**
 * The commit the kit runs from, when the kit itself is a git checkout and git is there to say;
 * otherwise undefined. A kit installed under node_modules sits inside its user's repository,
 * whose commit is not the kit's: the checkout's top level must be the kit's own folder.
 */
export function kitCommit(root = ROOT): string | undefined {
  try {
    const [topLevel, commit] = execFileSync('git', ['-C', root, 'rev-parse', '--show-toplevel', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    })
      .trim()
      .split('\n');
    return realpathSync(topLevel) === realpathSync(root) && /^[0-9a-f]{40}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined;
  }
}

export function kitIdentity(): RunContext['kit'] {
  const kit = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const commit = kitCommit();
  return { name: kit.name, version: kit.version, ...(commit ? { commit } : {}) };
}

export function environmentVersions(): RunContext['environment'] {
  const playwright = JSON.parse(
    readFileSync(createRequire(import.meta.url).resolve('@playwright/test/package.json'), 'utf8'),
  ) as { version: string };
  return { node: process.version, playwright: playwright.version, platform: `${process.platform}-${process.arch}` };
}
