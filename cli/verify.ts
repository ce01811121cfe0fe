// `las-conformance verify FILE [--key PUBLIC_KEY]`: checks a certification record against the
// record's JSON Schema, the installed kit's contract and everything the record says about itself
// (reports/verify.ts). With --key it also checks the record's signature: the DSSE envelope beside
// it (reports/attestation.ts) must be signed by that key, name the record's SHA-256 and agree with
// it. Without a checked signature a record is only self-reported, and the answer says so.
// With --seed N it also checks that the record's generated inputs were drawn from seed N with at
// least the default count and budgets: a buyer who chose the seed knows the vendor did not draw
// seeds until one passed.
// Exit 0 when it holds, 1 when it does not (each problem on its own line), 2 when the file cannot
// be read or is not a record, or the key cannot be used. Each file is read whole only when it is a
// regular file within its stated size (RECORD_MAX_BYTES, ENVELOPE_MAX_BYTES, the key's KEY_MAX_BYTES); what
// the answer quotes from a record is shown with its control characters as visible pictures. A record
// written by another version of the kit is checked the same way, and the answer says which.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { DEFAULT_GENERATED_INPUTS, ENVELOPE_FILE } from '../run-protocol/index.ts';
import { envelopeProblems, KEY_MAX_BYTES, keyId, parseVerificationKey, UNSIGNED } from '../reports/attestation.ts';
import type { CertificationRecord } from '../reports/record.ts';
import { contractSha256, kitIdentity } from '../reports/run-context.ts';
import { printableLines } from '../reports/terminal-text.ts';
import {
  ensureRecordShaped,
  generationProblems,
  parseRecordBytes,
  recordProblems,
  schemaProblems,
  type GenerationDemand,
} from '../reports/verify.ts';
import { DEFAULT_GENERATION_BUDGET_SECONDS, DEFAULT_OPERATION_BUDGET_SECONDS } from './run.ts';
import { wholeNumber } from './options.ts';
import { EXIT_FAILED, EXIT_OK } from './exit-codes.ts';
import { readRecordBytes } from './input-files.ts';
import { readWholeFile } from '../targets/whole-file.ts';

export interface VerifyFlags {
  /** The public key (PEM) the record must be signed by. */
  key?: string;
  /** The seed the record's generated inputs must have been drawn from, with at least the default count and budgets. */
  seed?: number;
  /** The envelope, when it is not beside the record under its usual name. */
  envelope?: string;
}

/** What `--seed N` asks of a record: seed N, and at least the count and budgets a plain run uses. */
function defaultGenerationWith(seed: number): GenerationDemand {
  return {
    seed,
    inputs: DEFAULT_GENERATED_INPUTS,
    operationBudgetMs: 1000 * DEFAULT_OPERATION_BUDGET_SECONDS,
    totalBudgetMs: 1000 * DEFAULT_GENERATION_BUDGET_SECONDS,
  };
}

/** The most a signature's envelope may hold: it holds one statement naming the record's digest and verdict. */
export const ENVELOPE_MAX_BYTES = 1024 * 1024;

function recordLine(record: CertificationRecord): string {
  const embedded = record.target.embedded ? ' (the embedded reference server)' : '';
  return `target ${record.target.baseUrl}${embedded}, verdict ${record.verdict}, gate ${record.gate.result}, ${record.kit.name} ${record.kit.version}, contract ${record.contract.sha256.slice(0, 12)}…`;
}

/** The signature's problems, and what the answer says of it. */
function signatureCheck(
  bytes: Buffer,
  value: unknown,
  envelopePath: string,
  flags: VerifyFlags,
  shaped: boolean,
): { problems: string[]; said: string } {
  const present = existsSync(envelopePath);
  if (flags.key === undefined) {
    const unchecked = present ? `; ${envelopePath} holds a signature this did not check (give --key PUBLIC_KEY)` : '';
    return { problems: [], said: `${UNSIGNED}${unchecked}` };
  }
  const keyBytes = readWholeFile({ what: 'the public key', path: flags.key, maxBytes: KEY_MAX_BYTES });
  const key = parseVerificationKey(keyBytes.toString('utf8'), flags.key);
  if (!present)
    return {
      problems: [`signature: there is no envelope at ${envelopePath}: the record is ${UNSIGNED}`],
      said: UNSIGNED,
    };
  const envelopeFile = { what: 'the envelope', path: envelopePath, maxBytes: ENVELOPE_MAX_BYTES };
  const envelope = readWholeFile(envelopeFile).toString('utf8');
  // A record without the record's shape is not compared with a statement member by member: its digest already differs.
  const record = (shaped ? value : undefined) as CertificationRecord | undefined;
  const problems = envelopeProblems(envelope, bytes, record, key);
  return { problems, said: `signed by key ${keyId(key).slice(0, 16)}… (${envelopePath})` };
}

/** A line saying the record names another kit than this one, or none when it names this one. */
function otherKitLines(record: CertificationRecord): string[] {
  const kit = kitIdentity();
  if (record.kit.name === kit.name && record.kit.version === kit.version) return [];
  const named = `${record.kit.name} ${record.kit.version}`;
  const ours = `${kit.name} ${kit.version}`;
  return [`  kit: the record was written by ${named}; this kit is ${ours}, whose contract checked it`];
}

export function verifyCommand(file: string, flags: VerifyFlags = {}): { code: number; output: string } {
  const { code, output } = verifyRecord(file, flags);
  // A record's ids, evidence and target are its writer's text: shown, never obeyed by a terminal.
  return { code, output: printableLines(output) };
}

const lines = (texts: string[]): string => texts.map((text) => `${text}\n`).join('');

function verifyRecord(file: string, flags: VerifyFlags): { code: number; output: string } {
  const bytes = readRecordBytes(file);
  const value = parseRecordBytes(bytes, file);
  ensureRecordShaped(value, file);
  const consistency = recordProblems(value, loadContract(), contractSha256());
  const shaped = schemaProblems(value).length === 0;
  const signature = signatureCheck(bytes, value, flags.envelope ?? join(dirname(file), ENVELOPE_FILE), flags, shaped);
  const record = value as CertificationRecord;
  // A record not of the record's shape already fails on its schema; its generated section is not read.
  const asked = flags.seed === undefined || !shaped ? undefined : defaultGenerationWith(flags.seed);
  const generation = asked === undefined ? [] : generationProblems(record, asked);
  const problems = [...signature.problems, ...consistency, ...generation];
  const kit = shaped ? otherKitLines(record) : [];
  if (problems.length > 0) {
    return { code: EXIT_FAILED, output: lines([`${file} does not verify:`, ...problems.map((p) => `  ${p}`), ...kit]) };
  }
  const drawn = `generated inputs from seed ${flags.seed} with at least the default count and budgets`;
  const seed = flags.seed === undefined ? '' : `, ${drawn}`;
  const verified = `${file} verifies, ${signature.said}${seed}: ${recordLine(record)}`;
  return { code: EXIT_OK, output: lines([verified, ...kit]) };
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
    .option(
      '--seed <n>',
      "the seed the record's generated inputs must have been drawn from (a buyer chooses it), " +
        'with the default count and budgets',
      wholeNumber(0),
    )
    .action((file: string, flags: VerifyFlags) => {
      const { code, output } = verifyCommand(file, flags);
      process.stdout.write(output);
      process.exitCode = code;
    });
}
