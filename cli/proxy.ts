// `las-conformance proxy`: flags to createValidatingProxy, signals to close().
import { wholeNumber } from './options.ts';
import { createWriteStream, type WriteStream } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { loadContract } from '../contract/index.ts';
import { CAPTURE_DEFAULTS } from '../proxy/capture.ts';
import { CA_FILE_MAX_BYTES } from '../targets/target.ts';
import { readWholeFile } from '../targets/whole-file.ts';
import { trustedRanges } from '../proxy/client-identity.ts';
import {
  createProxyLogger,
  createValidatingProxy,
  PROXY_DEFAULTS,
  upstreamDisplay,
  type ProxyMode,
} from '../proxy/index.ts';

interface ProxyFlags {
  upstream: URL;
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  adminTokenFile?: string;
  repeatInterval: number;
  mode: ProxyMode;
  violations: string;
  maxBody: number;
  upstreamTimeout: number;
  upstreamCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  sample: number;
  logValues?: boolean;
  violationsHeader?: boolean;
  forwardedHeaders?: boolean;
  trustedProxies?: string[];
  judgeThread: boolean;
  capture?: string;
  captureFileBytes: number;
  captureMaxBytes: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
}

function parseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as https://staging.example.com/v3.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected an http or https URL.');
  return url;
}

function fraction(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1.');
  return number;
}

/** A comma-separated list of addresses and CIDR ranges, each checked. */
function addressList(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    trustedRanges(entries);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--trusted-proxies: /, ''));
  }
  return entries;
}

/**
 * An option also read from `LAS_PROXY_<FLAG NAME>`: a flag given wins over the environment, which wins over the
 * default.
 */
function proxyOption(flags: string, description: string): Option {
  const name = /--([a-z-]+)/.exec(flags)![1];
  return new Option(flags, description).env(`LAS_PROXY_${name.replace(/-/g, '_').toUpperCase()}`);
}

export function registerProxyCommand(program: Command): void {
  program
    .command('proxy')
    .description(
      'run the validating reverse proxy: forward traffic to --upstream and log every exchange that breaks the contract; every flag can also be set as LAS_PROXY_<FLAG> (e.g. LAS_PROXY_MAX_BODY)',
    )
    .addOption(
      proxyOption('--upstream <url>', 'base URL of the service, e.g. https://staging.example.com/v3')
        .argParser(parseUrl)
        .makeOptionMandatory(),
    )
    .addOption(proxyOption('--host <host>', 'address the proxy listens on').default('127.0.0.1'))
    .addOption(
      proxyOption('--port <port>', 'proxy port (0 = any free port)').argParser(wholeNumber(0, 65535)).default(8080),
    )
    .addOption(
      proxyOption('--admin-host <host>', 'address the admin server listens on, whatever --host is').default(
        '127.0.0.1',
      ),
    )
    .addOption(
      proxyOption(
        '--admin-port <port>',
        'admin port: /healthz, /readyz, /metrics, the dashboard on / (0 = any free port)',
      )
        .argParser(wholeNumber(0, 65535))
        .default(PROXY_DEFAULTS.adminPort),
    )
    .addOption(
      proxyOption(
        '--admin-token-file <file>',
        'file holding a bearer token the admin endpoints ask for (all but /healthz and /readyz); LAS_ADMIN_TOKEN gives the token itself',
      ),
    )
    .addOption(
      proxyOption(
        '--mode <mode>',
        'report: relay everything and log; enforce: refuse what breaks the contract or cannot be judged',
      )
        .choices(['report', 'enforce'])
        .default(PROXY_DEFAULTS.mode),
    )
    .addOption(
      proxyOption(
        '--violations <file>',
        'NDJSON violations log (appended; SIGHUP reopens it), - for stdout; INFO observations are logged once per rule, operation and direction, metrics count all',
      ).default('-'),
    )
    .addOption(
      proxyOption(
        '--repeat-interval <ms>',
        'each kind of finding is written once per interval, then counted in one line at its end; 0 writes every finding',
      )
        .argParser(wholeNumber(0, 2 ** 31 - 1))
        .default(10_000),
    )
    .addOption(
      proxyOption(
        '--max-body <bytes>',
        'largest body buffered for validation; larger ones pass unvalidated (enforce mode: refused with 413)',
      )
        .argParser(wholeNumber(0, 2 ** 31 - 1))
        .default(PROXY_DEFAULTS.maxBody),
    )
    .addOption(
      proxyOption('--upstream-timeout <ms>', 'how long the upstream may take to answer, or between body chunks')
        .argParser(wholeNumber(1, 2 ** 31 - 1))
        .default(PROXY_DEFAULTS.upstreamTimeout),
    )
    .addOption(
      proxyOption(
        '--upstream-ca <file>',
        'PEM certificates to trust for an https upstream, in place of the default authorities',
      ),
    )
    .addOption(
      proxyOption(
        '--tls-cert <file>',
        'PEM certificate chain to serve clients over https (with --tls-key); the admin server stays http',
      ),
    )
    .addOption(proxyOption('--tls-key <file>', 'PEM private key of --tls-cert'))
    .addOption(
      proxyOption('--sample <rate>', 'fraction of exchanges validated in report mode')
        .argParser(fraction)
        .default(PROXY_DEFAULTS.sample),
    )
    .addOption(
      proxyOption('--log-values', 'include body values in finding messages (off: values are described by type only)'),
    )
    .addOption(
      proxyOption(
        '--violations-header',
        'add a Las-Violations header listing the rule ids known before the response starts',
      ),
    )
    .addOption(
      proxyOption(
        '--forwarded-headers',
        'add X-Forwarded-For (the client address, appended), X-Forwarded-Proto and X-Forwarded-Host to forwarded requests',
      ),
    )
    .addOption(
      proxyOption(
        '--trusted-proxies <list>',
        'with --forwarded-headers: comma-separated addresses and CIDR ranges of the balancers in front; only their X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host and Forwarded are read and passed on (none by default: every peer is its own client)',
      ).argParser(addressList),
    )
    .addOption(
      proxyOption(
        '--no-judge-thread',
        'judge every exchange on the forwarding thread (by default, report mode judges exchanges with bodies of 8 KiB or more on a worker thread)',
      ),
    )
    .addOption(
      proxyOption(
        '--capture <dir>',
        'write each exchange that draws a MUST finding to capture files in this directory (HAR entries, one per line, credentials masked, bodies up to --max-body); off by default',
      ),
    )
    .addOption(
      proxyOption('--capture-file-bytes <bytes>', 'start a new capture file once the current one holds this many bytes')
        .argParser(wholeNumber(1024, 2 ** 40))
        .default(CAPTURE_DEFAULTS.fileBytes),
    )
    .addOption(
      proxyOption(
        '--capture-max-bytes <bytes>',
        'keep the capture files of the directory under this many bytes in all, the oldest dropped first',
      )
        .argParser(wholeNumber(1024, 2 ** 40))
        .default(CAPTURE_DEFAULTS.maxBytes),
    )
    .addOption(
      proxyOption('--log-level <level>', 'level of the JSON log on stderr')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent'])
        .default('info'),
    )
    .action(async (flags: ProxyFlags) => runProxy(flags));
}

