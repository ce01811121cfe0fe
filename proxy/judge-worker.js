// The judging thread's entry point (see judge-thread.ts). Plain JavaScript, like the CLI's own
// entry, so it can install the TypeScript loader before it imports the judging code.
import { register } from 'tsx/esm/api';

register();
await import('./judge-worker-main.ts');
