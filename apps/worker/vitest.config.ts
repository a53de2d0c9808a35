import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The control plane's PostgreSQL setup: SWITCHYARD_TEST_DATABASE_URL, else a throw-away cluster.
    globalSetup: ['../../packages/control-plane/src/__fixtures__/postgres-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
