import { defineConfig } from 'vitest/config';

// Worker tests start PGlite, PostgreSQL, child processes and local servers: on a busy 2-core machine
// these take seconds, so the default 5 s timeout would fail tests that are fine. Speed lives in
// `pnpm bench`.
export default defineConfig({
  test: {
    // A throw-away PostgreSQL cluster, or SWITCHYARD_TEST_DATABASE_URL (tooling/test-databases).
    globalSetup: ['@switchyard/test-databases/global-setup'],
    setupFiles: ['./src/__fixtures__/setup-each-test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