/** The most --admin-token-file may hold: its first line is a token of a few dozen characters. */
export const ADMIN_TOKEN_FILE_MAX_BYTES = 64 * 1024;
/** The most --tls-key may hold: a PEM private key is a few KiB at most (RSA 4096: about 3 KiB). */
const TLS_KEY_MAX_BYTES = 64 * 1024;

/** The admin token: LAS_ADMIN_TOKEN, or the first line of --admin-token-file; none when neither is given. */
function adminToken(file: string | undefined): string | undefined {
  const fromEnvironment = process.env.LAS_ADMIN_TOKEN;
  if (file === undefined) return fromEnvironment === undefined || fromEnvironment === '' ? undefined : fromEnvironment;
  const text = readWholeFile({ what: '--admin-token-file', path: file, maxBytes: ADMIN_TOKEN_FILE_MAX_BYTES }).toString(
    'utf8',
  );
  const token = text.split(/\r?\n/, 1)[0].trim();
  if (token === '') throw new Error(`--admin-token-file ${file} holds no token on its first line`);
  return token;
}

async function runProxy(flags: ProxyFlags): Promise<void> {
  if (flags.mode === 'enforce' && flags.sample < 1)
    throw new Error('--sample applies to report mode only: enforce mode judges every exchange');
  const upstreamCa = flags.upstreamCa === undefined ? undefined : readCertificates(flags.upstreamCa, flags.upstream);
  const token = adminToken(flags.adminTokenFile);
  const tls = listeningTls(flags.tlsCert, flags.tlsKey);
  const violationsToStdout = flags.violations === '-';
  let violationsFile = violationsToStdout ? null : await openAppend(flags.violations);
  const logger = createProxyLogger(process.stderr, flags.logLevel);
  // Compiled before serving, so the first exchanges of each operation do not wait on it.
  loadContract().compileValidators();
  const proxy = createValidatingProxy({
    upstream: flags.upstream.href,
    mode: flags.mode,
    maxBody: flags.maxBody,
    upstreamTimeout: flags.upstreamTimeout,
    upstreamCa,
    sample: flags.sample,
    logValues: flags.logValues === true,
    violationsHeader: flags.violationsHeader === true,
    forwardedHeaders: flags.forwardedHeaders === true,
    trustedProxies: flags.trustedProxies ?? [],
    judgeThread: flags.judgeThread,
    violations: violationsFile ?? process.stdout,
    adminToken: token,
    tls,
    repeatInterval: flags.repeatInterval,
    ...(flags.capture === undefined
      ? {}
      : { capture: { dir: flags.capture, fileBytes: flags.captureFileBytes, maxBytes: flags.captureMaxBytes } }),
    logger,
  });
  let addresses;
  try {
    addresses = await proxy.listen({
      port: flags.port,
      adminPort: flags.adminPort,
      host: flags.host,
      adminHost: flags.adminHost,
    });
  } catch (error) {
    await proxy.close();
    violationsFile?.end();
    throw new Error(`cannot listen on ${flags.host}: ${(error as Error).message}`);
  }
  // logrotate moves the file and sends SIGHUP: findings go to a fresh file of the same name from then on.
  const reopen = async () => {
    if (violationsFile === null) return;
    try {
      const fresh = await openAppend(flags.violations);
      const old = proxy.replaceViolations(fresh);
      violationsFile = fresh;
      old?.end();
      logger.info({ violations: flags.violations }, 'violations log reopened');
    } catch (error) {
      logger.error(
        { error: (error as Error).message },
        'reopening the violations log failed: still writing to the old one',
      );
    }
  };
  // reopen logs its own failure, so the signal handler need not wait for it.
  const reopenOnSignal = (): void => void reopen();
  const stop = async () => {
    process.off('SIGTERM', stopOnSignal);
    process.off('SIGINT', stopOnSignal);
    process.off('SIGHUP', reopenOnSignal);
    await proxy.close();
    const file = violationsFile;
    if (file) await new Promise<void>((resolve) => file.end(resolve));
    process.exitCode = 0;
  };
  // A signal handler returns nothing: a failed close is logged and sets the exit code instead of
  // becoming an unhandled rejection.
  const stopOnSignal = (): void => {
    stop().catch((error: unknown) => {
      logger.error({ error: (error as Error).message }, 'closing the proxy failed');
      process.exitCode = 1;
    });
  };
  // Ready for signals before the addresses are printed: a script may stop the proxy as soon as it reads them.
  process.on('SIGTERM', stopOnSignal);
  process.on('SIGINT', stopOnSignal);
  process.on('SIGHUP', reopenOnSignal);
  // The first line names both addresses; it goes to stderr when stdout carries the violations.
  const banner = `las-conformance proxy: serving ${addresses.baseUrl} (upstream ${upstreamDisplay(flags.upstream)}), admin ${addresses.adminUrl}, mode ${flags.mode}\n`;
  (violationsToStdout ? process.stderr : process.stdout).write(banner);
}

