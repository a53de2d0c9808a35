import { defineConfig } from 'vitest/config';

// Worker tests start PGlite, child processes and local servers: on a busy 2-core machine these take
// seconds, so the default 5 s timeout would fail tests that are fine. Speed lives in `pnpm bench`.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
