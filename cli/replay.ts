// `las-conformance replay FILE... --base-url URL`: the recorded requests sent again to a target
// with every recorded credential stripped and the run's own in the scheme each original used (an
// entry authenticated otherwise is not sent); each original MUST finding about the service still
// reproduces, is fixed, or changed. Requests that could write, and requests carrying a method
// override, are sent only with --allow-writes. Exit 1 when one still reproduces, or changed into
// another MUST violation; 3 when none does but some were not sent; 2 for a usage error or when a
// request got no answer. --save-cases FILE keeps the reproduced exchanges as regression cases in a
// target file's list.
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { PROXY_DEFAULTS } from '../proxy/index.ts';
import { existsSync } from 'node:fs';
import { scrubber, targetSecrets } from '../run-protocol/secrets.ts';
import { readRegressionCases, saveRegressionCases } from '../targets/regression-cases.ts';
import { mergeSettings, resolveTarget } from '../targets/target.ts';
import { readTargetFile } from '../targets/target-file.ts';
import { settingsFromEnvironment } from '../targets/target-environment.ts';
import { addSettingOptions, settingsFromFlags } from './setting-options.ts';
import { malformedLine } from '../traffic/judge-recorded.ts';
import { printable } from '../reports/terminal-text.ts';
import { maxStringFor, readRecorded } from '../traffic/recorded-files.ts';
import { regressionCasesOf, Replayer, type ReplayOutcome, type ReplayVerdict } from '../traffic/replay.ts';
import { EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import { wholeNumber } from './options.ts';

/**
 * The target settings replay takes as flags: where to send, and the credentials it sends in place of the recorded ones.
 */
const REPLAY_SETTINGS = ['baseUrl', 'sessionToken', 'pat', 'legacyHeader'];

interface ReplayFlags {
  target?: string;
  allowWrites?: boolean;
  saveCases?: string;
  maxBody: number;
}

/** How each verdict reads on its line, and in the closing count. */
const VERDICT_WORDS: Record<ReplayVerdict, string> = {
  reproduces: 'still reproduces',
  fixed: 'fixed',
  changed: 'changed',
  'not-sent': 'not sent',
  'no-answer': 'no answer',
  'nothing-to-check': 'nothing to check',
};

export function registerReplayCommand(program: Command): void {
  const command = program
    .command('replay')
    .description(
      "send recorded requests (capture files of `proxy --capture`, or HAR files) to a target again, with this run's credentials (the session token where the original used Bearer r: or the legacy header, the personal access token where it used Bearer p:), and say of each original MUST violation: still reproduces, fixed or changed",
    )
    .argument('<files...>', 'capture files or HAR files')
    .option('--target <file>', 'YAML target file (see targets/example.yaml); variables and flags override it');
  addSettingOptions(command, REPLAY_SETTINGS);
  command
    .option(
      '--allow-writes',
      'also send requests that could write to the target: anything but GET and HEAD, and any request carrying a method override or rewrite (X-HTTP-Method-Override, _method, X-Original-URL, ...)',
    )
    .option(
      '--save-cases <file>',
      "append the exchanges that still reproduce as regression cases to this target file's regressionCases list (created when missing)",
    )
    .option(
      '--max-body <bytes>',
      'largest body judged; larger ones are not validated, as in the proxy',
      wholeNumber(0, 2 ** 31 - 1),
      PROXY_DEFAULTS.maxBody,
    )
    .action(async (files: string[], flags: ReplayFlags) => {
      process.exitCode = await replayCommand(files, flags, process.env);
    });
}

async function replayCommand(
  files: string[],
  flags: ReplayFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const contract = loadContract();
  const target = resolveTarget(
    mergeSettings(
      flags.target ? readTargetFile(flags.target) : {},
      settingsFromEnvironment(env),
      settingsFromFlags(flags as unknown as Record<string, unknown>, REPLAY_SETTINGS),
    ),
    contract.legacyHeader,
  );
  // A target file that cannot take the cases is a usage error before anything is sent.
  if (flags.saveCases && existsSync(flags.saveCases))
    readRegressionCases(
      flags.saveCases,
      contract.requirements.map((r) => r.id),
    );
  // The run's own tokens never reach the console, whatever the target answered.
  const scrub = scrubber(targetSecrets(target));
  const replayer = new Replayer({
    contract,
    target,
    judge: { includeValues: false, maxBody: flags.maxBody },
    allowWrites: flags.allowWrites === true,
  });
  const outcomes: ReplayOutcome[] = [];
  let malformed = 0;
  try {
    for (const file of files) {
      for await (const item of readRecorded(file, maxStringFor(flags.maxBody))) {
        if ('error' in item) {
          malformed += 1;
          process.stderr.write(`las-conformance: ${printable(malformedLine(item))}\n`);
          continue;
        }
        const outcome = await replayer.replayEntry(item);
        if (outcome === null) continue;
        outcomes.push(outcome);
        process.stdout.write(`${printable(scrub(outcomeLine(outcome)))}\n`);
      }
    }
  } finally {
    await replayer.close();
  }
  const count = (verdict: ReplayVerdict) => outcomes.filter((o) => o.verdict === verdict).length;
  const tally = (Object.keys(VERDICT_WORDS) as ReplayVerdict[])
    .map((verdict) => `${count(verdict)} ${VERDICT_WORDS[verdict]}`)
    .join(', ');
  process.stdout.write(
    `replayed against ${target.baseUrl}: ${tally}${malformed > 0 ? `; ${malformed} malformed entries` : ''}\n`,
  );
  if (flags.saveCases) {
    const added = saveRegressionCases(
      flags.saveCases,
      regressionCasesOf(outcomes, target.baseUrl),
      contract.requirements.map((r) => r.id),
    );
    process.stdout.write(
      `${flags.saveCases}: ${added.length} regression case${added.length === 1 ? '' : 's'} added${added.length > 0 ? ` (${[...new Set(added.map((c) => c.requirement))].join(', ')})` : ''}\n`,
    );
  }
  // A changed exchange still breaks a MUST, another one: it fails as one that reproduces.
  if (count('reproduces') + count('changed') > 0) return EXIT_FAILED;
  if (count('no-answer') > 0) return EXIT_USAGE;
  if (count('not-sent') > 0) return EXIT_INCOMPLETE;
  return EXIT_OK;
}

/** One line per replayed entry: the verdict, the rules, the request and where it was recorded. */
export function outcomeLine(outcome: ReplayOutcome): string {
  const rules = outcome.original.filter((f) => f.level === 'MUST' && f.direction !== 'request').map((f) => f.rule);
  const subject = `${outcome.method} ${outcome.path}${outcome.status === undefined ? '' : ` answered ${outcome.status}`} (${outcome.entry})`;
  switch (outcome.verdict) {
    case 'reproduces':
      return `still reproduces: ${outcome.reproduced.join(', ')} · ${subject}`;
    case 'fixed':
      return `fixed: ${[...new Set(rules)].join(', ')} · ${subject}`;
    case 'changed':
      return `changed: ${[...new Set(rules)].join(', ')} no longer, now ${outcome.appeared.map((f) => `${f.requirement} (${f.message})`).join('; ')} · ${subject}`;
    default:
      return `${VERDICT_WORDS[outcome.verdict]}: ${outcome.reason} · ${subject}`;
  }
}
