// `las-conformance report FILE.ndjson`: a violations log summarized, as Markdown on stdout or
// as an HTML file. Exit status 1 when the log holds a MUST finding, as for any failed check.
import { EXIT_FAILED } from './exit-codes.ts';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { renderViolationsHtml, renderViolationsMarkdown, ViolationsSummarizer, type ViolationsSummary } from '../reports/violations-summary.ts';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('summarize a violations log (NDJSON from the proxy) by rule, operation and direction')
    .argument('<file>', 'violations log, one JSON finding per line')
    .option('--html <file>', 'write an HTML report to this file instead of Markdown on stdout')
    .action(async (file: string, flags: { html?: string }) => {
      const summary = await summarizeFile(file);
      if (flags.html) {
        try {
          writeFileSync(flags.html, renderViolationsHtml(summary));
        } catch (error) {
          throw new Error(`cannot write ${flags.html}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        process.stdout.write(`wrote ${flags.html}: ${summary.findings} findings, ${summary.rules.length} rules, ${summary.malformed.count} malformed lines\n`);
      } else {
        process.stdout.write(renderViolationsMarkdown(summary));
      }
      if (summary.byLevel.MUST > 0) process.exitCode = EXIT_FAILED;
    });
}

async function summarizeFile(file: string): Promise<ViolationsSummary> {
  if (isDirectory(file)) throw new Error(`${file} is a directory, not a violations log (the proxy's --violations file, one JSON finding per line)`);
  const summarizer = new ViolationsSummarizer(loadContract(), file);
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    input.once('ready', () => resolve());
    input.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot read ${file}: ${error.code ?? error.message}`)));
  });
  await opened;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) summarizer.add(line);
  const summary = summarizer.summary();
  // A log with some damaged lines is still a log; a file none of whose lines is a finding is not one.
  if (summary.findings === 0 && summary.malformed.count > 0) throw new Error(`${file} is not a violations log: none of its ${summary.malformed.count} non-empty lines is a finding the proxy writes`);
  return summary;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}
