// `las-conformance report FILE.ndjson...`: one or several violations logs (one per proxy replica, named one by one or
// by a glob) merged and summarized, as Markdown on stdout or as an HTML file. Exit status 1 when the service broke the
// contract at MUST (response and exchange findings); with --include-client, a client's MUST findings (request findings)
// count too. A file that is not a violations log (a directory, or a first line that is not a finding the proxy writes)
// is a usage error: exit 2, one line naming the file.
import { EXIT_FAILED } from './exit-codes.ts';
import { expandGlobs } from './input-files.ts';
import { statSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import {
  isLogLine,
  renderViolationsHtml,
  renderViolationsMarkdown,
  ViolationsSummarizer,
  type ViolationsSummary,
} from '../reports/violations-summary.ts';
import { boundedLines } from '../traffic/recorded-files.ts';
import { sizeText } from '../targets/whole-file.ts';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      'summarize violations logs (NDJSON from the proxy, one per replica) by rule, party, operation and direction',
    )
    .argument(
      '<files...>',
      'violations logs, one JSON finding per line; several (or a quoted glob such as "logs/replica-*.ndjson") are merged',
    )
    .option('--html <file>', 'write an HTML report to this file instead of Markdown on stdout')
    .option(
      '--include-client',
      "exit 1 on the client's MUST findings (request) as well as the service's (response, exchange)",
    )
    .action(async (files: string[], flags: { html?: string; includeClient?: boolean }) => {
      const summary = await summarizeFiles(expandGlobs(files));
      if (flags.html) {
        try {
          writeFileSync(flags.html, renderViolationsHtml(summary));
        } catch (error) {
          throw new Error(
            `cannot write ${flags.html}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
        process.stdout.write(
          `wrote ${flags.html}: ${summary.findings} findings, ${summary.rules.length} rules, ${summary.malformed.count} malformed lines\n`,
        );
      } else {
        process.stdout.write(renderViolationsMarkdown(summary));
      }
      const failing = summary.byParty.service.MUST + (flags.includeClient ? summary.byParty.client.MUST : 0);
      if (failing > 0) process.exitCode = EXIT_FAILED;
    });
}

async function summarizeFiles(files: string[]): Promise<ViolationsSummary> {
  const summarizer = new ViolationsSummarizer(loadContract(), files.join(', '));
  for (const file of files) {
    if (files.length > 1) summarizer.startFile(file);
    await summarizeFile(summarizer, file);
  }
  return summarizer.summary();
}

/**
 * The longest line of a violations log read: the proxy writes far shorter ones (the values in its findings are cut),
 * so a longer line is no line of its log, and a file with no end of line (a device) is refused at once.
 */
const LOG_LINE_MAX_BYTES = 1024 * 1024;

async function summarizeFile(summarizer: ViolationsSummarizer, file: string): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (isDirectory) throw new Error(`${file} is a directory, not a violations log`);
  let lineNumber = 0;
  let checked = false;
  try {
    for await (const line of boundedLines(file, LOG_LINE_MAX_BYTES)) {
      lineNumber += 1;
      // The first line with content says whether this is a violations log at all; later malformed
      // lines (a line cut by a crash, say) are counted and skipped.
      if (!checked && line?.trim() !== '') {
        checked = true;
        if (line === null || !isLogLine(line))
          throw new Error(
            `${file} is not a violations log: line ${lineNumber} ${line === null ? `is longer than ${sizeText(LOG_LINE_MAX_BYTES)}` : 'is not a finding the proxy writes'}`,
          );
      }
      summarizer.add(line);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new Error(`cannot read ${file}: ${code}`);
  }
}
