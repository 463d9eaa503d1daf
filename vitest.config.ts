import { defineConfig } from 'vitest/config';

// Unit specs sit beside the code; tests on real servers (*.int.spec.ts) live in test/.
// Every integration file gets its own database cloned from a migrated template
// (test/src/support/global-setup.ts), so files run in parallel and start clean.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{domain,platform,projections,command-api,query-api,workers,cli}/src/**/*.spec.ts'],
          exclude: ['**/*.int.spec.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/src/**/*.int.spec.ts'],
          globalSetup: ['test/src/support/global-setup.ts', 'test/src/support/openapi-drift-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          maxWorkers: 2,
        },
      },
    ],
  },
});
