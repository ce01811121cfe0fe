// What the suite's processes read from the environment: a base URL given empty is refused, never
// read as "no target" (which, for `npx playwright test`, starts the embedded reference server).
import { describe, expect, it } from 'vitest';
import { runLayout } from './settings.ts';

describe('runLayout', () => {
  it('starts the embedded reference server only when no base URL is set at all', () => {
    expect(runLayout({}, '/kit').embedded).toBe(true);
    expect(runLayout({ LAS_BASE_URL: 'https://staging.example.com/v3' }, '/kit').embedded).toBe(false);
  });

  it('refuses a base URL set but empty, naming it', () => {
    expect(() => runLayout({ LAS_BASE_URL: '' }, '/kit')).toThrow(/^LAS_BASE_URL is set but empty: /);
  });
});
