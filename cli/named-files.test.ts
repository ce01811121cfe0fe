// Every file a person names to the kit is read whole only as a regular file within its stated
// size: the target file (`run --target`, `replay --target`), the file regression cases are saved
// to (`run --save-cases`, `replay --save-cases`), the certificate authority file (`--ca`,
// LAS_CA_FILE), the signing key, and the proxy's certificates and admin token file. A link to
// /dev/zero or a larger file is refused in one line naming the file (exit 2) at once,
// instead of being read until memory runs out or waited on for ever.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_MAX_BYTES } from '../reports/attestation.ts';
import { CA_FILE_MAX_BYTES } from '../targets/target.ts';
import { TARGET_FILE_MAX_BYTES } from '../targets/target-file.ts';
import { ADMIN_TOKEN_FILE_MAX_BYTES } from './proxy.ts';
import { runCliWithin, spoiledFiles } from './test-support.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-named-files-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A target nothing listens on: every command here must stop before it sends anything. */
const TARGET = ['--base-url', 'http://127.0.0.1:1/v3', '--session-token', 'session-9c1f', '--pat', 'pat-4d2a'];

/** A HAR file with no entries, for replay to be given one. */
const emptyHar = () => {
  const path = join(dir, 'empty.har');
  writeFileSync(path, '{"log":{"version":"1.2","entries":[]}}');
  return path;
};

interface NamedFile {
  command: string;
  /** The command line naming the file at `path`, and the environment beside it. */
  args: (path: string) => string[];
  env?: (path: string) => Record<string, string>;
  /** How the refusal names the file, before its path. */
  what: string;
  maxBytes: number;
}

const NAMED_FILES: NamedFile[] = [
  {
    command: 'run --target',
    args: (path) => ['run', '--target', path],
    what: 'target file',
    maxBytes: TARGET_FILE_MAX_BYTES,
  },
  {
    command: 'replay --target',
    args: (path) => ['replay', emptyHar(), '--target', path],
    what: 'target file',
    maxBytes: TARGET_FILE_MAX_BYTES,
  },
  {
    command: 'run --save-cases',
    args: (path) => ['run', '--reference-server', '--generate', '0', '--save-cases', path],
    what: 'target file',
    maxBytes: TARGET_FILE_MAX_BYTES,
  },
  {
    command: 'replay --save-cases',
    args: (path) => ['replay', emptyHar(), ...TARGET, '--save-cases', path],
    what: 'target file',
    maxBytes: TARGET_FILE_MAX_BYTES,
  },
  {
    command: 'run --ca',
    args: (path) => ['run', ...TARGET, '--ca', path],
    what: 'the certificate authority file',
    maxBytes: CA_FILE_MAX_BYTES,
  },
  {
    command: 'run with LAS_CA_FILE',
    args: () => ['run', ...TARGET],
    env: (path) => ({ LAS_CA_FILE: path }),
    what: 'the certificate authority file',
    maxBytes: CA_FILE_MAX_BYTES,
  },
  {
    command: 'run --signing-key',
    args: (path) => ['run', '--reference-server', '--generate', '0', '--signing-key', path],
    what: 'the signing key',
    maxBytes: KEY_MAX_BYTES,
  },
  {
    command: 'proxy --upstream-ca',
    args: (path) => ['proxy', '--upstream', 'https://127.0.0.1:1/v3', '--port', '0', '--upstream-ca', path],
    what: '--upstream-ca',
    maxBytes: CA_FILE_MAX_BYTES,
  },
  {
    command: 'proxy --tls-cert',
    args: (path) => [
      'proxy',
      '--upstream',
      'http://127.0.0.1:1/v3',
      '--port',
      '0',
      '--tls-cert',
      path,
      '--tls-key',
      path,
    ],
    what: '--tls-cert',
    maxBytes: CA_FILE_MAX_BYTES,
  },
  {
    command: 'proxy --admin-token-file',
    args: (path) => ['proxy', '--upstream', 'http://127.0.0.1:1/v3', '--port', '0', '--admin-token-file', path],
    what: '--admin-token-file',
    maxBytes: ADMIN_TOKEN_FILE_MAX_BYTES,
  },
];

describe('files a person names, refused in one line (exit 2, at once) when they cannot be read whole', () => {
  // A pipe is refused by the one reader every command here calls, as cli/records.test.ts shows for each spoiled file;
  // per command, a device proves the command reads through it and a file one byte too big proves its own limit.
  for (const { command, args, env, what, maxBytes } of NAMED_FILES)
    for (const [how, spoil, refusal] of spoiledFiles(maxBytes).filter(([how]) => how !== 'a pipe')) {
      it(`${command}: ${how}`, async () => {
        const path = join(dir, `spoiled-${Math.random().toString(36).slice(2)}.yaml`);
        spoil(path);
        const result = await runCliWithin(args(path), 15, env?.(path));
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(`${what} ${path} `);
        expect(result.stderr).toMatch(refusal);
      });
    }
});
