import { defineConfig } from 'vitest/config';

// Worker tests start PGlite, child processes and local servers: on a busy 2-core machine these take
// seconds, so the default 5 s timeout would fail tests that are fine. Speed lives in `pnpm bench`.
export default defineConfig({
  test: {
    // The control plane's PostgreSQL setup: SWITCHYARD_TEST_DATABASE_URL, else a throw-away cluster.
    globalSetup: ['../../packages/control-plane/src/__fixtures__/postgres-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
