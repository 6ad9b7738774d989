import { defineConfig } from 'vitest/config';

/**
 * One test run for the whole repository. Server suites run on PGlite always and on PostgreSQL too when
 * TEST_DATABASE_URL is set (see test/support/databases.ts). Files run one at a time per worker; the machine has 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
