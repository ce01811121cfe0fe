// `las-conformance proxy`: flags to createValidatingProxy, signals to close().
import { wholeNumber } from './options.ts';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { createProxyLogger, createValidatingProxy, PROXY_DEFAULTS, upstreamDisplay, type ProxyMode } from '../proxy/index.ts';

interface ProxyFlags {
  upstream: URL;
  host: string;
  port: number;
  adminPort: number;
  mode: ProxyMode;
  violations: string;
  maxBody: number;
  upstreamTimeout: number;
  upstreamCa?: string;
  sample: number;
  logValues?: boolean;
  violationsHeader?: boolean;
  forwardedHeaders?: boolean;
  judgeThread: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
}

function parseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as https://staging.example.com/v3.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http or https URL.');
  return url;
}

function fraction(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return number;
}

export function registerProxyCommand(program: Command): void {
  program
    .command('proxy')
    .description('run the validating reverse proxy: forward traffic to --upstream and log every exchange that breaks the contract')
    .requiredOption('--upstream <url>', 'base URL of the service, e.g. https://staging.example.com/v3', parseUrl)
    .option('--host <host>', 'address the proxy and admin servers listen on', '127.0.0.1')
    .option('--port <port>', 'proxy port (0 = any free port)', wholeNumber(0, 65535), 8080)
    .option('--admin-port <port>', 'admin port: /healthz, /readyz, /metrics, dashboard at / (0 = any free port)', wholeNumber(0, 65535), 9090)
    .addOption(new Option('--mode <mode>', 'report: relay everything and log; enforce: refuse what breaks the contract').choices(['report', 'enforce']).default(PROXY_DEFAULTS.mode))
    .option('--violations <file>', 'NDJSON violations log (appended), - for stdout; INFO observations are logged once per rule, operation and direction, metrics count all', '-')
    .option('--max-body <bytes>', 'largest body buffered for validation; larger ones pass unvalidated', wholeNumber(0, 2 ** 31 - 1), PROXY_DEFAULTS.maxBody)
    .option('--upstream-timeout <ms>', 'how long the upstream may take to answer, or between body chunks', wholeNumber(1, 2 ** 31 - 1), PROXY_DEFAULTS.upstreamTimeout)
    .option('--upstream-ca <file>', 'PEM certificates to trust for an https upstream, in place of the default authorities')
    .option('--sample <rate>', 'fraction of exchanges validated in report mode', fraction, PROXY_DEFAULTS.sample)
    .option('--log-values', 'include body values in finding messages (off: values are described by type only)')
    .option('--violations-header', 'add a Las-Violations header listing the rule ids known before the response starts')
    .option('--forwarded-headers', 'add X-Forwarded-For (the client address, appended), X-Forwarded-Proto and X-Forwarded-Host to forwarded requests')
    .option('--no-judge-thread', 'judge every exchange on the forwarding thread (by default, report mode judges exchanges with bodies of 8 KiB or more on a worker thread)')
    .addOption(new Option('--log-level <level>', 'level of the JSON log on stderr').choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'))
    .action(async (flags: ProxyFlags) => runProxy(flags));
}

async function runProxy(flags: ProxyFlags): Promise<void> {
  if (flags.mode === 'enforce' && flags.sample < 1) throw new Error('--sample applies to report mode only: enforce mode judges every exchange');
  const upstreamCa = flags.upstreamCa === undefined ? undefined : readCertificates(flags.upstreamCa, flags.upstream);
  const violationsToStdout = flags.violations === '-';
  const violationsFile = violationsToStdout ? null : await openAppend(flags.violations);
  const logger = createProxyLogger(process.stderr, flags.logLevel);
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
    judgeThread: flags.judgeThread,
    violations: violationsFile ?? process.stdout,
    logger,
  });
  let addresses;
  try {
    addresses = await proxy.listen({ port: flags.port, adminPort: flags.adminPort, host: flags.host });
  } catch (error) {
    await proxy.close();
    violationsFile?.end();
    throw new Error(`cannot listen on ${flags.host}: ${(error as Error).message}`);
  }
  const stop = async () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await proxy.close();
    if (violationsFile) await new Promise<void>((resolve) => violationsFile.end(resolve));
    process.exitCode = 0;
  };
  // Ready for signals before the addresses are printed: a script may stop the proxy as soon as it reads them.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The first line names both addresses; it goes to stderr when stdout carries the violations.
  const banner = `las-conformance proxy: serving ${addresses.baseUrl} (upstream ${upstreamDisplay(flags.upstream)}), admin ${addresses.adminUrl}, mode ${flags.mode}\n`;
  (violationsToStdout ? process.stderr : process.stdout).write(banner);
}

/** The --upstream-ca bundle; a clear error when it is unreadable, holds no certificate or has no use. */
function readCertificates(file: string, upstream: URL): string {
  if (upstream.protocol !== 'https:') throw new Error(`--upstream-ca applies to an https upstream, and ${upstreamDisplay(upstream)} is not one`);
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read --upstream-ca ${file}: ${(error as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`--upstream-ca ${file} holds no PEM certificate`);
  return pem;
}

function openAppend(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(path, { flags: 'a' });
    stream.once('open', () => resolve(stream));
    stream.once('error', (error) => reject(new Error(`cannot open the violations file ${path}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)));
  });
}
