// The signature of a certification record: a DSSE envelope (DSSE protocol v1) whose payload is an
// in-toto Statement v1. Its subject is conformance.json by its SHA-256; its predicate repeats what
// a reader of the record checks first (the kit, the contract's digest, the target, the selection,
// the run's time, the verdict and the gate), so a statement read alone still says what was
// certified. Keys are Ed25519, held by whoever runs the kit; signing and checking use node:crypto:
// both formats are a few lines of JSON and one encoding, and the libraries made for them build
// Sigstore bundles, which a key the user holds does not need.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { RECORD_FILE } from '../run-protocol/index.ts';
import type { CertificationRecord } from './record.ts';
import { readWholeFile } from '../targets/whole-file.ts';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/** The kind of statement the kit signs: its predicate is a RecordPredicate. */
export const PREDICATE_TYPE = 'urn:las-conformance:certification-record:v1';

/** What the signed statement says of the record besides its digest. */
export interface RecordPredicate {
  kit: CertificationRecord['kit'];
  contract: CertificationRecord['contract'];
  target: CertificationRecord['target'];
  selection: CertificationRecord['selection'];
  startedAt: string;
  finishedAt: string;
  verdict: CertificationRecord['verdict'];
  gate: CertificationRecord['gate']['result'];
}

export interface Statement {
  _type: string;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: RecordPredicate;
}

export interface DsseEnvelope {
  payloadType: string;
  /** The statement's JSON, base64. */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** A key file that cannot be used: a usage error, with what to give instead. */
export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

const KEY_HINT =
  'an Ed25519 key in PEM (openssl genpkey -algorithm ed25519 -out signing-key.pem; its public half: openssl pkey -in signing-key.pem -pubout)';

/** DSSE's pre-authentication encoding: what is signed, so that neither type nor payload can be read as the other. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

export function predicateOf(record: CertificationRecord): RecordPredicate {
  return {
    kit: record.kit,
    contract: record.contract,
    target: record.target,
    selection: record.selection,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    verdict: record.verdict,
    gate: record.gate.result,
  };
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function statementOf(recordBytes: Buffer, record: CertificationRecord): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: RECORD_FILE, digest: { sha256: sha256Hex(recordBytes) } }],
    predicateType: PREDICATE_TYPE,
    predicate: predicateOf(record),
  };
}

/** A public key's id: the SHA-256 of its DER (SubjectPublicKeyInfo), hex. */
export function keyId(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' }));
}

/** The most a key file may hold: a PEM key is a few hundred bytes. */
export const KEY_MAX_BYTES = 64 * 1024;

/** A key file's text, read whole within KEY_MAX_BYTES; a SigningKeyError of one line otherwise. */
function readPem(path: string, what: string): string {
  try {
    return readWholeFile({ what: `the ${what}`, path, maxBytes: KEY_MAX_BYTES }).toString('utf8');
  } catch (error) {
    throw new SigningKeyError((error as Error).message);
  }
}

/** Node's names of key types as people write them, each with its article. */
const KEY_TYPE_NAMES: Record<string, string> = {
  rsa: 'an RSA key',
  'rsa-pss': 'an RSA-PSS key',
  dsa: 'a DSA key',
  ec: 'an elliptic-curve (ECDSA) key',
  ed448: 'an Ed448 key',
  x25519: 'an X25519 key (for key agreement, not signing)',
  x448: 'an X448 key (for key agreement, not signing)',
  dh: 'a Diffie-Hellman key (for key agreement, not signing)',
};

function keyTypeText(type: string | undefined): string {
  if (type === undefined) return 'a symmetric key';
  return KEY_TYPE_NAMES[type] ?? `a key of type ${type}`;
}

function ensureEd25519(key: KeyObject, path: string, what: string): KeyObject {
  if (key.asymmetricKeyType === 'ed25519') return key;
  const type = keyTypeText(key.asymmetricKeyType);
  throw new SigningKeyError(
    `the ${what} ${path} is ${type}; records are signed with Ed25519 keys only: give ${KEY_HINT}`,
  );
}

/** The private key a run signs with; SigningKeyError when the file holds none. */
export function readSigningKey(path: string): KeyObject {
  const pem = readPem(path, 'signing key');
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    const encrypted = pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----');
    throw new SigningKeyError(
      `the signing key ${path} ${encrypted ? 'is encrypted, which the kit does not read' : 'holds no private key'}; give ${KEY_HINT}`,
    );
  }
  return ensureEd25519(key, path, 'signing key');
}

/**
 * The public key `verify --key` checks with (a private key file gives its public half); SigningKeyError when the file
 * holds none.
 */
export function readVerificationKey(path: string): KeyObject {
  return parseVerificationKey(readPem(path, 'public key'), path);
}

/** The public key a PEM text holds (read from `path`); SigningKeyError when it holds no Ed25519 public key. */
export function parseVerificationKey(pem: string, path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new SigningKeyError(`the public key ${path} holds no key; give ${KEY_HINT}`);
  }
  return ensureEd25519(key, path, 'public key');
}

/** The envelope file's text: the envelope on one line, as an in-toto attestation bundle (JSON Lines) holds it. */
export function envelopeText(envelope: DsseEnvelope): string {
  return `${JSON.stringify({ payloadType: envelope.payloadType, payload: envelope.payload, signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })) })}\n`;
}

