#!/usr/bin/env node
/* global process */
// The operator command line (DECISIONS.md 7). TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2));
// Explicit: the exit code is main's, and no handle left open keeps the process alive.
process.exit(code);
