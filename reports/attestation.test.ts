// The record's signature: DSSE's pre-authentication encoding as its specification gives it, an
// envelope that verifies with its public key only, and not after any byte of it changed.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelopeProblems,
  envelopeText,
  keyId,
  PAYLOAD_TYPE,
  PREDICATE_TYPE,
  preAuthEncoding,
  readSigningKey,
  readVerificationKey,
  sha256Hex,
  signRecord,
  SigningKeyError,
  STATEMENT_TYPE,
  type Statement,
} from './attestation.ts';
import { failedRun } from './test-support.ts';

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const record = failedRun();
const recordBytes = Buffer.from(`${JSON.stringify(record, null, 2)}\n`);
const text = envelopeText(signRecord(recordBytes, record, keys.privateKey));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'las-attestation-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DSSE envelope of an in-toto statement', () => {
  it('signs the pre-authentication encoding of the DSSE specification', () => {
    // The example of the DSSE protocol's own text.
    expect(preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
    // Lengths count bytes, not characters.
    expect(preAuthEncoding('t', Buffer.from('é')).toString()).toBe('DSSEv1 1 t 2 é');
  });

  it('carries an in-toto Statement v1 naming conformance.json by its SHA-256, and a predicate of the record', () => {
    const envelope = JSON.parse(text) as { payloadType: string; payload: string; signatures: { keyid: string }[] };
    expect(text.endsWith('\n') && text.split('\n').length).toBe(2);
    expect(envelope.payloadType).toBe(PAYLOAD_TYPE);
    expect(envelope.signatures.map((s) => s.keyid)).toEqual([keyId(keys.publicKey)]);
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString()) as Statement;
    expect(statement).toEqual({
      _type: STATEMENT_TYPE,
      subject: [{ name: 'conformance.json', digest: { sha256: sha256Hex(recordBytes) } }],
      predicateType: PREDICATE_TYPE,
      predicate: {
        kit: record.kit,
        contract: record.contract,
        target: record.target,
        selection: record.selection,
        startedAt: record.startedAt,
        finishedAt: record.finishedAt,
        verdict: 'failed',
        gate: 'fail',
      },
    });
  });

  it('verifies with its public key, and not with another', () => {
    expect(envelopeProblems(text, recordBytes, record, keys.publicKey)).toEqual([]);
    expect(envelopeProblems(text, recordBytes, record, other.publicKey)).toEqual([
      expect.stringMatching(/^signature: no signature by this key \([0-9a-f]{16}…\); it is signed by [0-9a-f]{16}…$/),
    ]);
  });

  it('fails after any byte of the envelope changed', () => {
    const bytes = Buffer.from(text);
    const verified: number[] = [];
    for (let at = 0; at < bytes.length; at++) {
      const changed = Buffer.from(bytes);
      changed[at] ^= at === bytes.length - 1 ? 0x2c : 0x01;
      if (envelopeProblems(changed.toString('latin1'), recordBytes, record, keys.publicKey).length === 0)
        verified.push(at);
    }
    expect(verified).toEqual([]);
    // Bytes added where JSON allows them change the file too.
    expect(
      envelopeProblems(`${JSON.stringify(JSON.parse(text), null, 2)}\n`, recordBytes, record, keys.publicKey),
    ).toEqual([expect.stringMatching(/^signature: it is not in the form the kit writes it/)]);
  });

  it('fails for a record changed after it was signed, naming what the statement says otherwise', () => {
    const relabelled = { ...record, target: { ...record.target, baseUrl: 'https://api.vendor.example/v3' } };
    const problems = envelopeProblems(
      text,
      Buffer.from(`${JSON.stringify(relabelled, null, 2)}\n`),
      relabelled,
      keys.publicKey,
    );
    expect(problems[0]).toMatch(
      /^signature: the record's SHA-256 is [0-9a-f]{64}, the signed statement names [0-9a-f]{64} for conformance\.json: the record was changed after it was signed$/,
    );
    expect(problems[1]).toMatch(
      /^target: the signed statement says \{"embedded":false,.*"baseUrl":"http:\/\/127\.0\.0\.1:4010\/v3"\}, the record .*api\.vendor\.example/,
    );
  });

  it('a signature made by another key over the same statement does not pass as this key', () => {
    const forged = JSON.parse(text) as { signatures: { keyid: string; sig: string }[] };
    const byOther = JSON.parse(envelopeText(signRecord(recordBytes, record, other.privateKey))) as typeof forged;
    forged.signatures[0].sig = byOther.signatures[0].sig;
    expect(envelopeProblems(`${JSON.stringify(forged)}\n`, recordBytes, record, keys.publicKey)).toEqual([
      expect.stringMatching(/^signature: the signature does not match/),
    ]);
  });
});

