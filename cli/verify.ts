// `las-conformance verify FILE [--key PUBLIC_KEY]`: checks a certification record against the
// record's JSON Schema, the installed kit's contract and everything the record says about itself
// (reports/verify.ts). With --key it also checks the record's signature: the DSSE envelope beside
// it (reports/attestation.ts) must be signed by that key, name the record's SHA-256 and agree with
// it. Without a checked signature a record is only self-reported, and the answer says so.
// Exit 0 when it holds, 1 when it does not (each problem on its own line), 2 when the file cannot
// be read or is not a record, or the key cannot be used.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { ENVELOPE_FILE } from '../run-protocol/index.ts';
import { envelopeProblems, keyId, readVerificationKey, UNSIGNED } from '../reports/attestation.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { contractSha256 } from '../reports/run-context.ts';
import { ensureRecordShaped, parseRecordBytes, readRecordBytes, recordProblems, schemaProblems } from '../reports/verify.ts';
import { EXIT_FAILED, EXIT_OK } from './exit-codes.ts';

export interface VerifyFlags {
  /** The public key (PEM) the record must be signed by. */
  key?: string;
  /** The envelope, when it is not beside the record under its usual name. */
  envelope?: string;
}

function recordLine(record: CertificationRecord): string {
  const embedded = record.target.embedded ? ' (the embedded reference server)' : '';
  return `target ${record.target.baseUrl}${embedded}, verdict ${record.verdict}, gate ${record.gate.result}, ${record.kit.name} ${record.kit.version}, contract ${record.contract.sha256.slice(0, 12)}…`;
}

/** The signature's problems, and what the answer says of it. */
function signatureCheck(bytes: Buffer, value: unknown, envelopePath: string, flags: VerifyFlags, shaped: boolean): { problems: string[]; said: string } {
  const present = existsSync(envelopePath);
  if (flags.key === undefined) {
    const unchecked = present ? `; ${envelopePath} holds a signature this did not check (give --key PUBLIC_KEY)` : '';
    return { problems: [], said: `${UNSIGNED}${unchecked}` };
  }
  const key = readVerificationKey(flags.key);
  if (!present) return { problems: [`signature: there is no envelope at ${envelopePath}: the record is ${UNSIGNED}`], said: UNSIGNED };
  // A record without the record's shape is not compared with a statement member by member: its digest already differs.
  const problems = envelopeProblems(readFileSync(envelopePath, 'utf8'), bytes, (shaped ? value : undefined) as CertificationRecord | undefined, key);
  return { problems, said: `signed by key ${keyId(key).slice(0, 16)}… (${envelopePath})` };
}

export function verifyCommand(file: string, flags: VerifyFlags = {}): { code: number; output: string } {
  const bytes = readRecordBytes(file);
  const value = parseRecordBytes(bytes, file);
  ensureRecordShaped(value, file);
  const consistency = recordProblems(value, loadContract(), contractSha256());
  const signature = signatureCheck(bytes, value, flags.envelope ?? join(dirname(file), ENVELOPE_FILE), flags, schemaProblems(value).length === 0);
  const problems = [...signature.problems, ...consistency];
  if (problems.length > 0) return { code: EXIT_FAILED, output: `${file} does not verify:\n${problems.map((p) => `  ${p}`).join('\n')}\n` };
  return { code: EXIT_OK, output: `${file} verifies, ${signature.said}: ${recordLine(value as CertificationRecord)}\n` };
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      `check a conformance.json: the record's schema, this kit's contract hash and catalogue, and that its verdict, tallies, cases, gate and selection follow from its requirements; with --key, that the DSSE envelope beside it (${ENVELOPE_FILE}) is signed by that key over the record's SHA-256 and agrees with it. Without --key a record is ${UNSIGNED}: consistent, but nothing shows who produced it`,
    )
    .argument('<file>', 'a conformance.json')
    .option('--key <file>', 'the public key (Ed25519, PEM) the record must be signed by')
    .option('--envelope <file>', `the signature's DSSE envelope (default: ${ENVELOPE_FILE} beside the record)`)
    .action((file: string, flags: VerifyFlags) => {
      const { code, output } = verifyCommand(file, flags);
      process.stdout.write(output);
      process.exitCode = code;
    });
}
