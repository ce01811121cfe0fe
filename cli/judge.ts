// `las-conformance judge FILE...`: recorded traffic judged offline (HAR files, the proxy's capture files, capture
// directories: one per proxy replica), through the same judging path as the proxy; the output is the proxy's:
// violations NDJSON (--violations), the `report` summary (Markdown on stdout, or --html), exit 1 when the service broke
// a MUST requirement (--include-client: or a client did). A malformed entry is one line on stderr naming it, and the
// rest is still judged; a file that cannot be read at all is exit 2.
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { PROXY_DEFAULTS } from '../proxy/index.ts';
import { printable } from '../reports/terminal-text.ts';
import { renderViolationsHtml, renderViolationsMarkdown, ViolationsSummarizer } from '../reports/violations-summary.ts';
import { emptyTally, judgeRecordedItem, malformedLine, type JudgingTally } from '../traffic/judge-recorded.ts';
import { maxStringFor, readRecorded, UnreadableFileError } from '../traffic/recorded-files.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { expandCaptureDirectories, expandGlobs } from './input-files.ts';
import { wholeNumber } from './options.ts';

interface JudgeFlags {
  violations?: string;
  html?: string;
  includeClient?: boolean;
  baseUrl?: URL;
  maxBody: number;
  logValues?: boolean;
}

/** Malformed entries named one by one on stderr; past it, only counted. */
const MALFORMED_LISTED = 20;

export function registerJudgeCommand(program: Command): void {
  program
    .command('judge')
    .description(
      "judge recorded traffic offline: HAR files (browsers, proxies, gateways) and the proxy's capture files, read as a stream; output as the proxy's (violations NDJSON, the report summary, exit code)",
    )
    .argument(
      '<files...>',
      'HAR files, capture files of `proxy --capture` (one HAR entry per line), or capture directories (one per replica: the capture files in each); a quoted glob names the files it matches',
    )
    .option(
      '--violations <file>',
      'write the findings as a violations log (NDJSON, one line per finding, as the proxy writes it); - for stdout in place of the summary',
    )
    .option('--html <file>', 'write the summary as HTML to this file instead of Markdown on stdout')
    .option(
      '--include-client',
      "exit 1 on the client's MUST findings (request) as well as the service's (response, exchange)",
    )
    .option(
      '--base-url <url>',
      'where the API was served when recorded, e.g. https://staging.example.com/v3: only entries under it are judged (default: entries whose path is under /v3)',
      parseBaseUrl,
    )
    .option(
      '--max-body <bytes>',
      'largest body judged; larger ones are not validated, as in the proxy',
      wholeNumber(0, 2 ** 31 - 1),
      PROXY_DEFAULTS.maxBody,
    )
    .option('--log-values', 'include body values in finding messages (off: values are described by type only)')
    .action(async (args: string[], flags: JudgeFlags) => {
      process.exitCode = await judgeCommand(expandCaptureDirectories(expandGlobs(args)), flags);
    });
}

function parseBaseUrl(value: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('expected an http or https URL such as https://staging.example.com/v3.');
}

async function judgeCommand(files: string[], flags: JudgeFlags): Promise<number> {
  const contract = loadContract();
  const judging = {
    contract,
    judge: { includeValues: flags.logValues === true, maxBody: flags.maxBody },
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
  };
  const summarizer = new ViolationsSummarizer(contract, files.join(', '));
  const toStdout = flags.violations === '-';
  const log = flags.violations === undefined || toStdout ? null : await openWrite(flags.violations);
  const tally: JudgingTally = emptyTally();
  try {
    for (const file of files) {
      for await (const item of readRecorded(file, maxStringFor(flags.maxBody))) {
        tally.entries += 1;
        if ('error' in item) {
          tally.malformed += 1;
          if (tally.malformed <= MALFORMED_LISTED) {
            process.stderr.write(`las-conformance: ${printable(malformedLine(item))}\n`);
          }
          continue;
        }
        const judged = judgeRecordedItem(judging, item);
        if (!judged.inApi) {
          tally.outsideApi += 1;
          continue;
        }
        tally.judged += 1;
        for (const record of judged.records) {
          const line = JSON.stringify(record);
          summarizer.add(line);
          if (toStdout) process.stdout.write(`${line}\n`);
          else if (log && !log.write(`${line}\n`))
            await new Promise<void>((resolve) => log.once('drain', () => resolve()));
        }
      }
    }
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    throw new Error(`judging stopped: ${(error as Error).message}`);
  } finally {
    if (log) await new Promise<void>((resolve) => log.end(resolve));
  }
  // A file with no exchange in it has no report: only the error is printed.
  if (tally.judged + tally.outsideApi === 0) {
    const malformed = tally.malformed > 0 ? ` (${tally.malformed} malformed)` : '';
    const named = printable(files.join(', '));
    process.stderr.write(`las-conformance: no entry of ${named} could be read as an exchange${malformed}\n`);
    return EXIT_USAGE;
  }
  const summary = summarizer.summary();
  const more = tally.malformed > MALFORMED_LISTED ? ` (the first ${MALFORMED_LISTED} named above)` : '';
  process.stderr.write(
    `las-conformance judge: ${tally.entries} entries: ${tally.judged} judged, ${tally.outsideApi} outside the API (counted, not judged), ${tally.malformed} malformed${more}; ${summary.findings} findings\n`,
  );
  if (flags.html) {
    try {
      writeFileSync(flags.html, renderViolationsHtml(summary));
    } catch (error) {
      throw new Error(
        `cannot write ${flags.html}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  } else if (!toStdout) {
    process.stdout.write(renderViolationsMarkdown(summary));
  }
  const failing = summary.byParty.service.MUST + (flags.includeClient ? summary.byParty.client.MUST : 0);
  return failing > 0 ? EXIT_FAILED : 0;
}

function openWrite(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(path);
    stream.once('open', () => resolve(stream));
    stream.once('error', (error) =>
      reject(new Error(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
  });
}
