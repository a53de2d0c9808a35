import { defineConfig } from 'vitest/config';

// Worker tests start PGlite, PostgreSQL, child processes and local servers: on a busy 2-core machine
// these take seconds, so the default 5 s timeout would fail tests that are fine. Speed lives in
// `pnpm bench`.
export default defineConfig({
  test: {
    // The control plane's PostgreSQL machinery: a throw-away cluster, or SWITCHYARD_TEST_DATABASE_URL.
    globalSetup: ['../../packages/control-plane/src/__fixtures__/postgres-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
