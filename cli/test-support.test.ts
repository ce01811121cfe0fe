// The in-process runner stands in for a child process only if the two agree: on the exit code and
// on every byte written, and if the test process comes out of it as it went in.
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './test-support.ts';

/** The stream's own write, if one was set on it: compared as a property, so no method is taken from its object. */
const ownWrite = (stream: NodeJS.WriteStream) => Object.getOwnPropertyDescriptor(stream, 'write');

describe('runCliInProcess', () => {
  const usageErrors: { title: string; args: string[]; env: Record<string, string> }[] = [
    { title: "commander's error line", args: ['run', '--workers', '0'], env: {} },
    {
      title: "a command's own error line, from the environment it was given",
      args: ['run'],
      env: { LAS_SESSION_TOKEN: 'a-session' },
    },
  ];
  for (const c of usageErrors) {
    it(`gives what a child process gives for ${c.title}, and leaves this process as it was`, async () => {
      const before = {
        env: process.env,
        exitCode: process.exitCode,
        cwd: process.cwd(),
        stdoutWrite: ownWrite(process.stdout),
        stderrWrite: ownWrite(process.stderr),
      };
      const inProcess = await runCliInProcess(c.args, c.env);
      expect({
        env: process.env,
        exitCode: process.exitCode,
        cwd: process.cwd(),
        stdoutWrite: ownWrite(process.stdout),
        stderrWrite: ownWrite(process.stderr),
      }).toStrictEqual(before);
      expect(inProcess.code).toBe(2);
      expect(inProcess).toEqual(await runCli(c.args, c.env));
    });
  }
});
