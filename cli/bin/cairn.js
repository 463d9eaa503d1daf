#!/usr/bin/env node
/* global process */
// The operator command line (DECISIONS.md 7). TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2));
// Explicit: an exit hook of the embedded PostgreSQL would otherwise end the process with 0.
process.exit(code);
