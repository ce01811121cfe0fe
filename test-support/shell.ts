// Runs a documented command as a CI job or an operator would: through `sh -c`, its output kept.
import { spawn } from 'node:child_process';

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function shell(command: string, cwd: string, env: Record<string, string>): Promise<ShellResult> {
  const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
