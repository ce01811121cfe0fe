// The entry point of `las-conformance`: runs the command line the process was started with.
import { runCommandLine } from './command-line.ts';

await runCommandLine(process.argv);
