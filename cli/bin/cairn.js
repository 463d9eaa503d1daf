#!/usr/bin/env node
/* global process */
// The operator command line (DECISIONS.md 7). TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
