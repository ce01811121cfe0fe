#!/usr/bin/env node
// The kit is written in TypeScript and run through tsx's loader, so `npm ci` is the only build.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