describe('key files', () => {
  const file = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };

  it('reads an Ed25519 private key to sign with, and its public half (or the private file) to verify with', () => {
    const privatePem = file('key.pem', keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const publicPem = file('key.pub.pem', keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    expect(keyId(readSigningKey(privatePem))).toBe(keyId(keys.publicKey));
    expect(keyId(readVerificationKey(publicPem))).toBe(keyId(keys.publicKey));
    expect(keyId(readVerificationKey(privatePem))).toBe(keyId(keys.publicKey));
  });

  const refused: [string, () => string, (path: string) => unknown, RegExp][] = [
    [
      'a missing file',
      () => join(dir, 'none.pem'),
      readSigningKey,
      /^the signing key .*none\.pem cannot be read \(ENOENT\)$/,
    ],
    [
      'a file with no key',
      () => file('notes.pem', 'not a key'),
      readSigningKey,
      /^the signing key .*notes\.pem holds no private key; give an Ed25519 key in PEM \(openssl genpkey -algorithm ed25519/,
    ],
    [
      'a public key to sign with',
      () => file('only-public.pem', keys.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      readSigningKey,
      /holds no private key/,
    ],
    [
      'an RSA key',
      () =>
        file(
          'rsa.pem',
          generateKeyPairSync('rsa', { modulusLength: 1024 })
            .privateKey.export({ type: 'pkcs8', format: 'pem' })
            .toString(),
        ),
      readSigningKey,
      /^the signing key .*rsa\.pem is an RSA key; records are signed with Ed25519 keys only: give an Ed25519 key in PEM \(openssl genpkey/,
    ],
    [
      'an elliptic-curve key',
      () =>
        file(
          'ec.pem',
          generateKeyPairSync('ec', { namedCurve: 'P-256' })
            .privateKey.export({ type: 'pkcs8', format: 'pem' })
            .toString(),
        ),
      readSigningKey,
      /^the signing key .*ec\.pem is an elliptic-curve \(ECDSA\) key; records are signed with Ed25519 keys only/,
    ],
    [
      'an RSA public key to verify with',
      () =>
        file(
          'rsa.pub.pem',
          generateKeyPairSync('rsa', { modulusLength: 1024 })
            .publicKey.export({ type: 'spki', format: 'pem' })
            .toString(),
        ),
      readVerificationKey,
      /^the public key .*rsa\.pub\.pem is an RSA key; records are signed with Ed25519 keys only/,
    ],
    [
      'an encrypted key',
      () =>
        file(
          'encrypted.pem',
          keys.privateKey
            .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' })
            .toString(),
        ),
      readSigningKey,
      /^the signing key .*encrypted\.pem is encrypted, which the kit does not read/,
    ],
    [
      'a file with no key to verify with',
      () => file('notes2.pem', 'not a key'),
      readVerificationKey,
      /^the public key .*notes2\.pem holds no key; give an Ed25519 key/,
    ],
  ];
  for (const [what, path, read, message] of refused) {
    it(`refuses ${what} with one line saying what to give`, () => {
      const error = (() => {
        try {
          read(path());
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(SigningKeyError);
      expect(error!.message).toMatch(message);
      expect(error!.message).not.toContain('\n');
    });
  }
});