/** The --upstream-ca bundle; a clear error when it is unreadable, holds no certificate or has no use. */
function readCertificates(file: string, upstream: URL): string {
  if (upstream.protocol !== 'https:')
    throw new Error(`--upstream-ca applies to an https upstream, and ${upstreamDisplay(upstream)} is not one`);
  const pem = readPem(file, '--upstream-ca', CA_FILE_MAX_BYTES);
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`--upstream-ca ${file} holds no PEM certificate`);
  return pem;
}

/** The certificate chain and key the proxy serves clients with: both flags or neither. */
function listeningTls(
  certFile: string | undefined,
  keyFile: string | undefined,
): { cert: string; key: string } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new Error('--tls-cert and --tls-key go together: give both to serve https, neither to serve http');
  const cert = readPem(certFile, '--tls-cert', CA_FILE_MAX_BYTES);
  const key = readPem(keyFile, '--tls-key', TLS_KEY_MAX_BYTES);
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`--tls-cert ${certFile} holds no PEM certificate`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error(`--tls-key ${keyFile} holds no PEM private key`);
  return { cert, key };
}

/** A PEM file a flag names, read whole within `maxBytes`: certificates within a CA file's limit, a key a key's. */
function readPem(file: string, flag: string, maxBytes: number): string {
  return readWholeFile({ what: flag, path: file, maxBytes }).toString('utf8');
}

function openAppend(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(path, { flags: 'a' });
    stream.once('open', () => resolve(stream));
    stream.once('error', (error) =>
      reject(
        new Error(`cannot open the violations file ${path}: ${(error as NodeJS.ErrnoException).code ?? error.message}`),
      ),
    );
  });
}
