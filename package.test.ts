// What `npm ci` installs runs on the Node the kit says it needs: npm warns of an engine (EBADENGINE)
// for any package whose `engines.node` the running Node does not meet. The kit installed as a
// package (examples/ci/ci-examples.test.ts packs and installs it) loads its TypeScript in the
// suite's processes through tsx.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { typeScriptLoaderOptions } from './suites/runner.ts';

interface LockedPackage {
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const packageJson = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const lockfile = JSON.parse(readFileSync(new URL('package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/** The `engines.node` range of each installed package that states one (an old array form states none npm checks). */
function nodeRanges(filter: (locked: LockedPackage) => boolean): { name: string; range: string }[] {
  return Object.entries(lockfile.packages).flatMap(([path, locked]) => {
    const range = Array.isArray(locked.engines) ? undefined : locked.engines?.node;
    return path !== '' && range !== undefined && filter(locked)
      ? [{ name: path.replace(/^.*node_modules\//, ''), range }]
      : [];
  });
}

describe('the engines the installed packages ask for', () => {
  it('every package of the lockfile takes a Node 20 release, so npm ci on Node 20 warns of no engine', () => {
    const refusing = nodeRanges(() => true).filter(
      ({ range }) => !semver.intersects(range, '^20.0.0', { loose: true }),
    );
    expect(refusing).toEqual([]);
  });

  it('every package the kit runs with takes the oldest Node the kit says it runs on', () => {
    const oldest = semver.minVersion(packageJson.engines.node)!;
    const refusing = nodeRanges((locked) => locked.dev !== true).filter(
      ({ range }) => !semver.satisfies(oldest, range, { loose: true }),
    );
    expect(refusing).toEqual([]);
  });
});

describe("the TypeScript loader of the suite's processes", () => {
  const tsx = import.meta.resolve('tsx');

  it("is Playwright's own in a checkout", () => {
    expect(typeScriptLoaderOptions(join('/', 'work', 'las-conformance'), '--max-old-space-size=512')).toEqual({});
  });

  it("is tsx's under node_modules, which Playwright's leaves as it is, keeping the options already given", () => {
    const installed = join('/', 'srv', 'gate', 'node_modules', 'las-conformance');
    expect(typeScriptLoaderOptions(installed, undefined)).toEqual({ NODE_OPTIONS: `--import ${tsx}` });
    expect(typeScriptLoaderOptions(installed, '--max-old-space-size=512')).toEqual({
      NODE_OPTIONS: `--max-old-space-size=512 --import ${tsx}`,
    });
  });
});
