import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@switchyard/test-databases/global-setup'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
