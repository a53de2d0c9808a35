import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The CLI tests run the built CLI as child processes (and PGlite); a busy 2-core machine needs room.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
