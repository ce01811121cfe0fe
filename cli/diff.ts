// `las-conformance diff OLD NEW`: two certification records compared: newly failing requirements,
// fixed ones and changed evidence, as Markdown (default) or JSON (--json). Exit 1 when a MUST
// requirement newly fails.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { comparableRecord, diffMarkdown, diffRecords } from '../reports/diff.ts';
import { printableLines } from '../reports/terminal-text.ts';
import { EXIT_FAILED, EXIT_OK } from './exit-codes.ts';
import { readRecordFile } from './input-files.ts';

export interface DiffFlags {
  json?: boolean;
  markdown?: string;
  jsonFile?: string;
}

export function diffCommand(oldFile: string, newFile: string, flags: DiffFlags): { code: number; output: string } {
  // Each record is read whole only as a regular file within the size verify allows (input-files.ts).
  const read = (file: string) => comparableRecord(readRecordFile(file), file);
  const diff = diffRecords(read(oldFile), read(newFile), {
    old: oldFile,
    new: newFile,
  });
  // A record's ids and evidence are its writer's text: shown, never obeyed by a terminal. JSON escapes them itself.
  const markdown = printableLines(diffMarkdown(diff));
  const json = `${JSON.stringify(diff, null, 2)}\n`;
  if (flags.markdown) writeFileSync(flags.markdown, markdown);
  if (flags.jsonFile) writeFileSync(flags.jsonFile, json);
  return { code: diff.regressions.length > 0 ? EXIT_FAILED : EXIT_OK, output: flags.json ? json : markdown };
}

export function registerDiffCommand(program: Command): void {
  program
    .command('diff')
    .description(
      'compare two conformance.json records: newly failing, fixed, changed evidence (exit 1 on a regression)',
    )
    .argument('<old>', 'the earlier conformance.json')
    .argument('<new>', 'the later conformance.json')
    .option('--json', 'print JSON instead of Markdown')
    .option('--markdown <file>', 'also write the Markdown to this file')
    .option('--json-file <file>', 'also write the JSON to this file')
    .action((oldFile: string, newFile: string, flags: DiffFlags) => {
      const { code, output } = diffCommand(oldFile, newFile, flags);
      process.stdout.write(output);
      process.exitCode = code;
    });
}
