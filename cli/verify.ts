// `las-conformance verify FILE`: checks a certification record against the record's JSON Schema
// and the installed kit's contract hash, and that its verdict follows from its requirements. It
// proves consistency, not origin: records are not signed, and --help says so.
// Exit 0 when it holds, 1 when it does not (each problem on its own line), 2 when it cannot be read.
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { contractSha256 } from '../reports/run-context.ts';
import { readRecordFile, recordProblems } from '../reports/verify.ts';
import { EXIT_FAILED, EXIT_OK } from './exit-codes.ts';

export function verifyCommand(file: string): { code: number; output: string } {
  const value = readRecordFile(file);
  const problems = recordProblems(value, loadContract(), contractSha256());
  if (problems.length > 0) return { code: EXIT_FAILED, output: `${file} does not verify:\n${problems.map((p) => `  ${p}`).join('\n')}\n` };
  const record = value as CertificationRecord;
  const embedded = record.target.embedded ? ' (the embedded reference server)' : '';
  return { code: EXIT_OK, output: `${file} verifies: verdict ${record.verdict}, gate ${record.gate.result}, target ${record.target.baseUrl}${embedded}, ${record.kit.name} ${record.kit.version}, contract ${record.contract.sha256.slice(0, 12)}…\n` };
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description("check that a conformance.json is consistent: the record's schema, this kit's contract hash and catalogue, and a verdict, tally and gate that follow from its requirements. It checks consistency, not origin: records are not signed, so a hand-edited record whose tally was fixed up to match still verifies")
    .argument('<file>', 'a conformance.json')
    .action((file: string) => {
      const { code, output } = verifyCommand(file);
      process.stdout.write(output);
      process.exitCode = code;
    });
}
