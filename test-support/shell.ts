// Runs a documented command as a CI job or an operator would: through `sh -c` (or, for a GitHub
// Actions step of `shell: bash`, bash as GitHub starts it), its output kept.
import { spawn } from 'node:child_process';

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How GitHub Actions runs a step of `shell: bash`. */
export const GITHUB_BASH = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'];

export function shell(
  command: string,
  cwd: string,
  env: Record<string, string>,
  program: string[] = ['sh', '-c'],
): Promise<ShellResult> {
  const child = spawn(program[0], [...program.slice(1), command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
