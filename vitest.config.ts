import { defineConfig } from 'vitest/config';

/**
 * One test run for the whole repository. Server suites run on PGlite always and on PostgreSQL too when
 * TEST_DATABASE_URL is set (see test/support/databases.ts). Files run one at a time per worker; the machine has 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    // The migrated database the server suites start from, built once per run (see the file).
    globalSetup: ['test/support/global-setup.ts'],
    // expect.poll waits up to 10 s (vitest's default is 1 s): a browser test's click → request → render took over 1 s
    // under CI load (CI: the back office catalog's third page was asked for and shown, but after the poll gave up).
    // A poll still passes as soon as its condition holds; the ceiling only decides when a failure is reported.
    expect: { poll: { timeout: 10_000 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
