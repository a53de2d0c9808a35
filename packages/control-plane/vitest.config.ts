import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['src/__fixtures__/postgres-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
