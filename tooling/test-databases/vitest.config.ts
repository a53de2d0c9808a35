import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The same specifier the packages use: checks that vitest resolves it through `exports`.
    globalSetup: ['@switchyard/test-databases/global-setup'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
