#!/usr/bin/env node
/* global process */
// The operator command line (DECISIONS.md 7). Node runs the TypeScript sources itself: it
// strips their types as it loads them (every source is erasable syntax: tsconfig.base.json
// erasableSyntaxOnly), so nothing is transpiled and no loader is registered at start.
if (!process.features.typescript) {
  // Type stripping is on by default from Node 22.18 and 23.6; `npm start` and `npx cairn` use the project's Node 24.
  process.stderr.write(`cairn: Node 24 is needed (this is Node ${process.versions.node}); run it with npm start or npx cairn, which use the project's Node 24\n`);
  process.exit(1);
}
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2));
// Explicit: the exit code is main's, and no handle left open keeps the process alive.
process.exit(code);