/** The envelope that signs a record's bytes (as written to conformance.json) with an Ed25519 private key. */
export function signRecord(recordBytes: Buffer, record: CertificationRecord, privateKey: KeyObject): DsseEnvelope {
  const payload = Buffer.from(JSON.stringify(statementOf(recordBytes, record)), 'utf8');
  const sig = sign(null, preAuthEncoding(PAYLOAD_TYPE, payload), privateKey);
  return {
    payloadType: PAYLOAD_TYPE,
    payload: payload.toString('base64'),
    signatures: [{ keyid: keyId(privateKey), sig: sig.toString('base64') }],
  };
}

/**
 * Base64 as the envelope must hold it: decoding and encoding again gives the same text (Node's decoder skips what is
 * not base64).
 */
function strictBase64(text: unknown): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/**
 * The envelope of an envelope file's text, or why there is none. Any byte outside the one form the kit writes is
 * refused.
 */
function parseEnvelope(text: string): DsseEnvelope | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not one JSON envelope: ${(error as Error).message}`;
  }
  const envelope = value as Partial<DsseEnvelope> | null;
  const signatures = envelope?.signatures;
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    typeof envelope.payloadType !== 'string' ||
    typeof envelope.payload !== 'string' ||
    !Array.isArray(signatures) ||
    !signatures.every((s) => typeof s?.keyid === 'string' && typeof s.sig === 'string')
  ) {
    return 'it is not a DSSE envelope (payloadType, payload and signatures with keyid and sig)';
  }
  if (envelopeText(envelope as DsseEnvelope) !== text)
    return 'it is not in the form the kit writes it (one line, members in order, nothing else): it was changed';
  return envelope as DsseEnvelope;
}

/** What a signed statement says that disagrees with the record, each as `member: ...`. */
function predicateProblems(statement: Statement, record: CertificationRecord | undefined): string[] {
  if (!record) return [];
  const expected = predicateOf(record);
  const signed = (statement.predicate ?? {}) as unknown as Record<string, unknown>;
  return (Object.keys(expected) as (keyof RecordPredicate)[])
    .filter((member) => !isDeepStrictEqual(signed[member], expected[member]))
    .map(
      (member) =>
        `${member}: the signed statement says ${JSON.stringify(signed[member])}, the record ${JSON.stringify(expected[member])}`,
    );
}

/**
 * Where an envelope file fails to sign a record's bytes with the given public key; empty when the
 * signature holds, the statement is the kit's, its subject is these bytes and its predicate
 * agrees with the record (when there is one with the record's shape to compare).
 */
export function envelopeProblems(
  text: string,
  recordBytes: Buffer,
  record: CertificationRecord | undefined,
  publicKey: KeyObject,
): string[] {
  const envelope = parseEnvelope(text);
  if (typeof envelope === 'string') return [`signature: ${envelope}`];
  if (envelope.payloadType !== PAYLOAD_TYPE)
    return [`signature: its payload type is ${JSON.stringify(envelope.payloadType)}, not ${PAYLOAD_TYPE}`];
  const payload = strictBase64(envelope.payload);
  if (!payload) return ['signature: its payload is not base64'];
  const id = keyId(publicKey);
  const byKey = envelope.signatures.filter((s) => s.keyid === id);
  if (byKey.length === 0)
    return [
      `signature: no signature by this key (${id.slice(0, 16)}…); it is signed by ${envelope.signatures.map((s) => `${s.keyid.slice(0, 16)}…`).join(', ') || 'no key'}`,
    ];
  const signed = byKey.some((s) => {
    const sig = strictBase64(s.sig);
    return sig !== undefined && verify(null, preAuthEncoding(envelope.payloadType, payload), publicKey, sig);
  });
  if (!signed)
    return [
      'signature: the signature does not match the envelope it is in: the envelope was changed, or signed by another key',
    ];
  let statement: Statement;
  try {
    statement = JSON.parse(payload.toString('utf8')) as Statement;
  } catch {
    return ['signature: its payload is not JSON'];
  }
  if (statement?._type !== STATEMENT_TYPE || statement.predicateType !== PREDICATE_TYPE)
    return [
      `signature: it signs a ${statement?.predicateType ?? 'statement'} of type ${statement?._type}, not a ${PREDICATE_TYPE} in-toto Statement v1`,
    ];
  const subject = Array.isArray(statement.subject) ? statement.subject.find((s) => s?.name === RECORD_FILE) : undefined;
  const digest = sha256Hex(recordBytes);
  if (subject?.digest?.sha256 !== digest)
    return [
      `signature: the record's SHA-256 is ${digest}, the signed statement names ${subject?.digest?.sha256 ?? 'no digest'} for ${RECORD_FILE}: the record was changed after it was signed`,
      ...predicateProblems(statement, record),
    ];
  return predicateProblems(statement, record);
}

/** Whether the record a rendering shows was signed when it was written, and by which key. */
export type RecordSignature = { signed: false } | { signed: true; envelope: string; keyId: string };

export const UNSIGNED_RECORD: RecordSignature = { signed: false };

/** How every rendering and `verify` name a record no checked signature vouches for. */
export const UNSIGNED = 'unsigned (self-reported)';

/** One phrase for the renderings: unsigned, or signed by which key, and how to check it. */
export function signatureText(signature: RecordSignature): string {
  if (!signature.signed) return `${UNSIGNED}: no signature vouches for this record, only whoever ran the kit`;
  return `signed by key ${signature.keyId.slice(0, 16)}… in ${signature.envelope}; las-conformance verify ${RECORD_FILE} --key PUBLIC_KEY checks it`;
}
