// The Prometheus files of the fleet section of docs/operating-the-proxy.md, checked by
// Prometheus's own tool as written: the rules parse (`promtool check rules`), fire as their unit
// tests say (`promtool test rules`), and the scrape configuration loads them (`promtool check
// config`, beside the discovery and token files it names). Every metric they read is one the
// proxy exports, so a renamed metric cannot leave an alert that never fires.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { createProxyMetrics } from '../../proxy/metrics.ts';
import { promtoolChoice, promtoolTestRuns } from '../../test-support/promtool.ts';

const EXAMPLES = fileURLToPath(new URL('./', import.meta.url));
const RULES = 'las-proxy-rules.yml';
const RULE_TESTS = 'las-proxy-rules-tests.yml';
const CONFIG = 'prometheus.yml';

function promtool(args: string[], cwd: string): { status: number | null; output: string } {
  const run = spawnSync(promtoolChoice.executablePath!, args, { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe.runIf(promtoolTestRuns)('promtool on the fleet files', () => {
  test('check rules passes on the rules file', () => {
    expect(promtoolChoice.executablePath, `no promtool at ${promtoolChoice.lookedAt}`).toBeDefined();
    const checked = promtool(['check', 'rules', RULES], EXAMPLES);
    expect(checked).toEqual({ status: 0, output: expect.stringMatching(/SUCCESS: \d+ rules found/) });
  });

  test('the rules fire as their unit tests say', () => {
    const tested = promtool(['test', 'rules', RULE_TESTS], EXAMPLES);
    expect(tested, tested.output).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  test('check config passes on prometheus.yml beside the files it names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'las-prometheus-config-'));
    try {
      for (const file of [CONFIG, RULES]) copyFileSync(join(EXAMPLES, file), join(dir, file));
      writeFileSync(join(dir, 'las-proxy-admin-token'), 'token\n');
      writeFileSync(join(dir, 'las-proxy-replicas.json'), JSON.stringify([{ targets: ['10.0.0.11:8741'] }]));
      const checked = promtool(['check', 'config', CONFIG], dir);
      expect(checked, checked.output).toEqual({
        status: 0,
        output: expect.stringContaining('is valid prometheus config file syntax'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('every metric the rules and their tests read is one the proxy exports', async () => {
  const exported = new Set(
    (await createProxyMetrics({ judgeBacklog: () => 0 }).registry.getMetricsAsJSON()).map((metric) => metric.name),
  );
  const rules = parse(readFileSync(join(EXAMPLES, RULES), 'utf8')) as { groups: { rules: { expr: string }[] }[] };
  const expressions = rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
  const read = new Set(
    [...expressions, readFileSync(join(EXAMPLES, RULE_TESTS), 'utf8')].flatMap(
      (text) => text.match(/\blas_proxy_[a-z_]+/g) ?? [],
    ),
  );
  expect(read.size).toBeGreaterThan(0);
  expect([...read].filter((name) => !exported.has(name))).toEqual([]);
});
