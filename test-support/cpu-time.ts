// The CPU time a process has spent, from Linux's /proc. What a process does costs about the same
// CPU time however busy the machine is, where its time on the clock grows with the machine's load.
import { readFileSync } from 'node:fs';

/** The unit of /proc's times: the kernel's USER_HZ, 100 on the kernels the kit runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The CPU seconds (user and system) process `pid` has spent; undefined once it is gone, or without /proc. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's name, which may hold spaces and parentheses: utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
