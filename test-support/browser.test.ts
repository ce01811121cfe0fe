import { describe, expect, it } from 'vitest';
import { browserMissingLine, chooseBrowser, DEBIAN_CHROMIUM } from './browser.ts';

const onDisk =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

describe('chooseBrowser', () => {
  it("takes Debian's Chromium when nothing is named", () => {
    expect(chooseBrowser({}, onDisk(DEBIAN_CHROMIUM))).toEqual({
      executablePath: DEBIAN_CHROMIUM,
      required: false,
      lookedAt: DEBIAN_CHROMIUM,
    });
  });

  it('takes the executable LAS_CHROMIUM names, and only that one', () => {
    expect(
      chooseBrowser({ LAS_CHROMIUM: '/opt/chromium/chrome' }, onDisk('/opt/chromium/chrome', DEBIAN_CHROMIUM))
        .executablePath,
    ).toBe('/opt/chromium/chrome');
    expect(chooseBrowser({ LAS_CHROMIUM: '/opt/missing' }, onDisk(DEBIAN_CHROMIUM)).executablePath).toBeUndefined();
  });

  it('finds none on a machine without Chromium, and says how to enable the tests in one line', () => {
    const choice = chooseBrowser({}, onDisk());
    expect(choice).toEqual({ required: false, lookedAt: DEBIAN_CHROMIUM });
    const line = browserMissingLine(choice);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('apt-get install chromium');
    expect(line).toContain('LAS_CHROMIUM');
  });

  it('marks the browser as required under LAS_REQUIRE_BROWSER=1', () => {
    expect(chooseBrowser({ LAS_REQUIRE_BROWSER: '1' }, onDisk()).required).toBe(true);
    expect(chooseBrowser({ LAS_REQUIRE_BROWSER: '0' }, onDisk()).required).toBe(false);
  });
});
