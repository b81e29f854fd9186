import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Unit and integration tests (contract, server). Browser tests: vitest.e2e.config.ts. */
export default defineConfig({
  // The console's `@/` (apps/web/src, its tsconfig `paths`), for the console's model tests.
  resolve: {
    alias: [{ find: /^@\//, replacement: `${fileURLToPath(new URL('apps/web/src/', import.meta.url))}` }],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Server tests mostly wait on PostgreSQL and sockets: two files at a time on a 2-core machine
    // (vitest's default there is one) cut the run by about a quarter.
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-unit.json' }]],
  },
});
