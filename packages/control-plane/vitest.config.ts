import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['src/__fixtures__/postgres-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
